package sampler_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// coefCorr is the posterior correlation of the coefficients (1, x₁, x₂,
// x₁x₂) of a least-squares fit on a raw design (x₁ ~ N(5, 1), x₂ ~ N(3, 1),
// 400 rows): correlations ±0.93 … ±0.98, eigenvalues 9.7e-4, 0.035, 0.100,
// 3.86 (condition number 4,000).
var coefCorr = []float64{
	1, -0.982065, -0.950230, 0.931846,
	-0.982065, 1, 0.933515, -0.948887,
	-0.950230, 0.933515, 1, -0.982235,
	0.931846, -0.948887, -0.982235, 1,
}

// nutsBoundaryStats runs NUTS with a fixed step ε = 0.05 and no adaptation on
// N(0, R), R = coefCorr, for seeds × 4 chains × draws, every chain started
// from an exact draw, and returns for each coordinate the pooled sd and its
// Monte Carlo standard error (from the bulk ESS of θ², the mean being 0:
// se(sd) = se(E θ²)/(2 sd)).
func nutsBoundaryStats(t *testing.T, s sampler.NUTS, seeds, draws int) (sd, se []float64) {
	t.Helper()
	g, err := model.NewGaussian(make([]float64, 4), mat.NewSymDense(4, coefCorr))
	if err != nil {
		t.Fatal(err)
	}
	d := g.Dim()
	sq := make([][][]float64, d)
	for seed := 1; seed <= seeds; seed++ {
		rng := langevin.ChainRNG(uint64(seed), 1<<20)
		init := make([][]float64, 4)
		for c := range init {
			init[c] = make([]float64, d)
			g.Rand(init[c], rng)
		}
		tr, err := langevin.Run(context.Background(), g, s, langevin.Options{
			Chains: 4, Iters: draws, Seed: uint64(seed), Init: langevin.InitAt{Points: init},
		})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < d; j++ {
			for _, ch := range tr.Param(j) {
				x2 := make([]float64, len(ch))
				for i, v := range ch {
					x2[i] = v * v
				}
				sq[j] = append(sq[j], x2)
			}
		}
	}
	sd, se = make([]float64, d), make([]float64, d)
	for j := range sd {
		sd[j] = math.Sqrt(chainMean(sq[j]))
		se[j] = diag.MCSEMean(sq[j]) / (2 * sd[j])
	}
	return sd, se
}

// checkBoundary returns an error naming the coordinates whose pooled sd is
// not within z standard errors of the exact 1.
func checkBoundary(sd, se []float64, z float64) error {
	var msg string
	for j := range sd {
		if e := math.Abs(sd[j]-1) / se[j]; !(e < z) {
			msg += fmt.Sprintf(" θ%d: sd %.4f ± %.4f (%.1f SE);", j+1, sd[j], se[j], e)
		}
	}
	if msg != "" {
		return fmt.Errorf("pooled sd off:%s", msg)
	}
	return nil
}

// TestNUTSCorrelatedGaussianBoundary checks NUTS's trajectory extension on a
// strongly correlated 4-D Gaussian (coefCorr) with a fixed step ε = 0.05, the
// identity metric (as a diagonal and as a dense inverse metric) and no
// adaptation, 8 seeds × 4 chains × 3,000 draws from exact draws: every pooled
// sd within 3 MCSE (about 0.006) of 1. With the pre-fix boundary (the extra
// U-turn checks between the old trajectory and the new subtree taking the
// inner end of the previous subtree instead of the old trajectory's outer
// end, Stan's base_nuts::transition before 2.26) the draws are about 3.5% too
// wide and the same check must fail (by about 6 MCSE here; 11 at 20 seeds ×
// 5,000 draws). Under -short the dense metric, which takes the same path
// through transition, is skipped.
func TestNUTSCorrelatedGaussianBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	eye := mat.NewSymDense(4, nil)
	for j := 0; j < 4; j++ {
		eye.SetSym(j, j, 1)
	}
	const seeds, draws = 8, 3000
	for _, tc := range []struct {
		name string
		s    sampler.NUTS
	}{
		{"diag", sampler.NUTS{Step: 0.05, Precond: []float64{1, 1, 1, 1}}},
		{"dense", sampler.NUTS{Step: 0.05, PrecondFull: eye}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name == "dense" {
				t.Skip("-short: the dense metric only in the full suite")
			}
			sd, se := nutsBoundaryStats(t, tc.s, seeds, draws)
			t.Logf("pooled sd %.4f, MCSE %.4f", sd, se)
			if err := checkBoundary(sd, se, 3); err != nil {
				t.Error(err)
			}
			sd, se = nutsBoundaryStats(t, sampler.WithInnerBoundary(tc.s), seeds, draws)
			err := checkBoundary(sd, se, 3)
			if err == nil {
				t.Errorf("the pre-fix boundary passed: pooled sd %.4f, MCSE %.4f", sd, se)
			} else {
				t.Logf("pre-fix boundary (as it should fail): %v", err)
			}
		})
	}
}
