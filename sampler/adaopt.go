package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// AdaGrad is the AdaGrad optimiser (Duchi, Hazan & Singer 2011) run as
// ascent on the log posterior, one of the lecture notes' SGD variants
// (Note 15):
//
//	Gₜ = Gₜ₋₁ + ĝ²,  θ ← θ + ηₜ ĝ / (√Gₜ + ϵ),
//
// element-wise, ĝ the minibatch estimate of ∇log p(θ|D) (scaled by N/|B|,
// after clipping). The accumulated G makes the effective step of each
// coordinate decay like 1/√t even at a constant ηₜ.
//
// Per-draw statistics are those of SGD: lp__, stepsize__, grad_norm__,
// clipped__.
type AdaGrad struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
	Eps   float64 // ϵ; 0 means 1e-8
}

// RMSProp is the RMSProp optimiser (Tieleman & Hinton 2012) run as ascent
// on the log posterior (lecture notes' Note 15):
//
//	Vₜ = ρ Vₜ₋₁ + (1 − ρ) ĝ²,  θ ← θ + ηₜ ĝ / (√Vₜ + ϵ),
//
// element-wise: AdaGrad with an exponential moving average in place of the
// sum, so the effective step does not decay. pSGLD (PSGLD) is its sampler.
type RMSProp struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
	Rho   float64 // ρ; 0 means 0.99
	Eps   float64 // ϵ; 0 means 1e-8
}

// StatNames implements langevin.Sampler.
func (s AdaGrad) StatNames() []string { return SGD{}.StatNames() }

// StatNames implements langevin.Sampler.
func (s RMSProp) StatNames() []string { return SGD{}.StatNames() }

// NewChain implements langevin.Sampler.
func (s AdaGrad) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	return newScaledChain(m, theta0, s.Batch, s.Step, s.Clip, rng, 0, s.Eps)
}

// NewChain implements langevin.Sampler.
func (s RMSProp) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	rho := s.Rho
	if rho == 0 {
		rho = 0.99
	}
	if !(rho > 0 && rho < 1) {
		return nil, fmt.Errorf("sampler: RMSProp ρ = %v: expected a number in (0, 1)", s.Rho)
	}
	return newScaledChain(m, theta0, s.Batch, s.Step, s.Clip, rng, rho, s.Eps)
}

// newScaledChain is AdaGrad's chain (rho = 0: G sums ĝ²) or RMSProp's (V
// averages ĝ² with weight rho).
func newScaledChain(m langevin.Model, theta0 []float64, b Minibatch, step schedule.Schedule, clip Clipping, rng *rand.Rand, rho, eps float64) (langevin.Chain, error) {
	if eps == 0 {
		eps = 1e-8
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("sampler: ϵ = %v: expected a positive number", eps)
	}
	g, err := newGradChain(m, theta0, b, step, clip, rng)
	if err != nil {
		return nil, err
	}
	return &scaledChain{gradChain: g, rho: rho, eps: eps, acc: make([]float64, len(theta0))}, nil
}

type scaledChain struct {
	*gradChain
	rho, eps float64
	acc      []float64 // G (AdaGrad) or V (RMSProp)
	norm     float64
}

func (c *scaledChain) Step() error {
	eta := c.gradient()
	var ss float64
	for j, g := range c.grad {
		if c.rho == 0 {
			c.acc[j] += g * g
		} else {
			c.acc[j] = c.rho*c.acc[j] + (1-c.rho)*g*g
		}
		c.theta[j] += eta * g / (math.Sqrt(c.acc[j]) + c.eps)
		ss += g * g
	}
	c.norm = math.Sqrt(ss)
	return nil
}

func (c *scaledChain) Position() []float64 { return c.theta }

func (c *scaledChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2], dst[3] = c.lp, c.eta, c.norm, float64(c.clipped)
}
