package sampler

import (
	"math"
	"testing"
)

// The windows of a 1000-iteration warm-up are Stan's: metric updates after
// iterations 100, 150, 250, 450 and 950 (windows of 25, 50, 100, 200 and 500
// after a 75-iteration buffer, 50 terminal iterations).
func TestWindowsAreStans(t *testing.T) {
	w := newWindows(1000, 1, 75, 50, 25, false)
	q := []float64{0}
	inv, _ := newMetric(1, nil, nil, "")
	var ends []int
	for it := 1; it <= 1000; it++ {
		q[0] = float64(it % 7)
		if w.learn(q, inv) {
			ends = append(ends, it)
		}
	}
	want := []int{100, 150, 250, 450, 950}
	if len(ends) != len(want) {
		t.Fatalf("window ends %v, want %v", ends, want)
	}
	for i := range want {
		if ends[i] != want[i] {
			t.Fatalf("window ends %v, want %v", ends, want)
		}
	}
	// Short warm-ups: 15% / 10% buffers as Stan; none below 20.
	if w := newWindows(100, 1, 75, 50, 25, false); w.initBuf != 15 || w.termBuf != 10 || w.baseWin != 75 {
		t.Errorf("warm-up 100: buffers %d/%d, window %d; want 15/10, 75", w.initBuf, w.termBuf, w.baseWin)
	}
	if w := newWindows(19, 1, 75, 50, 25, false); !w.off {
		t.Error("warm-up 19: metric adaptation on")
	}
}

// The regularised variance of a window is n/(n+5)·var + 1e-3·5/(n+5).
func TestWindowVariance(t *testing.T) {
	w := newWindows(1000, 1, 75, 50, 25, false)
	inv, _ := newMetric(1, nil, nil, "")
	xs := []float64{}
	for it := 1; it <= 100; it++ {
		x := math.Sin(float64(it))
		if it > 75 {
			xs = append(xs, x)
		}
		w.learn([]float64{x}, inv)
	}
	var m, v float64
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	for _, x := range xs {
		v += (x - m) * (x - m) / float64(len(xs)-1)
	}
	n := float64(len(xs))
	want := n/(n+5)*v + 1e-3*5/(n+5)
	if math.Abs(inv.diag[0]-want) > 1e-12 {
		t.Errorf("inverse metric %v, want %v", inv.diag[0], want)
	}
}

// Dual averaging on a deterministic acceptance curve a(ε) = e^(−ε) finds
// the step with a(ε) = δ, and a deliberately wrong sign of the update does
// not.
func TestDualAveragingConverges(t *testing.T) {
	for _, delta := range []float64{0.234, 0.574, 0.8} {
		a := newAdapter(Adapt{Warmup: 2000, TargetAccept: delta, Metric: MetricFixed}, 1, 1, false)
		step := a.startStep(1)
		for range 2000 {
			a.update(&step, math.Exp(-step), nil, nil)
		}
		want := -math.Log(delta)
		if math.Abs(step-want)/want > 0.05 {
			t.Errorf("δ = %v: step %.4f, want %.4f", delta, step, want)
		}
		// Failure mode: feeding 1 − a inverts the curve's direction.
		b := newAdapter(Adapt{Warmup: 2000, TargetAccept: delta, Metric: MetricFixed}, 1, 1, false)
		step = b.startStep(1)
		for range 2000 {
			b.update(&step, 1-math.Exp(-step), nil, nil)
		}
		if math.Abs(step-want)/want < 0.05 {
			t.Errorf("δ = %v: the wrong adaptation found the right step %.4f", delta, step)
		}
	}
}

// Grid tuning keeps the grid step whose mean acceptance is closest to the
// target.
func TestGridPicksClosest(t *testing.T) {
	a := newAdapter(Adapt{Warmup: 900, Tune: TuneGrid, TargetAccept: 0.3, Metric: MetricFixed}, 1, 1, true)
	step := a.startStep(1)
	if step != 1.0/16 {
		t.Fatalf("first grid step %v, want 1/16", step)
	}
	seen := map[float64]int{}
	for range 900 {
		seen[step]++
		a.update(&step, math.Exp(-step), nil, nil)
	}
	if len(seen) != 9 {
		t.Errorf("grid steps used: %v", seen)
	}
	// e^(−ε) = 0.3 at ε = 1.20: the closest grid value is 1 (0.368) not 2 (0.135).
	if step != 1 {
		t.Errorf("grid chose %v, want 1", step)
	}
}
