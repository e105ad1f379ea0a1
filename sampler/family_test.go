package sampler_test

import (
	"context"
	"gonum.org/v1/gonum/mat"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// Every SG sampler anneals τ geometrically from TemperatureStart to
// Temperature over BurnIn iterations: the injected-noise statistic follows
// τₜ = τ₀^(1−t/T) τ^(t/T).
func TestTemperingSchedule(t *testing.T) {
	m := newMeanModel(100, 1)
	const eta, tau0, burn = 1e-4, 20.0, 100
	for _, tc := range []struct {
		s langevin.Sampler
		// noise returns the expected noise_inj__ at temperature τ.
		noise func(tau float64) float64
	}{
		{sampler.SGLD{Step: schedule.Constant(eta), TemperatureStart: tau0, BurnIn: burn}, func(tau float64) float64 { return 2 * eta * tau }},
		{sampler.PSGLD{Step: schedule.Constant(eta), Alpha: 1, V0: []float64{1}, Lambda: 1e-300, TemperatureStart: tau0, BurnIn: burn}, func(tau float64) float64 { return 2 * eta * tau }},
		{sampler.SGHMC{Step: schedule.Constant(eta), Friction: 0.5, TemperatureStart: tau0, BurnIn: burn}, func(tau float64) float64 { return 2 * 0.5 * eta * tau }},
	} {
		ch, err := tc.s.NewChain(m, []float64{1}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		st := make([]float64, len(tc.s.StatNames()))
		for it := 1; it <= 2*burn; it++ {
			ch.Step()
			ch.Stats(st)
			f := math.Min(float64(it)/burn, 1)
			want := tc.noise(math.Pow(tau0, 1-f))
			if math.Abs(st[3]/want-1) > 1e-12 {
				t.Errorf("%T: iteration %d: noise_inj__ %v, want %v", tc.s, it, st[3], want)
				break
			}
		}
	}
	_, err := sampler.SGLD{Step: schedule.Constant(eta), TemperatureStart: 2}.NewChain(m, []float64{0}, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "BurnIn") {
		t.Errorf("annealing without a length: %v", err)
	}
}

// After annealing from τ₀ = 100 over 2000 steps, SGLD's draws have the exact
// stationary law at τ = 1; a chain whose annealing has not finished (BurnIn
// beyond the run) fails the same check.
func TestTemperingReachesTarget(t *testing.T) {
	m := newMeanModel(1000, 1)
	eta := 0.05 / m.Curvature()
	lam := m.Curvature()
	want := (2*eta + eta*eta*m.GradNoiseVar(10)) / (eta * lam * (2 - eta*lam))
	mu, _ := m.Posterior()
	const n = 400000
	meanTol, varTol := ar1Tolerance(n, 1-eta*lam, want)
	for _, burn := range []int{2000, 10 * n} {
		s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: 10, Replace: true}, TemperatureStart: 100, BurnIn: burn}
		ch, err := s.NewChain(m, []float64{0}, rand.New(rand.NewPCG(3, 1)))
		if err != nil {
			t.Fatal(err)
		}
		mean, v := moments(ch, 3000, n, 0)
		ok := math.Abs(mean-mu) <= meanTol && math.Abs(v/want-1) <= varTol
		switch {
		case burn == 2000 && !ok:
			t.Errorf("after annealing: mean %v var %v, want %v, %v", mean, v, mu, want)
		case burn > 2000 && ok:
			t.Error("a chain still annealing passed the τ = 1 check")
		case burn > 2000:
			t.Logf("still annealing: variance %.4g vs %.4g, fails as it should", v, want)
		}
	}
}

