package sampler_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// perObsGradVar returns sⱼ², the population variance over observations of
// ∇ⱼ log p(zᵢ|θ) at theta.
func perObsGradVar(m langevin.Model, theta []float64) []float64 {
	d := m.Dim()
	s, ss := make([]float64, d), make([]float64, d)
	g := make([]float64, d)
	for i := 0; i < m.Len(); i++ {
		clear(g)
		m.LogLik(theta, []int{i}, g)
		for j, v := range g {
			s[j] += v
			ss[j] += v * v
		}
	}
	n := float64(m.Len())
	for j := range s {
		s[j] = ss[j]/n - (s[j]/n)*(s[j]/n)
	}
	return s
}

func runFamily(t *testing.T, m langevin.Model, s langevin.Sampler, iters int, init []float64, seed uint64) *langevin.Trace {
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: iters / 2000, Seed: seed,
		Init: langevin.InitAt{Points: [][]float64{init}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// pSGLD (B = 100, α = 0.99, no Γ) on the conjugate linear regression matches
// the exact posterior: means within 0.2 sd, sds within 10%, bulk-ESS ≥ 400.
//
// Step: near the mode V ≈ sⱼ²/B, so G ≈ √B/sⱼ and the preconditioned
// curvature is Gⱼ/σⱼ². The gradient noise adds about (N/2B)·ηGⱼ/σⱼ² to the
// relative variance (as for SGLD), so η is set to make max ηGⱼ/σⱼ² = 1e-3
// (5% at N/B = 100). Injected noise √(ηG) instead of √(2ηG) (τ = 1/2) fails.
func TestPSGLDLinearRegressionExactPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := lectureLinear(t)
	exact := m.Posterior()
	mean, sd := exact.Mean(), exact.SD()
	const b = 100
	s2 := perObsGradVar(m, exact.MAP())
	var worst float64
	for j := range s2 {
		worst = math.Max(worst, math.Sqrt(b/s2[j])/(sd[j]*sd[j]))
	}
	eta := 1e-3 / worst
	for _, tau := range []float64{1, 0.5} {
		s := sampler.PSGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Temperature: tau}
		tr := runFamily(t, m, s, 800000, exact.MAP(), 21)
		err := compare(tr, mean, sd, 400)
		switch {
		case tau == 1 && err != nil:
			t.Error(err)
		case tau == 1:
			t.Logf("η = %.3g: matches the exact posterior: %s", eta, agreement(tr, mean, sd))
		case err == nil:
			t.Error("pSGLD with noise √(ηG) passed")
		default:
			t.Logf("noise √(ηG) fails as it should: %v", err)
		}
	}
}

// SGHMC (B = 100, mass M = the inverse of the Laplace preconditioner, so that
// the posterior has unit scale in M's units, friction α = 0.5) matches the
// exact posterior. The gradient noise adds about ηN/(2αB) to the relative
// variance, so η = 0.1·αB/N (5%). Injected noise with the friction/noise
// balance off by 2 (τ = 2) fails.
func TestSGHMCLinearRegressionExactPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := lectureLinear(t)
	exact := m.Posterior()
	mean, sd := exact.Mean(), exact.SD()
	const b, alpha = 100, 0.5
	pre, err := approx.LaplacePrecond(m, exact.MAP())
	if err != nil {
		t.Fatal(err)
	}
	mass := make([]float64, len(pre))
	for j, p := range pre {
		mass[j] = 1 / p
	}
	eta := 0.1 * alpha * b / float64(m.Len())
	for _, tau := range []float64{1, 2} {
		s := sampler.SGHMC{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Friction: alpha, Mass: mass, Temperature: tau}
		tr := runFamily(t, m, s, 500000, exact.MAP(), 22)
		err := compare(tr, mean, sd, 400)
		switch {
		case tau == 1 && err != nil:
			t.Error(err)
		case tau == 1:
			t.Logf("η = %.3g, α = %v: matches the exact posterior: %s", eta, alpha, agreement(tr, mean, sd))
		case err == nil:
			t.Error("SGHMC with noise 2·2αη passed")
		default:
			t.Logf("noise 2·2αη fails as it should: %v", err)
		}
	}
}

// agreement summarises a trace against the exact posterior: the largest
// |mean error|/sd, the largest |sd ratio − 1| and the smallest bulk-ESS.
func agreement(tr *langevin.Trace, mean, sd []float64) string {
	var me, se float64
	ess := math.Inf(1)
	tm := tr.Mean(nil)
	for j := 0; j < tr.Dim; j++ {
		var ss float64
		for _, c := range tr.Param(j) {
			for _, x := range c {
				ss += (x - tm[j]) * (x - tm[j])
			}
		}
		me = math.Max(me, math.Abs(tm[j]-mean[j])/sd[j])
		se = math.Max(se, math.Abs(math.Sqrt(ss/float64(tr.NumDraws()))/sd[j]-1))
		ess = math.Min(ess, diag.ESSBulk(tr.Param(j)))
	}
	return fmt.Sprintf("max |mean − exact|/sd %.3f, max |sd/exact − 1| %.3f, min bulk-ESS %.0f", me, se, ess)
}
