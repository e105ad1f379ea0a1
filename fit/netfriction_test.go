package fit

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// TestNetFriction: the rule keeps α = 2√η while the minibatch noise is a
// small share of SGHMC's injected noise, raises it to 10ρ when not, and
// stops at 1 (SGLD).
func TestNetFriction(t *testing.T) {
	for _, c := range []struct{ eta, rho, want float64 }{
		{1e-4, 1e-4, 0.02},      // UCI-like: 2√η
		{9.5e-5, 0.0191, 0.191}, // the full Fashion-MNIST: ρ/(2√η) = 0.98
		{1e-3, 0.5, 1},          // SGLD at most
	} {
		a, why := netFriction(c.eta, c.rho)
		if math.Abs(a-c.want) > 1e-12*c.want {
			t.Errorf("η %g, ρ %g: α %v, want %v", c.eta, c.rho, a, c.want)
		}
		if raised := c.want > 2*math.Sqrt(c.eta)*(1+1e-12); raised != strings.Contains(why, "raised") {
			t.Errorf("η %g, ρ %g: %q", c.eta, c.rho, why)
		}
	}
}

// TestNetFrictionTemperature: SGHMC at the friction of the rule samples
// the exact posterior of the lecture notes' conjugate linear regression
// (10,000 rows, y on x with an intercept, σ² unknown: 3 parameters) with
// minibatches of 100 at a step where the minibatch noise is 10% of SGLD's
// injected noise (means within 0.2 sd, sds within 10%); at the critical
// friction 2√η the same run is hot (temperature about 1 + ρ/α ≈ 2.1; the
// intercept's sd 20% too wide) and the comparison fails.
func TestNetFrictionTemperature(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical test, 4 s: skipped with -short")
	}
	d := data.CorrelatedNormal(10000, 0.9, 42)
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{V: 100, Phi: 1, Psi: 1})
	if err != nil {
		t.Fatal(err)
	}
	exact := m.Posterior()
	mode := exact.MAP()
	pre, err := approx.LaplacePrecond(m, mode)
	if err != nil {
		t.Fatal(err)
	}
	const b = 100
	n, dim := m.Len(), m.Dim()
	// ρ = η·tr(MCM)/(2 tr M), C = N²/B (1 − B/N) var_i ∇log p(zᵢ|θ̂): the
	// plan's ratio.
	sum, sum2 := make([]float64, dim), make([]float64, dim)
	g := make([]float64, dim)
	for i := 0; i < n; i++ {
		clear(g)
		m.LogLik(mode, []int{i}, g)
		for j, v := range g {
			sum[j] += v
			sum2[j] += v * v
		}
	}
	var num, den float64
	for j := range sum {
		v := sum2[j]/float64(n) - (sum[j]/float64(n))*(sum[j]/float64(n))
		num += pre[j] * pre[j] * float64(n) * float64(n) / b * (1 - float64(b)/float64(n)) * v
		den += pre[j]
	}
	eta := 0.1 / (num / (2 * den)) // ρ = 0.1
	rho := eta * num / (2 * den)
	alpha, why := netFriction(eta, rho)
	t.Logf("η %.3g: %s", eta, why)
	run := func(alpha float64) error {
		s := sampler.SGHMC{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Precond: pre, Friction: alpha}
		iters := int(400 * alpha / eta)
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
			Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: max(1, iters/2000), Seed: 3,
			Init: langevin.InitAt{Points: [][]float64{mode}},
		})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := testmodel.CompareMoments(tr, exact.Mean(), exact.SD(), 400)
		t.Logf("α = %.3g: %s %v", alpha, sum, err)
		return err
	}
	if err := run(alpha); err != nil {
		t.Errorf("the rule's friction α = %.3g: %v", alpha, err)
	}
	if crit := 2 * math.Sqrt(eta); run(crit) == nil {
		t.Errorf("the critical friction α = %.3g (ρ/α = %.2f) passed: the test cannot see a hot chain", crit, rho/crit)
	}
}
