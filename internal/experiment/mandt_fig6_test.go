package experiment

import (
	"context"
	"io"
	"testing"
)

// TestMandtFig6VEMInMinimum checks the claim of Fig. 6 at the experiment's
// default settings: the MAP at variational EM's λ has a validation loss
// within 2% of the best of the λ grid, on a curve that is not flat within
// 2%. The slip: a λ 30× too large (the grid point 100 against the minimum
// near 3, what a rule λ ∝ N would give) must fail the same check.
func TestMandtFig6VEMInMinimum(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 1 s of variational EM and MAP fits")
	}
	n, p, k, o := fig6Opts(false, 1)
	res, err := hyperExperiment(context.Background(), SoftmaxData(n, p, k, 2, 2), SoftmaxData(o.valid, p, k, 2, 3), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("grid %v: loss %.4f; VEM λ = %.3g (loss %.4f), BBVI-EM λ = %.3g (loss %.4f)", res.grid, res.loss, res.vemLambda, res.vemLoss, res.viLambda, res.viLoss)
	if err := checkFig6(res.grid, res.loss, res.vemLambda, res.vemLoss); err != nil {
		t.Error(err)
	}
	last := len(res.grid) - 1
	if err := checkFig6(res.grid, res.loss, res.grid[last], res.loss[last]); err == nil {
		t.Errorf("λ = %g (loss %.4f) passed the check", res.grid[last], res.loss[last])
	}
}
