package sampler_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// AdaGrad and RMSProp (lecture notes' Note 15) reach the MAP of the
// 15-parameter Australian logistic regression from zero, on full data and
// on minibatches of 50; a tenth of the steps does not (the check can fail).
func TestAdaGradRMSPropReachMAP(t *testing.T) {
	t.Parallel()
	m := australianLogistic(t)
	want, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	dist := func(s langevin.Sampler, iters int) float64 {
		ch, err := s.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < iters; i++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var worst float64
		for j, v := range ch.Position() {
			worst = max(worst, math.Abs(v-want[j]))
		}
		return worst
	}
	for _, tc := range []struct {
		name  string
		s     langevin.Sampler
		iters int
		tol   float64
	}{
		{"AdaGrad, full batch", sampler.AdaGrad{Step: schedule.Constant(0.1)}, 20000, 1e-3},
		{"RMSProp, full batch", sampler.RMSProp{Step: schedule.Constant(1e-3)}, 20000, 1e-3},
		{"AdaGrad, B = 50", sampler.AdaGrad{Step: schedule.Constant(0.1), Batch: sampler.Minibatch{Size: 50}}, 20000, 0.05},
		{"RMSProp, B = 50", sampler.RMSProp{Step: schedule.Polynomial{A: 2, B: 100, Gamma: 1}, Batch: sampler.Minibatch{Size: 50}}, 20000, 0.05},
	} {
		d := dist(tc.s, tc.iters)
		t.Logf("%s: max |θ − MAP| = %.3g", tc.name, d)
		if !(d < tc.tol) {
			t.Errorf("%s: max |θ − MAP| = %.3g, want < %g", tc.name, d, tc.tol)
		}
		if short := dist(tc.s, tc.iters/100); short < tc.tol {
			t.Errorf("%s: %d steps reached the MAP too (%.3g): the check cannot fail", tc.name, tc.iters/100, short)
		}
	}
	if _, err := (sampler.RMSProp{Step: schedule.Constant(1), Rho: 1.5}).NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("RMSProp ρ = 1.5: no error")
	}
}
