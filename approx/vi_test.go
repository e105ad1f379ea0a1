package approx

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// viCheck fits v to the Gaussian target N(mu, cov) reps times and returns,
// per coordinate, the replicate means of μⱼ and σⱼ² with their standard
// errors.
func viCheck(t *testing.T, v VI, mu []float64, cov *mat.SymDense, reps, iters int) (m, mse, s2, s2se []float64) {
	t.Helper()
	g, err := model.NewGaussian(mu, cov)
	if err != nil {
		t.Fatal(err)
	}
	d := len(mu)
	ms, vs := make([][]float64, d), make([][]float64, d)
	for r := 0; r < reps; r++ {
		fit, err := FitVI(context.Background(), g, v, make([]float64, d), iters, langevin.ChainRNG(uint64(r+1), 0))
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < d; j++ {
			ms[j] = append(ms[j], fit.Mean[j])
			vs[j] = append(vs[j], fit.SD[j]*fit.SD[j])
		}
	}
	for j := 0; j < d; j++ {
		a, b := meanSD(ms[j])
		c, e := meanSD(vs[j])
		m, mse, s2, s2se = append(m, a), append(mse, b), append(s2, c), append(s2se, e)
	}
	return m, mse, s2, s2se
}

// TestVIGaussian checks mean-field VI against its closed-form optimum on
// Gaussian targets N(m, Λ⁻¹): μ = m and σⱼ² = 1/Λⱼⱼ — the marginal variances
// when Λ is diagonal, and the smaller conditional variances when it is dense.
// The tolerance is 4 standard errors over independent replicates plus 1%
// (the O(ρ) bias of averaging iterates of a constant-free but finite step).
// Doubling the entropy gradient (the optimum becomes 2/Λⱼⱼ) fails it.
func TestVIGaussian(t *testing.T) {
	t.Parallel()
	dense := mat.NewSymDense(3, []float64{
		2, 0.6, -0.3,
		0.6, 1, 0.2,
		-0.3, 0.2, 0.5,
	})
	diag := mat.NewSymDense(3, []float64{4, 0, 0, 0, 0.25, 0, 0, 0, 1e-4})
	mu := []float64{1, -2, 0.5}
	v := VI{AverageFrom: 10000}
	for _, c := range []struct {
		name string
		cov  *mat.SymDense
	}{{"diagonal", diag}, {"dense", dense}} {
		var prec mat.SymDense
		var chol mat.Cholesky
		chol.Factorize(c.cov)
		chol.InverseTo(&prec)
		check := func(v VI) (ok bool, report string) {
			m, mse, s2, s2se := viCheck(t, v, mu, c.cov, 6, 20000)
			ok = true
			for j := range mu {
				want := 1 / prec.At(j, j)
				sd := math.Sqrt(c.cov.At(j, j))
				if math.Abs(m[j]-mu[j]) > 4*mse[j]+0.01*sd || math.Abs(s2[j]-want) > 4*s2se[j]+0.01*want {
					ok = false
				}
				report += "\n" + fmtf("  θ%d: μ %.5g ± %.2g (exact %g), σ² %.5g ± %.2g (exact 1/Λⱼⱼ %.5g, marginal %.5g)", j+1, m[j], mse[j], mu[j], s2[j], s2se[j], want, c.cov.At(j, j))
			}
			return ok, report
		}
		ok, rep := check(v)
		t.Logf("%s target:%s", c.name, rep)
		if !ok {
			t.Errorf("%s target: VI misses the mean-field optimum:%s", c.name, rep)
		}
		bad := v
		bad.entropy = 2
		if ok, rep := check(bad); ok {
			t.Errorf("%s target: doubled entropy gradient passes:%s", c.name, rep)
		}
	}
}

// TestVIMinibatch fits VI with minibatches to the means model, whose posterior
// is N(postMean, I/h): the mean-field family contains it, so VI must recover
// it (mean and variance within 4 replicate standard errors plus 2%).
func TestVIMinibatch(t *testing.T) {
	t.Parallel()
	m := newMeans(500, 4, 1, 1, 1, 7)
	post, h := m.postMean(), m.curvature()
	var vs, ms []float64
	for r := 0; r < 4; r++ {
		fit, err := FitVI(context.Background(), m, VI{Batch: sampler.Minibatch{Size: 20}, Draws: 2, AverageFrom: 20000}, make([]float64, 4), 40000, langevin.ChainRNG(uint64(r+1), 3))
		if err != nil {
			t.Fatal(err)
		}
		for j := range post {
			vs = append(vs, fit.SD[j]*fit.SD[j]*h)
			ms = append(ms, (fit.Mean[j]-post[j])*math.Sqrt(h))
		}
	}
	vm, vse := meanSD(vs)
	mm, mse := meanSD(ms)
	t.Logf("σ²·h = %.4f ± %.4f (exact 1); (μ − m)·√h = %.4f ± %.4f (exact 0)", vm, vse, mm, mse)
	if math.Abs(vm-1) > 4*vse+0.02 || math.Abs(mm) > 4*mse+0.02 {
		t.Errorf("minibatch VI: σ²·h = %.4f ± %.4f, (μ − m)·√h = %.4f ± %.4f", vm, vse, mm, mse)
	}
}

func TestVIErrorsAndAllocs(t *testing.T) {
	m := newMeans(30, 2, 1, 1, 1, 8)
	for _, v := range []VI{{Draws: -1}, {InitSD: -1}, {AverageFrom: -2}, {Batch: sampler.Minibatch{Size: 40}}} {
		if _, err := v.NewChain(m, []float64{0, 0}, langevin.ChainRNG(1, 0)); err == nil {
			t.Errorf("%+v: no error", v)
		}
	}
	ch, err := VI{Batch: sampler.Minibatch{Size: 5}, AverageFrom: 1}.NewChain(m, []float64{0, 0}, langevin.ChainRNG(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() { ch.Step() }); a != 0 {
		t.Errorf("VI step: %v allocations", a)
	}
	ch.(langevin.WarmupEnder).EndWarmup()
	if a := testing.AllocsPerRun(200, func() { ch.Step() }); a != 0 {
		t.Errorf("VI draw: %v allocations", a)
	}
}
