package sampler

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// SGHMC is stochastic gradient Hamiltonian Monte Carlo (Chen, Fox & Guestrin
// 2014) in its "SGD with momentum" form (their eq. 15), with a diagonal mass
// M, friction α and temperature τ:
//
//	v ← (1 − α) v + η M⁻¹ ĝ(θ) + N(0, 2αητM⁻¹ − η²M⁻² B̂),
//	θ ← θ + v,
//
// per coordinate, where ĝ is the minibatch estimate of ∇log p(θ|D) and B̂ an
// optional estimate of the gradient-noise variance Var(ĝⱼ) (the injected
// variance is clamped at 0). In Chen et al.'s variables (time step ε, momentum
// r, friction C): v = εM⁻¹r, η = ε²/M (the learning rate) and α = εC/M, so
// that their N(0, 2(C − B̂)ε) becomes the noise above. The momentum starts at 0.
//
// η has the units of SGLD's step, and with α = 1 the update is exactly SGLD
// with step η and preconditioner M⁻¹: the field Precond is that
// preconditioner, M⁻¹, under the name and convention of every sampler (a
// Laplace variance given as Precond scales the step as in SGLD); the
// deprecated field Mass is M itself. Small α gives long, nearly
// Hamiltonian trajectories. On a Gaussian target of curvature λ (in units
// of M) the recursion is stable if and only if ηλ < 2(2 − α) (its matrix
// [[1−ηλ, 1−α], [−ηλ, 1−α]] has determinant 1 − α and trace 2 − α − ηλ). At stationarity on a Gaussian target v ~ N(0, ητM⁻¹)
// approximately; Resample > 0 redraws v from that law every Resample steps.
// During the exploration phase of a cyclical schedule no noise is injected
// and the momentum is not resampled.
//
// Thermostat turns SGHMC into the stochastic gradient Nosé–Hoover thermostat
// (SGNHT, Ding, Fang, Babbush, Chen, Skeel & Neven 2014, Alg. 2): the friction
// becomes a dynamic variable ξ, started at A = Friction, the injected noise
// stays N(0, 2AητM⁻¹), and after each step
//
//	ξ ← ξ + (1/d) Σⱼ vⱼ² Mⱼ − ητ,
//
// which drives the mean kinetic energy to its value at temperature τ and so
// absorbs gradient noise of unknown size (their (p, ξ, h, A) are v = hp,
// ξh, η = h², Ah here). Unlike SGHMC's B̂, no estimate of the noise is needed.
//
// Per-draw statistics: lp__, accept_stat__ (1), stepsize__ (ηₜ), noise_inj__
// (mean over j of the injected variance), momentum__ (mean over j of
// vⱼ²Mⱼ/(ηₜ); at stationarity about 2τ/(2 − α), the stationary variance
// of v ← (1 − α)v + N(0, 2αητ): τ for small α, 2τ at α = 1 — a value well
// above that means the chains run hot, e.g. gradient noise the friction
// does not absorb), friction__ (α, or the thermostat ξ), clipped__.
type SGHMC struct {
	Step     schedule.Schedule
	Batch    Minibatch
	Friction float64 // α ∈ (0, 1]; 0 means 0.1
	// Precond is the diagonal of M, as in SGLD: the velocity moves by
	// ηMĝ and its noise is N(0, 2αητM); M is the inverse of the momentum's
	// mass. nil means the identity.
	Precond []float64
	// Mass is the diagonal of the mass matrix, M⁻¹: Precond = 1/Mass.
	//
	// Deprecated: use Precond, the preconditioner's name in every sampler
	// (Mass is its inverse: a Laplace variance given here would scale the
	// step the wrong way). Mass is still honoured, as 1/Mass.
	Mass      []float64
	GradNoise []float64 // B̂ⱼ, estimate of Var(ĝⱼ); nil means 0
	// Blocks are dense blocks of the preconditioner: on the coordinates of
	// a block, M is the block's matrix P (Precond's entries there are not
	// used), so that the velocity moves by ηPĝ and its noise is
	// N(0, 2αητP), drawn as √(2αητ)·Lz with P = LLᵀ. The stationary law is
	// the posterior's for any fixed positive definite M, diagonal or not.
	// Not with GradNoise.
	Blocks []DenseBlock
	// Gibbs, when not nil, makes each chain its own [Conditional] (a block
	// of θ drawn exactly from its law given the rest, with the chain's own
	// workspace); every GibbsEvery steps (0 means 1), after the SGHMC
	// update, the chain overwrites that block with a draw from its
	// conditional at the chain's temperature τ (τ = 0, the exploration
	// phase of a cyclical schedule: the conditional mode). Each update
	// leaves the target invariant (SGHMC up to its discretisation error),
	// so their composition does: Gibbs sampling with SGHMC as the kernel
	// of the other coordinates. The draw uses the chain's random stream,
	// so the draws stay reproducible. The momentum v of the block is kept:
	// at stationarity v is independent of θ (N(0, ≈ητM) per coordinate),
	// so the block's new value given the rest, with v untouched, leaves
	// the joint law of (θ, v) invariant; redrawing v would do as well but
	// needs the discrete law of v (2τ/(2 − α) in momentum__'s units) and
	// the block's coordinates, and discards the direction of motion. An
	// error from Draw stops the chain as a divergence does. Gibbs and
	// Blocks compose: the other coordinates may be preconditioned densely
	// (TestSGHMCGibbsBlocksExactPosterior).
	Gibbs       func() (Conditional, error)
	GibbsEvery  int
	Resample    int     // redraw the momentum every Resample steps; 0: never
	Thermostat  bool    // SGNHT: adaptive friction ξ
	Temperature float64 // τ; 0 means 1
	Clip        Clipping

	// TemperatureStart and BurnIn anneal the temperature (see SGLD).
	TemperatureStart float64
	BurnIn           int

	// blockNoise scales the dense blocks' injected noise (0: 1): √2 is a
	// slip the tests must catch (export_test.go's WithBlockNoise).
	blockNoise float64
}

