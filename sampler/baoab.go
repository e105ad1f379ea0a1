package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// BAOAB is stochastic-gradient underdamped Langevin dynamics integrated by
// the BAOAB splitting of Leimkuhler & Matthews (2013): with momentum p of
// mass M⁻¹ (M the preconditioner, diagonal), time step h = √η and
// c = 1 − α, each step is
//
//	B: p ← p + (h/2) ĝ(θ)
//	A: θ ← θ + (h/2) M p
//	O: p ← c p + √((1 − c²) τ M⁻¹) ξ,   ξ ~ N(0, I)
//	A: θ ← θ + (h/2) M p
//	B: p ← p + (h/2) ĝ(θ)
//
// where ĝ is the minibatch estimate of ∇log p(θ|D) (one gradient per step:
// the closing B and the next step's opening B share it). The O step is the
// exact solution of the Ornstein–Uhlenbeck part dp = −γp dt + √(2γτM⁻¹) dW
// over a step, c = e^(−γh); the friction α = 1 − c is the fraction of the
// momentum renewed per step (α = 1: BAOAB's high-friction limit, a Langevin
// step with the next noise averaged in). The chain targets p(θ|D)^(1/τ).
// Among the splittings of Langevin dynamics, BAOAB has the smallest
// configurational bias: on a Gaussian target its θ-marginal is exact for
// every stable step (h²·λmax(MH) < 4) and friction, so the step is limited
// by stability and the gradient noise, not by discretisation bias.
//
// η = h² has the units of SGLD's step and of SGHMC's learning rate (Chen et
// al.'s η = ε²/M), so the same rules give its default; Precond is M as in
// SGLD (the Laplace variances make MH ≈ I).
//
// Per-draw statistics: lp__, accept_stat__ (1), stepsize__ (η),
// noise_inj__ (mean over j of the variance the O step injects into θ,
// (h/2)²(1 − c²)τMⱼ), momentum__ (mean over j of pⱼ²Mⱼ, near τ at
// stationarity), clipped__.
type BAOAB struct {
	Step        schedule.Schedule
	Batch       Minibatch
	Friction    float64   // α = 1 − c ∈ (0, 1]; 0 means 0.1
	Precond     []float64 // diagonal of M; nil means the identity
	Temperature float64   // τ; 0 means 1
	Clip        Clipping
}

// StatNames implements langevin.Sampler.
func (s BAOAB) StatNames() []string {
	return []string{"lp__", "accept_stat__", "stepsize__", "noise_inj__", "momentum__", "clipped__"}
}

// NewChain implements langevin.Sampler. The momentum starts at 0.
func (s BAOAB) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	tau, err := temperature(s.Temperature)
	if err != nil {
		return nil, err
	}
	alpha := s.Friction
	if alpha == 0 {
		alpha = 0.1
	}
	if !(alpha > 0 && alpha <= 1) {
		return nil, fmt.Errorf("sampler: BAOAB friction α = %v: expected 0 < α ≤ 1", s.Friction)
	}
	d := m.Dim()
	if err := checkDiag(s.Precond, d, "BAOAB preconditioner"); err != nil {
		return nil, err
	}
	pre := make([]float64, d)
	for j := range pre {
		pre[j] = 1
		if s.Precond != nil {
			pre[j] = s.Precond[j]
		}
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	return &baoabChain{gradChain: g, rng: rng, tau: tau, c: 1 - alpha, pre: pre, p: make([]float64, d)}, nil
}

type baoabChain struct {
	*gradChain
	rng   *rand.Rand
	tau   float64
	c     float64   // momentum kept per step, 1 − α
	pre   []float64 // M
	p     []float64 // momentum, before the closing half kick of the last step
	hLast float64   // h of the last step (0 before the first)
	inj   float64   // mean variance injected into θ by the last step
}

// Step implements langevin.Chain.
func (c *baoabChain) Step() error {
	eta := c.gradient() // ĝ(θ), shared by the last step's closing B and this step's opening B
	h := math.Sqrt(eta)
	tau := c.tau
	if c.exploring() {
		tau = 0
	}
	kick := (c.hLast + h) / 2 // closing B of the last step, opening B of this one
	o := math.Sqrt((1 - c.c*c.c) * tau)
	var inj float64
	for j, g := range c.grad {
		p := c.p[j] + kick*g
		m := c.pre[j]
		th := c.theta[j] + h/2*m*p                     // A
		p = c.c*p + o/math.Sqrt(m)*c.rng.NormFloat64() // O: variance (1 − c²)τ/Mⱼ
		c.theta[j] = th + h/2*m*p                      // A
		c.p[j] = p
		inj += h * h / 4 * (1 - c.c*c.c) * tau * m
	}
	c.hLast = h
	c.inj = inj / float64(len(c.p))
	return nil
}

// Position implements langevin.Chain.
func (c *baoabChain) Position() []float64 { return c.theta }

// Stats implements langevin.Chain.
func (c *baoabChain) Stats(dst []float64) {
	var k float64
	for j, p := range c.p {
		k += p * p * c.pre[j]
	}
	dst[0] = c.lp
	dst[1] = 1
	dst[2] = c.eta
	dst[3] = c.inj
	dst[4] = k / float64(len(c.p))
	dst[5] = float64(c.clipped)
}
