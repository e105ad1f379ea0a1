package sampler_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// TestDefaultStepRules pins the default-step rules to their formulas (the
// numbers the command has always used).
func TestDefaultStepRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"SGLD, Laplace M", sampler.StepNoiseFraction(552, 10, 1, true), 0.1 * 10 / 552.0},
		{"SGLD, no M", sampler.StepNoiseFraction(552, 10, 1, false), 0.1 * 10 / 552.0 / 552},
		{"SGLD, full batch", sampler.StepNoiseFraction(552, 0, 1, true), 0.1},
		{"SGHMC α = 0.1", sampler.StepNoiseFraction(1000, 20, 0.1, true), 0.1 * 0.1 * 20 / 1000.0},
		{"pSGLD", sampler.StepPSGLDRelax(552, 10), math.Sqrt(10) / (552.0 * 552)},
		{"pSGLD, full batch", sampler.StepPSGLDRelax(100, 0), 10 / 1e4},
		{"GD", sampler.StepUnitMeanLoss(552), 1 / 552.0},
	} {
		if math.Abs(c.got-c.want) > 1e-15*c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	// IASG: 0.05/λmax of the precision.
	prec := mat.NewSymDense(2, []float64{3, 1, 1, 3}) // eigenvalues 2 and 4
	eta, err := sampler.StepIASG(prec)
	if err != nil || math.Abs(eta-0.05/4) > 1e-15 {
		t.Errorf("StepIASG = %v, %v; want %v", eta, err, 0.05/4)
	}
	ia, err := sampler.MandtIASG(prec, sampler.Minibatch{Size: 5}, 7)
	if err != nil || ia.Eta != eta || ia.Window != 7 || ia.Batch.Size != 5 {
		t.Errorf("MandtIASG = %+v, %v", ia, err)
	}
	// Mandt's recipes use the optimal settings of their Theorem 1 and
	// Corollary 3.
	V := mat.NewSymDense(2, []float64{2, 0.5, 0.5, 1})
	mb := sampler.Minibatch{Size: 10}
	if c := sampler.MandtConstSGD(V, 100, mb); c.Eta != sampler.OptimalStep(V, 100, 10) || c.Precond != nil {
		t.Errorf("MandtConstSGD = %+v", c)
	}
	if c := sampler.MandtConstSGDDiag(V, 100, mb); c.Eta != 1 || c.Precond[1] != 2*10/(100*100*1.0) {
		t.Errorf("MandtConstSGDDiag = %+v", c)
	}
	if c := sampler.MandtConstSGDMomentum(V, 100, mb, 0.1); c.Eta != 0.1*sampler.OptimalStep(V, 100, 10) || c.Momentum != 0.1 {
		t.Errorf("MandtConstSGDMomentum = %+v", c)
	}
	if c, err := sampler.MandtConstSGDFull(V, 100, mb); err != nil || c.Eta != 1 || c.PrecondFull == nil {
		t.Errorf("MandtConstSGDFull = %+v, %v", c, err)
	}
	if c := sampler.MandtConstSGDSqrt(V, 100, mb); math.Abs(c.Precond[0]-1/math.Sqrt2) > 1e-15 {
		t.Errorf("MandtConstSGDSqrt = %+v", c)
	}
}

// TestFitAdam: the Adam start reaches the L-BFGS MAP of the Australian
// logistic regression, leaves its start alone, and stops on a cancelled
// context.
func TestFitAdam(t *testing.T) {
	t.Parallel()
	m := australianLogistic(t)
	want, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := make([]float64, m.Dim())
	got, err := sampler.FitAdam(context.Background(), m, start, sampler.AdamFit{Iters: 20000, Batch: m.Len(), LR: 1e-3}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for j, v := range got {
		worst = max(worst, math.Abs(v-want[j]))
		if start[j] != 0 {
			t.Fatal("FitAdam modified its start")
		}
	}
	if !(worst < 1e-3) {
		t.Errorf("max |θ − MAP| = %.3g, want < 1e-3", worst)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sampler.FitAdam(ctx, m, start, sampler.AdamFit{Iters: 1000, Batch: 10, LR: 1e-3}, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
