package experiment

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSchedulesClaims checks the numbers behind the schedule figure: the
// total step Σηₜ of γ = 1.2 has nearly converged (less than 10% added over the
// last 90% of 10⁵ iterations), that of γ = 0.55 grows like t^0.45 (×2.8
// from T/10 to T, within 5%), and the floored schedule's grows linearly
// once floored; and the experiment writes its figure and page.
func TestSchedulesClaims(t *testing.T) {
	const T = 100000
	sum := func(k, to int) float64 {
		s := scheduleSet(T)[k].s
		var x float64
		for i := 1; i <= to; i++ {
			x += s.At(i)
		}
		return x
	}
	if r := sum(4, T) / sum(4, T/10); r > 1.1 {
		t.Errorf("γ = 1.2: Σ grew by %.3f× from T/10 to T; want < 1.1", r)
	}
	if r := sum(0, T) / sum(0, T/10); r < 0.95*2.818 || r > 1.05*2.818 {
		t.Errorf("γ = 0.55: Σ grew by %.3f×; want 10^0.45 = 2.818 within 5%%", r)
	}
	if d := sum(1, T) - sum(1, T-1000); d < 0.999 || d > 1.001 {
		t.Errorf("floored: the last 1000 steps add %.4g; want 1000 × 10⁻³ = 1", d)
	}
	dir := t.TempDir()
	if err := Run(context.Background(), "schedules", []string{"--out", dir, "--iters", "2000"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"schedules.png", "schedules.svg", "index.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
