package experiment

import (
	"context"
	"testing"
)

// TestProbAISGDAgree checks the hands-on's claim: constant SGD as a sampler
// with S = 8, 16, 32 at rates η ∝ S from the gradient-noise formula gives
// the same predictive spread, within Monte Carlo error at every grid point.
// The slip — one rate for every S, so that the spread shrinks as S grows —
// must fail the same check.
func TestProbAISGDAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 10 s of constant SGD on a 481-parameter network")
	}
	ctx := context.Background()
	p, err := newProbAI(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.stabilise(32, 1)
	eta := func(s int) float64 { return p.factor * p.etaStar(s) }
	runs, err := p.sgdSampler(ctx, probaiBatches, eta, 10000, 3)
	if err != nil {
		t.Fatal(err)
	}
	worst, err := checkSGDAgree(runs)
	if err != nil {
		t.Error(err)
	}
	t.Logf("f = %.3g, λmax = %.3g; largest deviation %.1f MCSE", p.factor, p.lmax, worst)
	slip, err := p.sgdSampler(ctx, []int{8, 32}, func(int) float64 { return eta(8) }, 10000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkSGDAgree(slip); err == nil {
		t.Error("one rate for S = 8 and 32 passed the agreement check")
	}
}
