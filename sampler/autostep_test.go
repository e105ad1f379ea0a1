package sampler_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func interactionLinear(tb testing.TB) *model.Linear { return testmodel.InteractionLinear(tb) }

// autoRun runs SGLD with the dense Laplace preconditioner at step eta (0:
// the automatic step) with minibatches of 20, the estimator ChooseEstimator
// picks, burn-in and length from the StepChoice (bulk-ESS ≈ 1000 over four
// chains), and returns the trace and the choice.
func autoRun(tb testing.TB, m langevin.Model, mapTheta []float64, eta float64) (*langevin.Trace, *sampler.CVChoice, *sampler.StepChoice) {
	cov, err := approx.LaplaceCov(m, mapTheta)
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

func closeMoments(tr *langevin.Trace, mean, sd []float64) (string, error) {
	return testmodel.CloseMoments(tr, mean, sd)
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
		mp, err := approx.FindMAP(context.Background(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := approx.LaplacePrecond(m, mp)
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
	X, y := testmodel.LogisticData(n, d, seed)
	return &struct {
		X *mat.Dense
		Y []float64
	}{X, y}
}
