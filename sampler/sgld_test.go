package sampler_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// ar1Tolerance returns 5 Monte Carlo standard errors of the mean and of the
// relative variance estimated from n steps of a Gaussian AR(1) chain with
// autocorrelation ρ and stationary variance v.
func ar1Tolerance(n int, rho, v float64) (meanTol, relVarTol float64) {
	nf := float64(n)
	meanTol = 5 * math.Sqrt(v/nf*(1+rho)/(1-rho))
	relVarTol = 5 * math.Sqrt(2/nf*(1+rho*rho)/(1-rho*rho))
	return
}

// sgldCheck runs SGLD with a constant step η on the mean model and compares
// the stationary mean and variance with the exact discretisation-aware
// prediction for the correct algorithm at temperature tau:
//
//	θₜ₊₁ − μ = (1 − ηλ)(θₜ − μ) + η eₜ + √(2ητ) ξₜ
//	⇒ Var = (2ητ + η² Var(e)) / (ηλ(2 − ηλ)),
//
// where e is the minibatch gradient noise. It returns an error describing the
// first mismatch.
func sgldCheck(m langevin.Model, exact *meanModel, s sampler.SGLD, tau float64, n int, seed uint64) error {
	eta := float64(s.Step.(schedule.Constant))
	lam := exact.Curvature()
	noise := 0.0
	if s.Batch.Size > 0 {
		noise = exact.GradNoiseVar(s.Batch.Size)
	}
	mu, _ := exact.Posterior()
	wantVar := (2*eta*tau + eta*eta*noise) / (eta * lam * (2 - eta*lam))
	ch, err := s.NewChain(m, []float64{mu}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return err
	}
	mean, v := moments(ch, 1000, n, 0)
	rho := 1 - eta*lam
	meanTol, varTol := ar1Tolerance(n, rho, wantVar)
	if math.Abs(mean-mu) > meanTol {
		return fmt.Errorf("mean %.6g, want %.6g ± %.2g", mean, mu, meanTol)
	}
	if math.Abs(v/wantVar-1) > varTol {
		return fmt.Errorf("variance %.6g, want %.6g (relative error %.3f > %.3f)", v, wantVar, v/wantVar-1, varTol)
	}
	return nil
}

func TestSGLDStationaryLawMinibatch(t *testing.T) {
	m := newMeanModel(1000, 1)
	eta := 0.05 / m.Curvature() // ηλ = 0.05
	for _, tc := range []struct {
		name  string
		batch int
	}{{"B=10", 10}, {"B=100", 100}, {"full", 0}} {
		s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: tc.batch, Replace: true}}
		if err := sgldCheck(m, m, s, 1, 400000, 3); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// The check above must be able to fail: noise √(ητ) instead of √(2ητ) (the
// same as running at τ = 1/2), and a likelihood gradient scaled by 1 instead
// of N/|B|.
func TestSGLDCheckCatchesSlips(t *testing.T) {
	m := newMeanModel(1000, 1)
	eta := 0.05 / m.Curvature()
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: 10, Replace: true}}
	half := s
	half.Temperature = 0.5
	if err := sgldCheck(m, m, half, 1, 400000, 3); err == nil {
		t.Error("noise √(ητ) passed the check")
	} else {
		t.Logf("noise √(ητ): %v", err)
	}
	// Full batch too, where only the injected noise matters.
	half.Batch.Size = 0
	if err := sgldCheck(m, m, half, 1, 400000, 3); err == nil {
		t.Error("noise √(ητ), full batch, passed the check")
	}
	unscaled := scaledLik{Model: m, f: 10.0 / 1000}
	if err := sgldCheck(unscaled, m, s, 1, 400000, 3); err == nil {
		t.Error("likelihood scaled by 1 instead of N/B passed the check")
	} else {
		t.Logf("scale 1 instead of N/B: %v", err)
	}
}

