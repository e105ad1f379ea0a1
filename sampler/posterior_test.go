package sampler_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// lectureLinear is the lecture notes' conjugate example: n = 10,000 pairs from
// a bivariate normal with unit variances and correlation 0.9, y on x with an
// intercept, μ = 0, V = 100·I, φ = ψ = 1.
func lectureLinear(tb testing.TB) *model.Linear {
	d := data.CorrelatedNormal(10000, 0.9, 42)
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{V: 100, Phi: 1, Psi: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// compare is testmodel.CompareMoments without the summary.
func compare(tr *langevin.Trace, mean, sd []float64, minESS float64) error {
	_, err := testmodel.CompareMoments(tr, mean, sd, minESS)
	return err
}

// linearRun runs 4 chains of SGLD with batch b on the lecture example, with
// the Laplace diagonal preconditioner and the constant step η = 0.1·B/N, at
// which the preconditioned gradient noise is about ηN/(2B) = 5% of the
// injected noise. The preconditioned posterior has unit scale, so the
// autocorrelation time is about 2/η steps; iters gives bulk-ESS near 1000.
func linearRun(tb testing.TB, m langevin.Model, exact *model.LinearPosterior, b int, tau float64) *langevin.Trace {
	pre, err := approx.LaplacePrecond(m, exact.MAP())
	if err != nil {
		tb.Fatal(err)
	}
	eta := 0.1 * float64(b) / float64(m.Len())
	iters := int(500 / eta)
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Precond: pre, Temperature: tau}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: iters / 2000, Seed: uint64(b),
		Init: langevin.InitAt{Points: [][]float64{exact.MAP()}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// SGLD on the conjugate linear regression recovers the exact posterior for
// batch sizes 10, 100 and 1000: means within 0.2 sd, sds within 10%, with
// bulk-ESS ≥ 400.
func TestSGLDLinearRegressionExactPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := lectureLinear(t)
	exact := m.Posterior()
	mean, sd := exact.Mean(), exact.SD()
	for _, b := range []int{10, 100, 1000} {
		t.Run(fmt.Sprintf("B=%d", b), func(t *testing.T) {
			tr := linearRun(t, m, exact, b, 1)
			if err := compare(tr, mean, sd, 400); err != nil {
				t.Error(err)
			}
		})
	}
}

// The same test fails when the injected noise is √(ητ) instead of √(2ητ)
// (which is SGLD at τ = 1/2), and when the likelihood gradient is scaled by 1
// instead of N/B.
func TestSGLDLinearRegressionCatchesSlips(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := lectureLinear(t)
	exact := m.Posterior()
	mean, sd := exact.Mean(), exact.SD()
	for _, b := range []int{10, 1000} {
		tr := linearRun(t, m, exact, b, 0.5)
		if err := compare(tr, mean, sd, 400); err == nil {
			t.Errorf("B=%d: noise √(ητ) passed", b)
		} else {
			t.Logf("B=%d, noise √(ητ): %v", b, err)
		}
	}
	b := 100
	unscaled := scaledLik{Model: m, f: float64(b) / float64(m.Len())}
	tr := linearRun(t, unscaled, exact, b, 1)
	if err := compare(tr, mean, sd, 400); err == nil {
		t.Error("likelihood scaled by 1 instead of N/B passed")
	} else {
		t.Logf("scale 1 instead of N/B: %v", err)
	}
}

// SGD with a decaying schedule reaches the closed-form MAP of the linear model
// within 1e-3 relative, and the MLE under a flat prior.
func TestSGDLinearRegressionMAPAndMLE(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	d := data.CorrelatedNormal(10000, 0.9, 42)
	for _, flat := range []bool{false, true} {
		m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{V: 100, Phi: 1, Psi: 1, Flat: flat})
		if err != nil {
			t.Fatal(err)
		}
		exact := m.Posterior()
		want := exact.MAP()
		if flat {
			want = exact.MLE()
		}
		// The step scale comes from the Laplace preconditioner: a = ½ min_j M_jj
		// ≈ 1/(2λ_max). With ηₜ = a(10 + t)^(−0.6) the slowest coordinate
		// (log σ², λ ≈ N/2) contracts by exp(−Σηₜλ) ≈ e^(−40) over 300,000
		// steps, and the final minibatch noise of the iterate is about 1e-5.
		pre, err := approx.LaplacePrecond(m, want)
		if err != nil {
			t.Fatal(err)
		}
		a := math.Inf(1)
		for _, p := range pre {
			a = math.Min(a, p/2)
		}
		s := sampler.SGD{Step: schedule.Polynomial{A: a, B: 10, Gamma: 0.6}, Batch: sampler.Minibatch{Size: 100}}
		ch, err := s.NewChain(m, []float64{0, 0, 0}, langevin.ChainRNG(1, 0))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 300000; i++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
		}
		// Relative error of the vector: the intercept is near 0.
		got := ch.Position()
		var num, den float64
		for j := range got {
			num += (got[j] - want[j]) * (got[j] - want[j])
			den += want[j] * want[j]
		}
		if rel := math.Sqrt(num / den); !(rel < 1e-3) {
			t.Errorf("flat=%v: SGD ended at %.6g, closed form %.6g: relative error %.2g", flat, got, want, rel)
		} else {
			t.Logf("flat=%v: relative error %.2g", flat, rel)
		}
	}
}

// SGLD (batch 10) on the Australian logistic regression agrees with a long
// full-batch small-step Langevin run, within 0.2 reference sd on every mean.
func TestSGLDLogisticAgreesWithFullBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := australianLogistic(t)
	mapTheta, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := approx.LaplacePrecond(m, mapTheta)
	if err != nil {
		t.Fatal(err)
	}
	init := langevin.InitAt{Points: [][]float64{mapTheta}}
	run := func(s sampler.SGLD, iters int, seed uint64) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
			Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: iters / 2000, Seed: seed, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	// Reference: full gradient, η = 0.05 in preconditioned units (bias of the
	// variance about ηλ/2 ≈ 2.5%, of the means far less), autocorrelation time
	// ≈ 40 steps, so bulk-ESS ≈ 2000 over 4 × 20,000 steps.
	ref := run(sampler.SGLD{Step: schedule.Constant(0.05), Precond: pre}, 20000, 7)
	eta := 0.1 * 10 / float64(m.Len())
	sg := run(sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: 10}, Precond: pre}, int(500/eta), 8)
	refMean := ref.Mean(nil)
	for j := 0; j < m.Dim(); j++ {
		var sd float64
		for _, c := range ref.Param(j) {
			for _, x := range c {
				sd += (x - refMean[j]) * (x - refMean[j])
			}
		}
		sd = math.Sqrt(sd / float64(ref.NumDraws()))
		got := sg.Mean(nil)[j]
		if e := math.Abs(got-refMean[j]) / sd; !(e < 0.2) {
			t.Errorf("%s: SGLD mean %.4f, full-batch reference %.4f (sd %.4f): %.2f sd apart", m.ParamNames()[j], got, refMean[j], sd, e)
		}
	}
}
