package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// VI is mean-field Gaussian variational inference with reparameterisation
// gradients (black-box VI; Kucukelbir, Tran, Ranganath, Gelman & Blei 2017,
// ADVI without the transformation: all parameters are unconstrained). The
// family is q(θ) = N(μ, diag σ²), σⱼ = exp ωⱼ, and the objective is the ELBO
//
//	L(μ, ω) = E_q[log p(θ, D)] + Σⱼ ωⱼ + (D/2)(1 + log 2π).
//
// With θ = μ + σ ⊙ z, z ~ N(0, I) (reparameterisation), unbiased gradients are
//
//	∇_μ L ≈ ĝ(θ),   ∇_ω L ≈ ĝ(θ) ⊙ z ⊙ σ + 1,
//
// averaged over Draws values of z, with ĝ the minibatch gradient estimate
// (N/|B| scale). Each step is a natural-gradient step (the Fisher information
// of q is 1/σ² for μ and 2 for ω), which makes the step ρₜ dimensionless:
//
//	μ ← μ + ρₜ σ² ⊙ ∇_μ L,   ω ← ω + (ρₜ/2) ∇_ω L,
//
// with each coordinate's change limited to 3σⱼ (μ) and 1 (ω) so that a poor
// start cannot throw the iterates far. (ADVI uses an adaptive per-coordinate
// step instead; the fixed point is the same: the stationary points of L.)
// From AverageFrom on, μ and ω are averaged (Polyak–Ruppert), and the average
// is the fit.
//
// For a Gaussian target N(m, Λ⁻¹) the optimum is μ = m and σⱼ² = 1/Λⱼⱼ (the
// inverse of the precision's diagonal, smaller than the marginal variance Σⱼⱼ
// unless Λ is diagonal).
type VI struct {
	Step        schedule.Schedule // ρₜ; nil: schedule.Polynomial{A: 0.1, B: 100, Gamma: 0.6}
	Batch       sampler.Minibatch
	Draws       int     // z draws per step; 0: 1
	InitSD      float64 // initial σ; 0: 1/√N
	AverageFrom int     // iterations before the averaging starts; 0: no averaging (the last iterate)

	entropy float64 // weight of the entropy gradient (tests set 2 to show a failing variant); 0: 1
}

func (v VI) defaults(m langevin.Model) (VI, error) {
	if v.Step == nil {
		v.Step = schedule.Polynomial{A: 0.1, B: 100, Gamma: 0.6}
	}
	if err := v.Step.Validate(); err != nil {
		return v, err
	}
	if v.Draws < 0 || v.AverageFrom < 0 {
		return v, fmt.Errorf("approx: VI Draws %d, AverageFrom %d: expected non-negative settings", v.Draws, v.AverageFrom)
	}
	if v.Draws == 0 {
		v.Draws = 1
	}
	if v.InitSD == 0 {
		v.InitSD = 1 / math.Sqrt(float64(m.Len()))
	}
	if !(v.InitSD > 0) || math.IsInf(v.InitSD, 0) {
		return v, fmt.Errorf("approx: VI InitSD %v: expected a positive σ", v.InitSD)
	}
	if v.entropy == 0 {
		v.entropy = 1
	}
	return v, nil
}

// StatNames implements langevin.Sampler: lp__ (log p(θ, D) at the last draw of
// z, minibatch estimate), stepsize__ (ρₜ) and elbo__ (the matching one-draw
// ELBO estimate).
func (v VI) StatNames() []string { return []string{"lp__", "stepsize__", "elbo__"} }

// NewChain implements langevin.Sampler. Until EndWarmup the chain optimises
// (Position is μ); afterwards each Step draws θ from the fit.
func (v VI) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	v, err := v.defaults(m)
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	if len(theta0) != d {
		return nil, fmt.Errorf("approx: VI: initial point has %d values, model has %d parameters", len(theta0), d)
	}
	b, err := langevin.NewBatcher(m.Len(), v.Batch.Size, v.Batch.Replace, rng)
	if err != nil {
		return nil, err
	}
	c := &viChain{
		v: v, est: langevin.NewEstimator(m, b), rng: rng,
		mu: append([]float64(nil), theta0...), omega: make([]float64, d), sd: make([]float64, d),
		gmu: make([]float64, d), gom: make([]float64, d),
		theta: make([]float64, d), grad: make([]float64, d), z: make([]float64, d),
		fit:   &MeanField{Mean: make([]float64, d), SD: make([]float64, d)},
		sumMu: make([]float64, d), sumOm: make([]float64, d),
	}
	lsd := math.Log(v.InitSD)
	for j := range c.omega {
		c.omega[j], c.sd[j] = lsd, v.InitSD
	}
	return c, nil
}