// Cyclical schedules: in the exploration phase the samplers take plain
// gradient steps (no injected noise: the full-batch step is deterministic),
// and Run keeps only the sampling-phase draws.
func TestCyclicalExplorationAndKeep(t *testing.T) {
	m := newMeanModel(50, 1)
	cyc := schedule.Cyclical{Eta0: 1e-3, Iters: 100, Cycles: 4, Explore: 0.4} // L = 25, 10 exploring
	for _, s := range []langevin.Sampler{
		sampler.CSGLD(1e-3, 100, 4, 0.4, sampler.Minibatch{}),
		sampler.PSGLD{Step: cyc, Alpha: 1, V0: []float64{1}},
		sampler.CSGHMC(1e-3, 100, 4, 0.4, 0.3, sampler.Minibatch{}),
	} {
		ch, err := s.NewChain(m, []float64{0.5}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		ch2, _ := s.NewChain(m, []float64{0.5}, rand.New(rand.NewPCG(2, 2)))
		k := ch.(langevin.Keeper)
		for it := 1; it <= 100; it++ {
			ch.Step()
			ch2.Step()
			explore := cyc.Exploring(it)
			if k.Keep() == explore {
				t.Errorf("%T: iteration %d: Keep() = %v in exploration phase %v", s, it, k.Keep(), explore)
			}
			// Two chains with different random streams stay identical through
			// the first exploration phase and part ways after it.
			same := ch.Position()[0] == ch2.Position()[0]
			if it <= 10 && !same || it > 10 && same {
				t.Errorf("%T: iteration %d: positions %v and %v", s, it, ch.Position(), ch2.Position())
				break
			}
		}
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{Chains: 1, Iters: 100, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Iters[0]) != 60 || tr.Iters[0][0] != 11 || tr.Iters[0][15] != 36 {
			t.Errorf("%T: kept iterations %v", s, tr.Iters[0])
		}
	}
}

func TestFamilyErrors(t *testing.T) {
	m := newMeanModel(10, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	c := schedule.Constant(0.1)
	for _, tc := range []struct {
		s    langevin.Sampler
		want string
	}{
		{sampler.PSGLD{Step: c, Alpha: 1.5}, "α"},
		{sampler.PSGLD{Step: c, Lambda: -1}, "λ"},
		{sampler.PSGLD{Step: c, V0: []float64{1, 2}}, "V0"},
		{sampler.PSGLD{Step: c, V0: []float64{-1}}, "V0"},
		{sampler.PSGLD{Step: c, Temperature: -1}, "temperature"},
		{sampler.PSGLD{}, "schedule"},
		{sampler.SGHMC{Step: c, Friction: 2}, "friction"},
		{sampler.SGHMC{Step: c, Mass: []float64{0}}, "mass"},
		{sampler.SGHMC{Step: c, Mass: []float64{1, 1}}, "mass"},
		{sampler.SGHMC{Step: c, GradNoise: []float64{-1}}, "gradient-noise"},
		{sampler.SGHMC{Step: c, Resample: -1}, "Resample"},
		{sampler.SGHMC{Step: c, Blocks: []sampler.DenseBlock{{Index: []int{1}, Cov: mat.NewSymDense(1, []float64{1})}}}, "outside"},
		{sampler.SGHMC{Step: c, Blocks: []sampler.DenseBlock{{Index: []int{0}, Cov: mat.NewSymDense(1, []float64{-1})}}}, "positive definite"},
		{sampler.SGHMC{Step: c, Blocks: []sampler.DenseBlock{{Index: []int{0}, Cov: mat.NewSymDense(2, nil)}}}, "size"},
		{sampler.SGHMC{Step: c, Blocks: []sampler.DenseBlock{{Index: []int{0}, Cov: mat.NewSymDense(1, []float64{1})}, {Index: []int{0}, Cov: mat.NewSymDense(1, []float64{1})}}}, "two blocks"},
		{sampler.SGHMC{Step: c, GradNoise: []float64{0}, Blocks: []sampler.DenseBlock{{Index: []int{0}, Cov: mat.NewSymDense(1, []float64{1})}}}, "gradient-noise"},
		{sampler.SGHMC{Step: c, TemperatureStart: -1, BurnIn: 5}, "start temperature"},
		{sampler.SGHMC{Step: c, Batch: sampler.Minibatch{Size: 2, CV: []float64{1, 2}}}, "control variate"},
		{sampler.SGLD{Step: schedule.Cyclical{Eta0: 1, Iters: 10, Cycles: 2, Explore: 1}}, "exploration"},
	} {
		_, err := tc.s.NewChain(m, []float64{0}, rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", tc.s, err, tc.want)
		}
	}
}