// StatNames implements langevin.Sampler.
func (s SGHMC) StatNames() []string {
	return []string{"lp__", "accept_stat__", "stepsize__", "noise_inj__", "momentum__", "friction__", "clipped__"}
}

// NewChain implements langevin.Sampler.
func (s SGHMC) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	tau, err := temperature(s.Temperature)
	if err != nil {
		return nil, err
	}
	ann, err := newAnneal(tau, s.TemperatureStart, s.BurnIn)
	if err != nil {
		return nil, err
	}
	alpha := s.Friction
	if alpha == 0 {
		alpha = 0.1
	}
	if !(alpha > 0 && alpha <= 1) {
		return nil, fmt.Errorf("sampler: SGHMC friction α = %v: expected 0 < α ≤ 1", s.Friction)
	}
	if s.Resample < 0 {
		return nil, fmt.Errorf("sampler: SGHMC Resample = %d: expected ≥ 0", s.Resample)
	}
	d := m.Dim()
	minv := make([]float64, d)
	bhat := make([]float64, d)
	if s.Precond != nil && s.Mass != nil {
		return nil, fmt.Errorf("sampler: SGHMC: both Precond and its deprecated inverse Mass are set: give Precond (= 1/Mass)")
	}
	if err := checkDiag(s.Precond, d, "SGHMC preconditioner"); err != nil {
		return nil, err
	}
	if err := checkDiag(s.Mass, d, "SGHMC mass"); err != nil {
		return nil, err
	}
	for j := range minv {
		minv[j] = 1
		switch {
		case s.Precond != nil:
			minv[j] = s.Precond[j]
		case s.Mass != nil:
			minv[j] = 1 / s.Mass[j]
		}
		if s.GradNoise != nil {
			if len(s.GradNoise) != d {
				return nil, fmt.Errorf("sampler: SGHMC gradient-noise estimate has %d entries, model has %d parameters", len(s.GradNoise), d)
			}
			if !(s.GradNoise[j] >= 0) || math.IsInf(s.GradNoise[j], 0) {
				return nil, fmt.Errorf("sampler: SGHMC gradient-noise estimate entry %d is %v: expected a non-negative number", j+1, s.GradNoise[j])
			}
			bhat[j] = s.GradNoise[j]
		}
	}
	var ops []blockOp
	var inBlock []bool
	if len(s.Blocks) > 0 {
		if s.GradNoise != nil {
			return nil, fmt.Errorf("sampler: SGHMC: dense preconditioner blocks with a gradient-noise estimate: give one of them")
		}
		if ops, err = newBlockOps(d, s.Blocks, "SGHMC"); err != nil {
			return nil, err
		}
		inBlock = make([]bool, d)
		for _, op := range ops {
			for _, j := range op.idx {
				inBlock[j] = true
			}
		}
	}
	var cond Conditional
	if s.Gibbs != nil {
		if s.GibbsEvery < 0 {
			return nil, fmt.Errorf("sampler: SGHMC GibbsEvery = %d: expected ≥ 0", s.GibbsEvery)
		}
		if cond, err = s.Gibbs(); err != nil {
			return nil, fmt.Errorf("sampler: SGHMC Gibbs block: %w", err)
		}
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	return &sghmcChain{gradChain: g, rng: rng, ann: ann, alpha: alpha, minv: minv, bhat: bhat,
		v: make([]float64, d), resample: s.Resample, xi: alpha, thermostat: s.Thermostat, blocks: ops, inBlock: inBlock,
		gibbs: cond, gibbsEvery: max(s.GibbsEvery, 1), blockNoise: cmp.Or(s.blockNoise, 1)}, nil
}

