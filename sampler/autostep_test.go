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
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// interactionLinear is a linear regression on raw, correlated features with
// an interaction: x₁ ~ N(30, 8²), x₂ = 0.6x₁ + N(0, 5²), x₃ = x₁x₂, n = 434,
// y = 2 + 0.5x₁ − 0.3x₂ + 0.01x₃ + N(0, 18²). Unstandardised, its posterior
// correlations are near ±1 and its scales differ by orders of magnitude.
func interactionLinear(tb testing.TB) *model.Linear {
	const n = 434
	rng := rand.New(rand.NewPCG(434, 1))
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x1 := 30 + 8*rng.NormFloat64()
		x2 := 0.6*x1 + 5*rng.NormFloat64()
		X.Set(i, 0, x1)
		X.Set(i, 1, x2)
		X.Set(i, 2, x1*x2)
		y[i] = 2 + 0.5*x1 - 0.3*x2 + 0.01*x1*x2 + 18*rng.NormFloat64()
	}
	m, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// autoRun runs SGLD with the dense Laplace preconditioner at step eta (0:
// the automatic step) with minibatches of 20, the estimator ChooseEstimator
// picks, burn-in and length from the StepChoice (bulk-ESS ≈ 1000 over four
// chains), and returns the trace and the choice.
func autoRun(tb testing.TB, m langevin.Model, mapTheta []float64, eta float64) (*langevin.Trace, *sampler.CVChoice, *sampler.StepChoice) {
	cov, err := sampler.LaplaceCov(m, mapTheta)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	v, mb, err := sampler.ChooseEstimator(m, mapTheta, nil, cov, sampler.Minibatch{Size: 20}, sampler.StepRule{}, rng)
	if err != nil {
		tb.Fatal(err)
	}
	ch := v.Plain
	if mb.CV != nil {
		ch = v.CV
	}
	if eta == 0 {
		eta = ch.Eta
	}
	auto := ch.Eta
	// Length for ESS ≈ 1000 at the automatic step (a larger step mixes faster).
	iters := ch.BurnIn(eta) + int(250*ch.AutocorrSteps(auto))
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: mb, PrecondFull: cov}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: iters, BurnIn: ch.BurnIn(eta), Thin: max(1, iters/2000), Seed: 13,
		Init: langevin.InitAt{Points: [][]float64{mapTheta}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tr, v, ch
}

// closeMoments checks every parameter: mean within 0.1 exact sd, sd within 10%.
func closeMoments(tr *langevin.Trace, mean, sd []float64) (string, error) {
	var out string
	var first error
	for j := 0; j < tr.Dim; j++ {
		var s, ss float64
		n := 0
		for _, c := range tr.Param(j) {
			for _, x := range c {
				s += x
				ss += x * x
				n++
			}
		}
		m := s / float64(n)
		r := math.Sqrt(ss/float64(n)-m*m) / sd[j]
		e := (m - mean[j]) / sd[j]
		ess := diag.ESSBulk(tr.Param(j))
		out += fmt.Sprintf("%s: mean %+.3f sd, sd ratio %.3f, ESS %.0f; ", tr.Names[j], e, r, ess)
		if first == nil && !(math.Abs(e) <= 0.1 && math.Abs(r-1) <= 0.1) {
			first = fmt.Errorf("%s: mean off %.3f sd, sd ratio %.3f", tr.Names[j], e, r)
		}
	}
	return out, first
}

// TestAutoStepLinear: on the correlated linear regression with an interaction
// the automatic step gives every mean within 0.1 exact sd and every sd within
// 10% (ESS ≈ 1000: Monte Carlo errors 0.03 sd and 2%), and a step that breaks
// the stability rule (η·λmax(MH) = 1.2: variance inflated 2.5-fold by the discretisation
// alone, more with the gradient noise) fails
// the same check.
func TestAutoStepLinear(t *testing.T) {
	m := interactionLinear(t)
	exact := m.Posterior()
	tr, v, ch := autoRun(t, m, exact.MAP(), 0)
	t.Logf("%v", v)
	t.Logf("%v", ch)
	sum, err := closeMoments(tr, exact.Mean(), exact.SD())
	t.Log(sum)
	if err != nil {
		t.Errorf("automatic step: %v", err)
	}
	if w := ch.Check(ch.Eta); len(w) != 0 {
		t.Errorf("the automatic step breaks its own rule: %v", w)
	}
	bad := 1.2 / ch.LambdaMaxMH
	if w := ch.Check(bad); len(w) == 0 {
		t.Errorf("step %.3g with η·λmax = 1.2 passes Check", bad)
	}
	tr, _, _ = autoRun(t, m, exact.MAP(), bad)
	sum, err = closeMoments(tr, exact.Mean(), exact.SD())
	t.Log("violated: ", sum)
	if err == nil {
		t.Errorf("a step with η·λmax(MH) = 1.2 passes the moment check: %s", sum)
	}
}

// TestChooseEstimatorScaling: without control variates the noise rule's
// step shrinks like 1/N (λmax(CM) ∝ N²/B · 1/N); with them it does not, so
// they pay at large N, and the measured reduction grows about linearly in N.
func TestChooseEstimatorScaling(t *testing.T) {
	var red []float64
	for _, n := range []int{2000, 20000} {
		ds := logisticData(n, 5, uint64(n))
		m, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mp, err := sampler.FindMAP(context.Background(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := sampler.LaplacePrecond(m, mp)
		if err != nil {
			t.Fatal(err)
		}
		v, mb, err := sampler.ChooseEstimator(m, mp, nil, mat.NewDiagDense(len(pre), pre), sampler.Minibatch{Size: 100}, sampler.StepRule{}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("N = %d: %v\n  plain: %v\n  cv: %v", n, v, v.Plain, v.CV)
		if mb.CV == nil || !v.Pays {
			t.Errorf("N = %d: control variates do not pay: %v", n, v)
		}
		red = append(red, v.Reduction)
	}
	if r := red[1] / red[0]; r < 5 || r > 20 {
		t.Errorf("noise reduction by control variates grows %.3g-fold from N = 2000 to 20000, expected about 10", r)
	}
}

// logisticData draws n rows of d standard normal features with
// P(y = 1) = σ(0.5 + Σⱼ xⱼ/√d).
func logisticData(n, d int, seed uint64) *struct {
	X *mat.Dense
	Y []float64
} {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		eta := 0.5
		for j := 0; j < d; j++ {
			x := rng.NormFloat64()
			X.Set(i, j, x)
			eta += x / math.Sqrt(float64(d))
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return &struct {
		X *mat.Dense
		Y []float64
	}{X, y}
}
