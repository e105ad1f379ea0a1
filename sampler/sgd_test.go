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

func TestSGDReachesMAPOfMeanModel(t *testing.T) {
	m := newMeanModel(1000, 4)
	mu, _ := m.Posterior()
	for _, tc := range []struct {
		name string
		s    sampler.SGD
	}{
		{"GD", sampler.GD(schedule.Constant(0.5 / m.Curvature()))},
		{"SGD B=100", sampler.SGD{Step: schedule.Polynomial{A: 1 / m.Curvature(), B: 1, Gamma: 1}, Batch: sampler.Minibatch{Size: 100}}},
	} {
		ch, err := tc.s.NewChain(m, []float64{-3}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200000; i++ {
			ch.Step()
		}
		if got := ch.Position()[0]; math.Abs(got-mu) > 1e-3*math.Abs(mu) {
			t.Errorf("%s: θ = %.8g, MAP %.8g", tc.name, got, mu)
		}
	}
}

func TestSGDClipping(t *testing.T) {
	m := newMeanModel(100, 4)
	s := sampler.GD(schedule.Constant(1e-3))
	s.Clip = sampler.Clipping{Norm: 1}
	ch, _ := s.NewChain(m, []float64{-30}, rand.New(rand.NewPCG(1, 1)))
	stats := make([]float64, 4)
	for i := 0; i < 10; i++ {
		ch.Step()
	}
	ch.Stats(stats)
	if stats[3] != 10 || stats[2] != 1 {
		t.Errorf("clipped__ = %v, grad_norm__ = %v; want 10 steps clipped to norm 1", stats[3], stats[2])
	}
	if got := ch.Position()[0]; math.Abs(got-(-30+10*1e-3)) > 1e-12 {
		t.Errorf("θ = %v after 10 clipped steps of 1e-3", got)
	}
	v := sampler.GD(schedule.Constant(1e-3))
	v.Clip = sampler.Clipping{Value: 0.5}
	ch, _ = v.NewChain(m, []float64{-30}, rand.New(rand.NewPCG(1, 1)))
	ch.Step()
	ch.Stats(stats)
	if stats[3] != 1 || stats[2] != 0.5 {
		t.Errorf("element-wise: clipped__ = %v, grad_norm__ = %v", stats[3], stats[2])
	}
}

func TestFindMAPMeanModel(t *testing.T) {
	m := newMeanModel(500, 2)
	mu, _ := m.Posterior()
	th, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(th[0]-mu) > 1e-9*math.Abs(mu) {
		t.Errorf("MAP %v, want %v", th[0], mu)
	}
}

func TestInitMAP(t *testing.T) {
	m := newMeanModel(500, 2)
	mu, _ := m.Posterior()
	in := &approx.InitMAP{}
	tr, err := langevin.Run(context.Background(), m, sampler.GD(schedule.Constant(1e-9)), langevin.Options{Chains: 3, Iters: 2, BurnIn: 1, Init: in})
	if err != nil {
		t.Fatal(err)
	}
	for c := range tr.Draws {
		if got := tr.Draws[c][0][0]; math.Abs(got-mu) > 1e-6 {
			t.Errorf("chain %d started at %v, MAP %v", c, got, mu)
		}
	}
	if got := in.MAP(); math.Abs(got[0]-mu) > 1e-9 {
		t.Errorf("cached MAP %v, want %v", got, mu)
	}
	jit := &approx.InitMAP{Jitter: 0.5}
	tr, _ = langevin.Run(context.Background(), m, sampler.GD(schedule.Constant(1e-9)), langevin.Options{Chains: 2, Iters: 2, BurnIn: 1, Init: jit})
	if tr.Draws[0][0][0] == tr.Draws[1][0][0] {
		t.Error("jittered starts are equal")
	}
}