type sghmcChain struct {
	*gradChain
	rng      *rand.Rand
	ann      anneal
	tau      float64
	alpha    float64
	minv     []float64
	bhat     []float64
	v        []float64
	resample int
	inj      float64 // mean injected variance of the last step

	thermostat bool
	xi         float64 // friction of the next step: α, or SGNHT's ξ

	blocks     []blockOp // dense blocks of the preconditioner
	inBlock    []bool    // coordinate j is in a block (nil: none is)
	blockNoise float64   // 1 (SGHMC.blockNoise: tests' slip)

	gibbs      Conditional // exact block draws (nil: none)
	gibbsEvery int
}

func (c *sghmcChain) Step() error {
	eta := c.gradient()
	c.tau = c.ann.at(c.t)
	explore := c.exploring()
	if explore {
		c.tau = 0
	}
	if !explore && c.resample > 0 && (c.t-1)%c.resample == 0 && c.t > 1 {
		for j := range c.v {
			c.v[j] = math.Sqrt(eta*c.tau*c.minv[j]) * c.rng.NormFloat64()
		}
		for b := range c.blocks {
			op := &c.blocks[b]
			for i := range op.z {
				op.z[i] = c.rng.NormFloat64()
			}
			op.mulL(op.u, op.z)
			for i, j := range op.idx {
				c.v[j] = math.Sqrt(eta*c.tau) * op.u[i]
			}
		}
	}
	a, f := c.alpha, c.xi
	var inj, kin float64
	for j, g := range c.grad {
		if c.inBlock != nil && c.inBlock[j] {
			continue
		}
		em := eta * c.minv[j]
		c.v[j] = (1-f)*c.v[j] + em*g
		if !explore {
			s2 := max(2*a*em*c.tau-em*em*c.bhat[j], 0)
			inj += s2
			c.v[j] += math.Sqrt(s2) * c.rng.NormFloat64()
		}
		c.theta[j] += c.v[j]
		kin += c.v[j] * c.v[j] / c.minv[j]
	}
	for b := range c.blocks {
		op := &c.blocks[b]
		for i, j := range op.idx {
			op.g[i] = c.grad[j]
		}
		op.mulP(op.u, op.g) // Pĝ
		sd := 0.0
		if !explore {
			sd = c.blockNoise * math.Sqrt(2*a*eta*c.tau)
			for i := range op.z {
				op.z[i] = c.rng.NormFloat64()
			}
			op.mulL(op.g, op.z) // Lz, into the gradient's scratch
			for i := range op.idx {
				inj += 2 * a * eta * c.tau * op.diagP(i)
			}
		}
		for i, j := range op.idx {
			c.v[j] = (1-f)*c.v[j] + eta*op.u[i] + sd*op.g[i]
			c.theta[j] += c.v[j]
			op.z[i] = c.v[j]
		}
		kin += op.quadInv(op.z)
	}
	d := float64(len(c.v))
	c.inj = inj / d
	if c.thermostat && !explore {
		c.xi += kin/d - eta*c.tau
	}
	if c.gibbs != nil && c.t%c.gibbsEvery == 0 {
		return c.gibbs.Draw(c.theta, c.tau, c.rng)
	}
	return nil
}

func (c *sghmcChain) Position() []float64 { return c.theta }

func (c *sghmcChain) Stats(dst []float64) {
	var k float64
	for j, v := range c.v {
		if c.inBlock != nil && c.inBlock[j] {
			continue
		}
		k += v * v / (c.eta * c.minv[j])
	}
	for b := range c.blocks {
		op := &c.blocks[b]
		for i, j := range op.idx {
			op.z[i] = c.v[j]
		}
		k += op.quadInv(op.z) / c.eta
	}
	dst[0] = c.lp
	dst[1] = 1
	dst[2] = c.eta
	dst[3] = c.inj
	dst[4] = k / float64(len(c.v))
	dst[5] = c.xi
	dst[6] = float64(c.clipped)
}
