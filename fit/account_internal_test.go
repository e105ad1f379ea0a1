package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestPrintCrossoverUnmeasured: a chain whose draws carry no gradient-noise
// estimate (noise_grad__ NaN throughout: the block plan measures it every
// 5d steps) gets no verdict — before, "the gradient noise still exceeds the
// injected noise" was printed for it, a false alarm on a correct run.
// Chains with estimates are judged as before.
func TestPrintCrossoverUnmeasured(t *testing.T) {
	nan := math.NaN()
	trace := func(grads ...[]float64) *langevin.Trace {
		tr := &langevin.Trace{StatNames: []string{"lp__", "noise_inj__", "noise_grad__"}}
		for _, g := range grads {
			var d langevin.Draws
			for i, v := range g {
				d.Stats = append(d.Stats, []float64{0, 1, v})
				d.Iters = append(d.Iters, i+1)
			}
			tr.Draws = append(tr.Draws, make([][]float64, len(g)))
			tr.Stats = append(tr.Stats, d.Stats)
			tr.Iters = append(tr.Iters, d.Iters)
			tr.Warmup = append(tr.Warmup, langevin.Draws{})
		}
		return tr
	}
	c := &Config{NoiseEvery: 10, Batch: 100}
	for _, tc := range []struct {
		name  string
		tr    *langevin.Trace
		want  string
		avoid string
	}{
		{"none measured", trace([]float64{nan, nan, nan}, []float64{nan, nan}), "was not measured", "still exceeds"},
		{"measured, dominated by injected", trace([]float64{nan, 0.5, 0.5}, []float64{nan, nan}), "injected noise dominates from iteration 1", "still exceeds"},
		{"measured, gradient noise larger", trace([]float64{nan, 2, 2}, []float64{nan, nan}), "in 1 of 1 chains the gradient noise still exceeds", "dominates"},
	} {
		var sb strings.Builder
		printCrossover(&sb, c, tc.tr)
		out := sb.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.avoid) {
			t.Errorf("%s: got %q, want %q and not %q", tc.name, out, tc.want, tc.avoid)
		}
	}
}
