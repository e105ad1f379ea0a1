package fit_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
)

// Above DenseCurvatureMax the plan forms no d×d matrix (the wide file of
// 20,001 parameters peaked at 4.6 GB in the dense Hessian and Laplace
// covariance): its preconditioner is diagonal, λmax and λmin of MH come
// from Hessian-vector products, and they match the dense eigenvalues of
// M^½HM^½; forced to SGLD on the correlated interaction regression (4
// parameters, scales orders of magnitude apart) it recovers the exact
// posterior (means within 0.1 sd, sds within 10%) with no setting by hand.
func TestDiagPlan(t *testing.T) {
	m := testmodel.InteractionLinear(t)
	d := m.Dim()
	ctx := context.Background()
	if fit.DiagPlanned(m, nil) {
		t.Fatalf("d = %d: diagonal plan below DenseCurvatureMax", d)
	}
	opt := fit.PlanOptions{Kind: "sgld", Batch: 20, DenseCurvatureMax: 2, Seed: 3}
	if !fit.DiagPlanned(m, &opt) {
		t.Fatalf("d = %d > 2: not the diagonal plan", d)
	}
	p, err := fit.NewPlan(ctx, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", p)
	if p.NegHess != nil || p.Cov != nil || p.Dense || len(p.Precond) != d {
		t.Fatalf("the plan holds a dense curvature (NegHess %v, Cov %v, dense %v) or no diagonal (%d values)", p.NegHess != nil, p.Cov != nil, p.Dense, len(p.Precond))
	}
	if !strings.Contains(p.PrecondWhy, "diagonal") || !strings.Contains(p.PrecondWhy, "> 2") {
		t.Errorf("preconditioner line %q does not say diagonal and why", p.PrecondWhy)
	}
	// The dense truth: eigenvalues of M^½HM^½, H by central differences.
	h := make([]float64, d*d)
	langevin.HessianFD(m, p.MAP, h)
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2*math.Sqrt(p.Precond[i]*p.Precond[j]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := eig.Values(nil)
	lmax, lmin := ev[d-1], ev[0]
	if r := p.Step.LambdaMaxMH / lmax; r < 0.95 || r > 1.001 {
		t.Errorf("λmax(MH) = %.4g from Hessian-vector products, %.4g dense (ratio %.3f)", p.Step.LambdaMaxMH, lmax, r)
	}
	if r := p.Step.LambdaMinMH / lmin; r < 0.999 || r > 1.05 {
		t.Errorf("λmin(MH) = %.4g from Hessian-vector products, %.4g dense (ratio %.3f)", p.Step.LambdaMinMH, lmin, r)
	}
	if testing.Short() {
		return // the run below: 40 s of CPU
	}
	var why string
	tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{
		Chains: 4, Iters: 10_000_000, BurnIn: p.BurnIn, Seed: 5, Init: p.Init(),
		Until:      fit.UntilESS(d, 1000, time.Now(), 0, &why),
		CheckEvery: p.CheckEvery(), MaxKeep: 4000,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped: %s", why)
	exact := m.Posterior()
	sum, err := testmodel.CloseMoments(tr, exact.Mean(), exact.SD())
	t.Log(sum)
	if err != nil {
		t.Error(err)
	}
}

// PriorCurvatureDiag is exact for a prior independent across coordinates
// (a logistic regression's normal prior), against central differences
// coordinate by coordinate.
func TestPriorCurvatureDiag(t *testing.T) {
	X := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 0, 1, 0, 1, 2, 0, 1, 1})
	m, err := model.NewLogistic(X, []float64{1, 0, 1}, model.LogisticOptions{PriorScale: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -1, 2, 0.5, -0.2}
	got := make([]float64, m.Dim())
	approx.PriorCurvatureDiag(m, theta, got, langevin.ChainRNG(1, 1))
	th := append([]float64(nil), theta...)
	gp, gm := make([]float64, m.Dim()), make([]float64, m.Dim())
	for j := range theta {
		clear(gp)
		clear(gm)
		th[j] = theta[j] + 1e-4
		m.LogPrior(th, gp)
		th[j] = theta[j] - 1e-4
		m.LogPrior(th, gm)
		th[j] = theta[j]
		want := math.Max(-(gp[j]-gm[j])/2e-4, 0)
		if math.Abs(got[j]-want) > 1e-6*math.Max(1, want) {
			t.Errorf("prior curvature %d: %.8g, want %.8g", j, got[j], want)
		}
	}
}
