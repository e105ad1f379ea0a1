package fit_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// ksdSetup is a logistic regression (N = 20,000, 5 features), its MAP, the
// Laplace covariance, and the automatic step with control variates.
func ksdSetup(t *testing.T) (*model.Logistic, []float64, *mat.SymDense, *sampler.StepChoice, sampler.Minibatch) {
	dsX, dsY := testmodel.LogisticData(20000, 5, 7)
	m, err := model.NewLogistic(dsX, dsY, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mp, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	cov, err := approx.LaplaceCov(m, mp)
	if err != nil {
		t.Fatal(err)
	}
	v, mb, err := sampler.ChooseEstimator(m, mp, nil, cov, sampler.Minibatch{Size: 100}, sampler.StepRule{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if mb.CV == nil {
		t.Fatalf("control variates do not pay at N = 20,000: %v", v)
	}
	return m, mp, cov, v.CV, mb
}

func pilot(m langevin.Model, mp []float64, cov *mat.SymDense, mb sampler.Minibatch, eta float64, iters int) (*langevin.Trace, error) {
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: mb, PrecondFull: cov}
	return langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 2, Iters: iters, BurnIn: iters / 5, Thin: max(1, iters/1000), Seed: 3,
		Init: langevin.InitAt{Points: [][]float64{mp}},
	})
}

// TraceKSD: the automatic step's draws are as close to the posterior as
// Laplace draws; a step with η·λmax(MH) = 1.5 is flagged clearly worse.
func TestTraceKSD(t *testing.T) {
	m, mp, cov, ch, mb := ksdSetup(t)
	for _, tc := range []struct {
		eta   float64
		worse bool
	}{{ch.Eta, false}, {1.5 / ch.LambdaMaxMH, true}} {
		iters := ch.BurnIn(ch.Eta) + int(300*ch.AutocorrSteps(ch.Eta))
		tr, err := pilot(m, mp, cov, mb, tc.eta, iters)
		if err != nil {
			t.Fatal(err)
		}
		k, err := fit.TraceKSD(m, tr, mp, cov, fit.KSDOptions{Draws: 300, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("η = %.3g (η·λmax = %.2f): %v", tc.eta, ch.EtaLambda(tc.eta), k)
		if k.Worse != tc.worse {
			t.Errorf("η = %.3g: %v, want Worse = %v", tc.eta, k, tc.worse)
		}
	}
}

// Scores from a batch through the control variate are close to full-data
// scores near the MAP; a fixed batch without it would not be.
func TestScoresBatch(t *testing.T) {
	m, mp, cov, _, _ := ksdSetup(t)
	pts, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: schedule.Constant(0.05), PrecondFull: cov},
		langevin.Options{Chains: 1, Iters: 200, Thin: 10, Seed: 1, Init: langevin.InitAt{Points: [][]float64{mp}}})
	if err != nil {
		t.Fatal(err)
	}
	rows := pts.Draws[0]
	full, err := fit.Scores(m, rows, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	est, err := fit.Scores(m, rows, mp, 2000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// Compare in standardised units: score·sd.
	var worst float64
	for i := range rows {
		for j := range full[i] {
			sd := math.Sqrt(cov.At(j, j))
			worst = math.Max(worst, math.Abs(full[i][j]-est[i][j])*sd)
		}
	}
	t.Logf("largest standardised score error with a batch of 2000 of 20000: %.3g", worst)
	if worst > 0.3 {
		t.Errorf("control-variate scores off by %.3g in standardised units", worst)
	}
	// Scores are computed in blocks of points in parallel: the same bits
	// whatever GOMAXPROCS.
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		f, err1 := fit.Scores(m, rows, nil, 0, nil)
		e, err2 := fit.Scores(m, rows, mp, 2000, rand.New(rand.NewPCG(1, 2)))
		runtime.GOMAXPROCS(old)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range rows {
			if !slices.Equal(f[i], full[i]) || !slices.Equal(e[i], est[i]) {
				t.Fatalf("GOMAXPROCS %d: the scores of point %d differ", procs, i)
			}
		}
	}
}

// SelectStepKSD prefers the automatic step to one 15 times larger (biased)
// and one 30 times smaller (which does not explore in the pilot's budget).
func TestSelectStepKSD(t *testing.T) {
	m, mp, cov, ch, mb := ksdSetup(t)
	cands := []float64{ch.Eta / 30, ch.Eta, 15 * ch.Eta}
	iters := int(100 * ch.AutocorrSteps(ch.Eta))
	best, res, err := fit.SelectStepKSD(context.Background(), m, cands, mp,
		func(ctx context.Context, eta float64) (*langevin.Trace, error) {
			return pilot(m, mp, cov, mb, eta, iters)
		},
		fit.KSDOptions{Draws: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		t.Logf("η = %.3g: KSD %.3g (err %v)", r.Eta, r.KSD, r.Err)
	}
	if best != ch.Eta {
		t.Errorf("KSD chose η = %.3g, want the automatic %.3g", best, ch.Eta)
	}
}
