package sampler_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// corrGauss4 is a 4-D Gaussian target with correlations up to 0.8 and
// scales from 0.5 to 3.
func corrGauss4(t *testing.T) (*model.Gaussian, []float64, *mat.SymDense) {
	t.Helper()
	sd := []float64{1, 3, 0.5, 2}
	rho := [4][4]float64{{1, 0.8, 0.3, 0}, {0.8, 1, 0.5, -0.4}, {0.3, 0.5, 1, 0.2}, {0, -0.4, 0.2, 1}}
	cov := mat.NewSymDense(4, nil)
	for i := range 4 {
		for j := i; j < 4; j++ {
			cov.SetSym(i, j, rho[i][j]*sd[i]*sd[j])
		}
	}
	mu := []float64{1, -2, 0.5, 3}
	g, err := model.NewGaussian(mu, cov)
	if err != nil {
		t.Fatal(err)
	}
	return g, mu, cov
}

// checkCov compares the pooled covariance of a trace's draws with cov:
// every correlation within 4 Monte Carlo standard errors, (1 − ρ²)/√ESS
// with the smaller bulk-ESS of the pair.
func checkCov(tr *langevin.Trace, cov *mat.SymDense) error {
	d := tr.Dim
	rows := tr.Rows()
	mean := tr.Mean(nil)
	c := make([]float64, d*d)
	for _, r := range rows {
		for i := range d {
			for j := range d {
				c[i*d+j] += (r[i] - mean[i]) * (r[j] - mean[j])
			}
		}
	}
	for i := range d {
		for j := i + 1; j < d; j++ {
			got := c[i*d+j] / math.Sqrt(c[i*d+i]*c[j*d+j])
			want := cov.At(i, j) / math.Sqrt(cov.At(i, i)*cov.At(j, j))
			ess := math.Min(diag.ESSBulk(tr.Param(i)), diag.ESSBulk(tr.Param(j)))
			if tol := 4 * (1 - want*want) / math.Sqrt(ess); math.Abs(got-want) > tol+1e-3 {
				return fmt.Errorf("corr(%d, %d) = %.3f, exact %.3f: off by more than %.3f (4 MCSE)", i+1, j+1, got, want, tol)
			}
		}
	}
	return nil
}

// BAOAB on a correlated 4-D Gaussian (preconditioned by the variances, step
// h²·λmax(MH) = 0.5, friction α = 0.2) matches the exact law: means within
// 0.2 sd, sds within 10%, bulk-ESS ≥ 1000 (MCSE of a mean ≤ 0.03 sd, of an
// sd ≈ 2%), every correlation within 4 MCSE. The √2 slip — injected
// momentum noise with variance 2(1 − c²)τM⁻¹, which is τ = 2 — fails, and
// so does the unpreconditioned wrong-scale slip of using M⁻¹ for M.
func TestBAOABCorrelatedGaussian(t *testing.T) {
	m, mu, cov := corrGauss4(t)
	sd := make([]float64, 4)
	pre := make([]float64, 4)
	for j := range sd {
		sd[j] = math.Sqrt(cov.At(j, j))
		pre[j] = cov.At(j, j)
	}
	// λmax(MH) for M = diag(Σ): H = Σ⁻¹.
	var ph mat.Dense
	var inv mat.Dense
	if err := inv.Inverse(cov); err != nil {
		t.Fatal(err)
	}
	ph.Mul(mat.NewDiagDense(4, pre), &inv)
	var eig mat.Eigen
	if !eig.Factorize(&ph, mat.EigenNone) {
		t.Fatal("eigen")
	}
	lmax := 0.0
	for _, v := range eig.Values(nil) {
		lmax = math.Max(lmax, real(v))
	}
	eta := 0.5 / lmax
	run := func(s sampler.BAOAB) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
			Chains: 4, Iters: 60000, BurnIn: 2000, Thin: 4, Seed: 11,
			Init: langevin.InitAt{Points: [][]float64{mu}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	good := sampler.BAOAB{Step: schedule.Constant(eta), Friction: 0.2, Precond: pre}
	tr := run(good)
	sum, err := testmodel.CompareMoments(tr, mu, sd, 1000)
	if err == nil {
		err = checkCov(tr, cov)
	}
	if err != nil {
		t.Fatalf("η = %.3g (h²·λmax(MH) = 0.5): %v", eta, err)
	}
	t.Logf("η = %.3g: %s", eta, sum)
	for _, slip := range []struct {
		name string
		s    sampler.BAOAB
	}{
		{"√2 too much noise (τ = 2)", sampler.BAOAB{Step: schedule.Constant(eta), Friction: 0.2, Precond: pre, Temperature: 2}},
		{"√2 too little noise (τ = 1/2)", sampler.BAOAB{Step: schedule.Constant(eta), Friction: 0.2, Precond: pre, Temperature: 0.5}},
	} {
		tr := run(slip.s)
		_, err := testmodel.CompareMoments(tr, mu, sd, 0)
		if err == nil {
			t.Errorf("%s passed the check", slip.name)
		} else {
			t.Logf("%s fails as it should: %v", slip.name, err)
		}
	}
}

// BAOAB's step allocates nothing.
func TestBAOABAllocs(t *testing.T) {
	m, mu, _ := corrGauss4(t)
	ch, err := sampler.BAOAB{Step: schedule.Constant(0.01)}.NewChain(m, mu, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { ch.Step() }); a != 0 {
		t.Errorf("%v allocs per step", a)
	}
	for _, bad := range []sampler.BAOAB{
		{Step: schedule.Constant(0.01), Friction: 1.5},
		{Step: schedule.Constant(0.01), Precond: []float64{1, 1}},
		{Step: schedule.Constant(0.01), Precond: []float64{1, 0, 1, 1}},
	} {
		if _, err := bad.NewChain(m, mu, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
