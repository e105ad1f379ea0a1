package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// Adam is the Adam optimiser (Kingma & Ba 2015) run as ascent on the log
// posterior, the minibatch optimiser used for MAP starts of neural networks:
//
//	mₜ = β₁ mₜ₋₁ + (1 − β₁) ĝ,   vₜ = β₂ vₜ₋₁ + (1 − β₂) ĝ²,
//	θ ← θ + ηₜ m̂ₜ / (√v̂ₜ + ϵ),  m̂ₜ = mₜ/(1 − β₁ᵗ), v̂ₜ = vₜ/(1 − β₂ᵗ),
//
// element-wise, with ĝ the minibatch estimate of ∇log p(θ|D) (scaled by
// N/|B|, after clipping). Adam is invariant to the scale of ĝ, so ηₜ is
// roughly the distance each coordinate moves per step, whatever N.
//
// Per-draw statistics are those of SGD: lp__, stepsize__, grad_norm__,
// clipped__.
type Adam struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
	Beta1 float64 // 0 means 0.9
	Beta2 float64 // 0 means 0.999
	Eps   float64 // ϵ; 0 means 1e-8
}

// StatNames implements langevin.Sampler.
func (s Adam) StatNames() []string { return SGD{}.StatNames() }

// NewChain implements langevin.Sampler.
func (s Adam) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	b1, b2, eps := s.Beta1, s.Beta2, s.Eps
	if b1 == 0 {
		b1 = 0.9
	}
	if b2 == 0 {
		b2 = 0.999
	}
	if eps == 0 {
		eps = 1e-8
	}
	if !(b1 > 0 && b1 < 1) || !(b2 > 0 && b2 < 1) {
		return nil, fmt.Errorf("sampler: Adam β₁ = %v, β₂ = %v: expected numbers in (0, 1)", s.Beta1, s.Beta2)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("sampler: Adam ϵ = %v: expected a positive number", s.Eps)
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	return &adamChain{gradChain: g, b1: b1, b2: b2, eps: eps, m: make([]float64, d), v: make([]float64, d), p1: 1, p2: 1}, nil
}

type adamChain struct {
	*gradChain
	b1, b2, eps float64
	m, v        []float64
	p1, p2      float64 // β₁ᵗ, β₂ᵗ
	norm        float64
}

func (c *adamChain) Step() error {
	eta := c.gradient()
	c.p1 *= c.b1
	c.p2 *= c.b2
	c1, c2 := 1/(1-c.p1), 1/(1-c.p2)
	var ss float64
	for j, g := range c.grad {
		c.m[j] = c.b1*c.m[j] + (1-c.b1)*g
		c.v[j] = c.b2*c.v[j] + (1-c.b2)*g*g
		c.theta[j] += eta * c.m[j] * c1 / (math.Sqrt(c.v[j]*c2) + c.eps)
		ss += g * g
	}
	c.norm = math.Sqrt(ss)
	return nil
}

func (c *adamChain) Position() []float64 { return c.theta }

func (c *adamChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2], dst[3] = c.lp, c.eta, c.norm, float64(c.clipped)
}