// On a Gaussian target the stationary sd of SGLD is √τ times that at τ = 1
// (exactly, for a constant step: Var = τ/(λ(1 − ηλ/2))).
func TestSGLDTemperatureScaling(t *testing.T) {
	m := newMeanModel(100, 2)
	eta := 0.05 / m.Curvature()
	sd1 := 0.0
	for _, tau := range []float64{1, 0.1, 0.5, 2} {
		s := sampler.SGLD{Step: schedule.Constant(eta), Temperature: tau}
		if err := sgldCheck(m, m, s, tau, 400000, 5); err != nil {
			t.Errorf("τ = %v: %v", tau, err)
		}
		ch, _ := s.NewChain(m, []float64{0}, rand.New(rand.NewPCG(6, 1)))
		_, v := moments(ch, 1000, 400000, 0)
		sd := math.Sqrt(v)
		if tau == 1 {
			sd1 = sd
			continue
		}
		_, relVarTol := ar1Tolerance(400000, 1-eta*m.Curvature(), 1)
		// sd ratio of two independent estimates: relative sd tolerance is
		// about √2 · relVarTol/2.
		if r := sd / sd1 / math.Sqrt(tau); math.Abs(r-1) > math.Sqrt2*relVarTol/2 {
			t.Errorf("τ = %v: sd/sd(τ=1) = %.4f, want √τ = %.4f", tau, sd/sd1, math.Sqrt(tau))
		}
	}
}

func TestSGLDPreconditionerSameLaw(t *testing.T) {
	// With M = 2 and step η/2 the update is the same in law as M = 1, step η.
	m := newMeanModel(200, 3)
	eta := 0.05 / m.Curvature()
	s := sampler.SGLD{Step: schedule.Constant(eta / 2), Precond: []float64{2}}
	// The check computes the law for step η/2 without M; redo by hand.
	ch, _ := s.NewChain(m, []float64{0}, rand.New(rand.NewPCG(9, 1)))
	mean, v := moments(ch, 1000, 400000, 0)
	mu, _ := m.Posterior()
	lam := m.Curvature()
	want := 2 * eta / (eta * lam * (2 - eta*lam))
	meanTol, varTol := ar1Tolerance(400000, 1-eta*lam, want)
	if math.Abs(mean-mu) > meanTol || math.Abs(v/want-1) > varTol {
		t.Errorf("preconditioned: mean %v var %v, want %v, %v", mean, v, mu, want)
	}
}

func TestSGLDStats(t *testing.T) {
	m := newMeanModel(1000, 1)
	eta := 1e-5
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: 50, Replace: true}, Temperature: 2, NoiseEvery: 1}
	ch, err := s.NewChain(m, []float64{1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	stats := make([]float64, len(s.StatNames()))
	var ng float64
	const n = 4000
	for i := 0; i < n; i++ {
		ch.Step()
		ch.Stats(stats)
		ng += stats[4]
	}
	if stats[2] != eta || stats[3] != 2*eta*2 {
		t.Errorf("stepsize__ %v noise_inj__ %v, want %v, %v", stats[2], stats[3], eta, 4*eta)
	}
	// noise_grad__ estimates η² Var(ĝ) = η² N² σ²/B; its mean over steps is
	// within 5% (each estimate is a sample variance of 50 values).
	want := eta * eta * m.GradNoiseVar(50)
	if math.Abs(ng/n/want-1) > 0.05 {
		t.Errorf("mean noise_grad__ = %.4g, want %.4g", ng/n, want)
	}
}

func TestSGLDErrors(t *testing.T) {
	m := newMeanModel(10, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		s    sampler.SGLD
		want string
	}{
		{sampler.SGLD{Step: schedule.Constant(-1)}, "step size"},
		{sampler.SGLD{Step: schedule.Constant(0)}, "step size"},
		{sampler.SGLD{Step: schedule.Constant(0.1), Batch: sampler.Minibatch{Size: 11}}, "batch size 11"},
		{sampler.SGLD{Step: schedule.Constant(0.1), Temperature: -1}, "temperature"},
		{sampler.SGLD{Step: schedule.Constant(0.1), Precond: []float64{1, 2}}, "preconditioner"},
		{sampler.SGLD{Step: schedule.Constant(0.1), Precond: []float64{0}}, "preconditioner"},
		{sampler.SGLD{}, "schedule"},
	} {
		_, err := tc.s.NewChain(m, []float64{0}, rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", tc.s, err, tc.want)
		}
	}
}

func BenchmarkSGLDStepMeanModel(b *testing.B) {
	m := newMeanModel(1000, 1)
	s := sampler.SGLD{Step: schedule.Polynomial{A: 1e-4, B: 1, Gamma: 0.55}, Batch: sampler.Minibatch{Size: 10}}
	ch, _ := s.NewChain(m, []float64{0}, rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for b.Loop() {
		ch.Step()
	}
}
