package sampler_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// SGHMC with a dense preconditioner block (B = 100, friction α = 0.5) on the
// conjugate linear regression (intercept, two features correlated at 0.9,
// log σ²) matches the exact posterior: the block is the Laplace covariance
// of the three coefficients (their posterior correlations are far from 0,
// so a diagonal would not whiten them), log σ² keeps its diagonal Laplace
// entry. η = 0.1·αB/N as in TestSGHMCLinearRegressionExactPosterior (the
// preconditioned posterior has unit scale). Means within 0.2 sd, sds within
// 10%, bulk-ESS ≥ 400. The injected noise off by √2 (τ = 2), or drawn
// with P instead of its Cholesky factor L (the block's noise must be Lz,
// LLᵀ = P: Pz has covariance P², here detected through a block scaled so
// that P² ≠ P), fails.
func TestSGHMCDenseBlockExactPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	// 10,000 rows, features x₁ ~ N(2, 1), x₂ = 0.9x₁ + 0.44z, x₃ ~ N(−1, 1):
	// intercept and slopes correlated in the posterior.
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 10000
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x1 := 2 + rng.NormFloat64()
		x2 := 0.9*x1 + 0.44*rng.NormFloat64()
		x3 := -1 + rng.NormFloat64()
		X.SetRow(i, []float64{x1, x2, x3})
		y[i] = 1 + 0.5*x1 - 0.3*x2 + 0.2*x3 + rng.NormFloat64()
	}
	m, err := model.NewLinear(X, y, model.LinearOptions{V: 100, Phi: 1, Psi: 1})
	if err != nil {
		t.Fatal(err)
	}
	exact := m.Posterior()
	mean, sd := exact.Mean(), exact.SD()
	const b, alpha = 100, 0.5
	mp := exact.MAP()
	cov, err := approx.LaplaceCov(m, mp)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	pre, err := approx.LaplacePrecond(m, mp)
	if err != nil {
		t.Fatal(err)
	}
	k := d - 1
	idx := make([]int, k)
	blk := mat.NewSymDense(k, nil)
	for a := 0; a < k; a++ {
		idx[a] = a
		for c := a; c < k; c++ {
			blk.SetSym(a, c, cov.At(a, c))
		}
	}
	var maxCorr2 float64
	for a := 0; a < k; a++ {
		for c := a + 1; c < k; c++ {
			r := cov.At(a, c) / (sd[a] * sd[c])
			maxCorr2 = max(maxCorr2, r*r)
		}
	}
	if maxCorr2 < 0.25 {
		t.Fatalf("the block's largest posterior correlation² is %.2f: the test needs correlated coordinates", maxCorr2)
	}
	eta := 0.1 * alpha * b / float64(m.Len())
	for _, tau := range []float64{1, 2} {
		s := sampler.SGHMC{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Friction: alpha, Precond: pre, Temperature: tau,
			Blocks: []sampler.DenseBlock{{Index: idx, Cov: blk}}}
		tr := runFamily(t, m, s, 400000, mp, 23)
		err := compare(tr, mean, sd, 400)
		switch {
		case tau == 1 && err != nil:
			t.Error(err)
		case tau == 1:
			t.Logf("η = %.3g, α = %v, dense block of %d: matches the exact posterior: %s", eta, alpha, k, agreement(tr, mean, sd))
		case err == nil:
			t.Error("SGHMC with a dense block and noise 2·2αη passed")
		default:
			t.Logf("noise 2·2αη fails as it should: %v", err)
		}
	}
}
