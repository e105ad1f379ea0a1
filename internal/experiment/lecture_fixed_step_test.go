package experiment

import (
	"context"
	"strings"
	"testing"
)

// TestLectureFixedStepWidens checks the claim of the figure: at one step
// η = 5·10⁻⁶, the sd of SGLD's draws grows as the batch shrinks (B = 1000,
// 100, 10), wider than the exact posterior even at B = 1000, and with
// independent batches it matches the discrete Lyapunov prediction within
// Monte Carlo error.
func TestLectureFixedStepWidens(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 2 s of SGLD runs")
	}
	r, err := lectureFixedStep(context.Background(), lectureFixedBatches, func(int) float64 { return lectureFixedEta }, 20000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWidening(r); err != nil {
		t.Error(err)
	}
	for _, run := range r.Runs {
		t.Logf("B = %4d: sd(beta.1) %.4g ± %.1g in epochs, %.4g ± %.1g with replacement, predicted %.4g (exact %.4g)",
			run.B, run.SD[1], run.SE[1], run.SDR[1], run.SER[1], run.Predicted[1], r.Exact[1])
	}
	// The lecture's numbers: sd 0.053 / 0.017 / 0.0061 at B = 10 / 100 / 1000.
	for k, want := range []float64{0.053, 0.017, 0.0061} {
		if got := r.Runs[k].SD[1]; got < 0.93*want || got > 1.07*want {
			t.Errorf("B = %d: sd(beta.1) = %.4g, the lecture's %.4g", r.Runs[k].B, got, want)
		}
	}

	// The slip of the old experiment: η scaled with B keeps ηN/B, and
	// with it the minibatch noise, fixed, so the spread does not widen;
	// the check must catch it.
	slip, err := lectureFixedStep(context.Background(), []int{10, 100}, func(b int) float64 { return 5e-8 * float64(b) }, 20000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWidening(slip); err == nil || !strings.Contains(err.Error(), "not wider") {
		t.Errorf("η ∝ B: checkWidening = %v, want a 'not wider' error", err)
	}
}
