package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// Momentum is plain (heavy-ball) momentum SGD (Polyak 1964) run as ascent on
// the log posterior, the first of the lecture notes' SGD variants (Note 15):
//
//	vₜ = β vₜ₋₁ + ηₜ ĝ(θₜ₋₁),   θₜ = θₜ₋₁ + vₜ,   v₀ = 0,
//
// with ĝ the minibatch estimate of ∇log p(θ|D) (scaled by N/|B|, after
// clipping) and β ∈ [0, 1) the momentum. β = 0 is SGD. On a quadratic log
// posterior with precision Λ and full gradients the error eₜ = θₜ − θ̂ obeys
// eₜ₊₁ = ((1 + β)I − ηΛ)eₜ − βeₜ₋₁, stable for 0 < ηλ < 2(1 + β) at every
// eigenvalue λ of Λ; with η = 4/(√λmax + √λmin)² and
// β = ((√κ − 1)/(√κ + 1))², κ = λmax/λmin, it contracts by (√κ − 1)/(√κ + 1)
// per step where gradient descent's best is (κ − 1)/(κ + 1).
//
// Unlike [ConstSGD] with Momentum (Mandt et al.'s sampler, friction μ = 1 − β
// at a step tuned for a stationary distribution), this is an optimiser: use
// a decaying schedule for convergence to the MAP on minibatches.
//
// Per-draw statistics are those of SGD: lp__, stepsize__, grad_norm__,
// clipped__.
type Momentum struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
	Beta  float64 // β ∈ (0, 1); 0 means 0.9 (use SGD for β = 0)
}

// StatNames implements langevin.Sampler.
func (s Momentum) StatNames() []string { return SGD{}.StatNames() }

// NewChain implements langevin.Sampler.
func (s Momentum) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	beta := s.Beta
	if beta == 0 {
		beta = 0.9
	}
	if !(beta >= 0 && beta < 1) {
		return nil, fmt.Errorf("sampler: momentum β = %v: expected 0 < β < 1", s.Beta)
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	return &momentumChain{gradChain: g, beta: beta, v: make([]float64, len(theta0))}, nil
}

type momentumChain struct {
	*gradChain
	beta float64
	v    []float64
	norm float64
}

func (c *momentumChain) Step() error {
	eta := c.gradient()
	var ss float64
	for j, g := range c.grad {
		c.v[j] = c.beta*c.v[j] + eta*g
		c.theta[j] += c.v[j]
		ss += g * g
	}
	c.norm = math.Sqrt(ss)
	return diverged("momentum SGD", c.t, c.theta, "lower the step")
}

func (c *momentumChain) Position() []float64 { return c.theta }

func (c *momentumChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2], dst[3] = c.lp, c.eta, c.norm, float64(c.clipped)
}

// PolyakSGD is SGD with Polyak–Ruppert iterate averaging (Polyak & Juditsky
// 1992; Mandt, Hoffman & Blei 2017, §6.1) as an optimiser: the SGD iterates
//
//	θₜ = θₜ₋₁ + ηₜ ĝ(θₜ₋₁)
//
// are averaged from iteration Start on, and the chain's position is the
// average θ̄ₜ = (1/(t − Start)) Σ_{s=Start+1..t} θₛ (before Start it is the
// iterate). On a quadratic log posterior with precision Λ and gradient noise
// Cov(ĝ) = C at a constant step (or one decaying slower than 1/t), θ̄ₜ
// converges to the MAP θ̂ with
//
//	Cov(θ̄ₜ) ≈ Λ⁻¹ C Λ⁻¹ / t,
//
// the 1/t rate of the best unbiased estimator, whatever the step (Mandt et
// al.'s short proof: the average of the Ornstein–Uhlenbeck process is
// (Λt)⁻¹ times the integrated noise). The last iterate instead keeps an
// O(η) spread at a constant step. The bias of the start decays like 1/t
// (1/t² in squared error); Start > 0 drops the first iterates from the
// average (tail averaging).
//
// Per-draw statistics are those of SGD; stepsize__ is ηₜ and lp__ is the
// minibatch estimate at the last iterate (not at the average).
type PolyakSGD struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
	Start int // iterations before averaging begins; 0: from the first
}

// StatNames implements langevin.Sampler.
func (s PolyakSGD) StatNames() []string { return SGD{}.StatNames() }

// NewChain implements langevin.Sampler.
func (s PolyakSGD) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if s.Start < 0 {
		return nil, fmt.Errorf("sampler: Polyak averaging start %d: expected ≥ 0", s.Start)
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	avg := make([]float64, len(theta0))
	copy(avg, theta0)
	return &polyakChain{gradChain: g, start: s.Start, avg: avg}, nil
}

type polyakChain struct {
	*gradChain
	start int
	n     int // iterates in the average
	avg   []float64
	norm  float64
}

func (c *polyakChain) Step() error {
	c.norm = c.sgdStep()
	if c.t <= c.start {
		copy(c.avg, c.theta)
	} else {
		c.n++
		w := 1 / float64(c.n)
		for j, v := range c.theta {
			c.avg[j] += w * (v - c.avg[j])
		}
	}
	return diverged("Polyak-averaged SGD", c.t, c.theta, "lower the step")
}

func (c *polyakChain) Position() []float64 { return c.avg }

func (c *polyakChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2], dst[3] = c.lp, c.eta, c.norm, float64(c.clipped)
}

// Iterate returns the last SGD iterate θₜ (Position is the average θ̄ₜ).
func (c *polyakChain) Iterate() []float64 { return c.theta }
