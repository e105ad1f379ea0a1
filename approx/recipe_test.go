package approx_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// corrGauss is N(μ, Σ) in 4 dimensions with correlations up to 0.95 and
// scales from 0.1 to 10.
func corrGauss(t *testing.T) (*model.Gaussian, []float64, []float64) {
	mu := []float64{1, -2, 0.5, 3}
	sd := []float64{0.1, 1, 3, 10}
	rho := [][]float64{{1, 0.95, 0.5, 0.2}, {0.95, 1, 0.6, 0.1}, {0.5, 0.6, 1, -0.7}, {0.2, 0.1, -0.7, 1}}
	cov := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			cov.SetSym(i, j, rho[i][j]*sd[i]*sd[j])
		}
	}
	g, err := model.NewGaussian(mu, cov)
	if err != nil {
		t.Fatal(err)
	}
	return g, mu, sd
}

// TestLaplaceMALA samples a correlated 4-D Gaussian with the recipe and
// checks means, sds and ESS against the exact ones; the same MALA
// preconditioned by the precision instead of the covariance (the slip)
// fails the same check.
func TestLaplaceMALA(t *testing.T) {
	g, mu, sd := corrGauss(t)
	ctx := context.Background()
	s, init, err := approx.LaplaceMALA(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	opts := langevin.Options{Chains: 4, Iters: 1500, BurnIn: 500, Seed: 3, Init: init}
	tr, err := langevin.Run(ctx, g, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := testmodel.CompareMoments(tr, mu, sd, 400); err != nil {
		t.Errorf("LaplaceMALA: %v", err)
	} else {
		t.Log(sum)
	}
	l, _ := approx.Laplace(ctx, g, nil)
	slip := sampler.MALA{PrecondFull: l.Prec}
	tr, err = langevin.Run(ctx, g, slip, opts)
	if err == nil {
		if _, err := testmodel.CompareMoments(tr, mu, sd, 400); err == nil {
			t.Error("MALA preconditioned by the precision passed the check")
		}
	}
}