// FitVI runs iters steps of v from μ = theta0 and returns the fit.
func FitVI(ctx context.Context, m langevin.Model, v VI, theta0 []float64, iters int, rng *rand.Rand) (*MeanField, error) {
	ch, err := v.NewChain(m, theta0, rng)
	if err != nil {
		return nil, err
	}
	c := ch.(*viChain)
	for t := 0; t < iters; t++ {
		if t%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := c.Step(); err != nil {
			return nil, err
		}
	}
	c.EndWarmup()
	return c.fit, nil
}

// MeanField is the Gaussian N(Mean, diag SD²).
type MeanField struct {
	Mean, SD []float64
}

// Sample writes a draw from the Gaussian into dst. It does not allocate.
func (q *MeanField) Sample(dst []float64, rng *rand.Rand) {
	for j, m := range q.Mean {
		dst[j] = m + q.SD[j]*rng.NormFloat64()
	}
}

type viChain struct {
	v              VI
	est            *langevin.Estimator
	rng            *rand.Rand
	mu, omega, sd  []float64 // sd = exp(omega)
	gmu, gom       []float64
	theta, grad, z []float64
	fit            *MeanField
	sumMu, sumOm   []float64
	nAvg           int
	t              int
	rho, lp, elbo  float64
	sampled        bool
}

func (c *viChain) Step() error {
	if c.sampled {
		c.fit.Sample(c.theta, c.rng)
		return nil
	}
	c.t++
	c.rho = c.v.Step.At(c.t)
	clear(c.gmu)
	clear(c.gom)
	w := 1 / float64(c.v.Draws)
	for s := 0; s < c.v.Draws; s++ {
		for j, m := range c.mu {
			z := c.rng.NormFloat64()
			c.z[j] = z
			c.theta[j] = m + c.sd[j]*z
		}
		c.lp = c.est.Eval(c.theta, c.grad)
		for j, g := range c.grad {
			c.gmu[j] += w * g
			c.gom[j] += w * g * c.z[j] * c.sd[j]
		}
	}
	var ent float64
	for j := range c.mu {
		sd := c.sd[j]
		dm := c.rho * sd * sd * c.gmu[j]
		dm = max(-3*sd, min(3*sd, dm))
		do := 0.5 * c.rho * (c.gom[j] + c.v.entropy)
		do = max(-1, min(1, do))
		c.mu[j] += dm
		if do != 0 {
			c.omega[j] += do
			c.sd[j] = math.Exp(c.omega[j])
		}
		ent += c.omega[j]
	}
	c.elbo = c.lp + ent + 0.5*float64(len(c.mu))*(1+log2Pi)
	if c.v.AverageFrom > 0 && c.t > c.v.AverageFrom {
		c.nAvg++
		for j := range c.mu {
			c.sumMu[j] += c.mu[j]
			c.sumOm[j] += c.omega[j]
		}
	}
	return nil
}

func (c *viChain) Position() []float64 {
	if c.sampled {
		return c.theta
	}
	return c.mu
}

func (c *viChain) Stats(dst []float64) { dst[0], dst[1], dst[2] = c.lp, c.rho, c.elbo }

// EndWarmup freezes the fit (the average from AverageFrom on, or the last
// iterate); later steps draw from it.
func (c *viChain) EndWarmup() {
	for j := range c.mu {
		m, om := c.mu[j], c.omega[j]
		if c.nAvg > 0 {
			m, om = c.sumMu[j]/float64(c.nAvg), c.sumOm[j]/float64(c.nAvg)
		}
		c.fit.Mean[j], c.fit.SD[j] = m, math.Exp(om)
	}
	c.sampled = true
}

// log2Pi is log(2π).
const log2Pi = 1.8378770664093454835606594728112352797227949472755668
