package experiment

import (
	"context"
	"testing"
)

// TestOneInputPredictive checks the claim of diagnostics' one-input figure
// (the ProbAI lecture's predictive distribution of one input): for SGLD and
// for MALA the per-draw outputs at x* = 0, in the gap, spread more than
// twice as widely as at x* = −1.5, among the data. The slip: the two inputs
// swapped must fail.
func TestOneInputPredictive(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 7 s of MALA and SGLD on a network")
	}
	_, _, names, _, at, err := gapBands(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	wider := func(gap, data []float64) bool {
		_, sg := meanSD(gap)
		_, sd := meanSD(data)
		return sg > 2*sd
	}
	for k, r := range at {
		_, sg := meanSD(r[0])
		_, sd := meanSD(r[1])
		t.Logf("%s: sd of f(0) %.3f, of f(-1.5) %.3f (%d draws)", names[k], sg, sd, len(r[0]))
		if !wider(r[0], r[1]) {
			t.Errorf("%s: the predictive at x* = 0 (sd %.3f) is not twice as wide as at −1.5 (sd %.3f)", names[k], sg, sd)
		}
		if wider(r[1], r[0]) {
			t.Errorf("%s: the swapped inputs passed", names[k])
		}
	}
}
