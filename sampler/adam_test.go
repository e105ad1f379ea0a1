package sampler_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// TestAdamReachesMAP runs Adam on the Australian logistic regression (d = 15)
// and compares with the L-BFGS MAP: full batch at a constant step, and
// minibatches of 50 with a decaying step a(1+t)^−1.
func TestAdamReachesMAP(t *testing.T) {
	t.Parallel()
	m := australianLogistic(t)
	want, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		s     sampler.Adam
		iters int
		tol   float64
	}{
		{"full batch", sampler.Adam{Step: schedule.Constant(1e-3)}, 20000, 1e-3},
		{"B=50", sampler.Adam{Step: schedule.Polynomial{A: 2, B: 100, Gamma: 1}, Batch: sampler.Minibatch{Size: 50}}, 20000, 0.02},
	} {
		ch, err := tc.s.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < tc.iters; i++ {
			ch.Step()
		}
		var worst float64
		for j, v := range ch.Position() {
			worst = max(worst, math.Abs(v-want[j]))
		}
		if !(worst < tc.tol) {
			t.Errorf("%s: max |θ − MAP| = %.3g, want < %g", tc.name, worst, tc.tol)
		}
		t.Logf("%s: max |θ − MAP| = %.3g", tc.name, worst)
	}
	if _, err := (sampler.Adam{Step: schedule.Constant(1), Beta1: 1}).NewChain(m, make([]float64, m.Dim()), nil); err == nil {
		t.Error("β₁ = 1: no error")
	}
}

func BenchmarkAdamStepLogistic(b *testing.B) {
	m := australianLogistic(b)
	ch, err := sampler.Adam{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10}}.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ch.Step()
	}
}
