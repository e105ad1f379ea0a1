package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// SGLD is stochastic gradient Langevin dynamics (Welling & Teh 2011; lecture
// notes Algorithm 19) with temperature τ and an optional constant diagonal
// preconditioner M (handout eq. 3.9):
//
//	θ ← θ + ηₜ M ĝ(θ) + √(2ηₜτ M) ξ,  ξ ~ N(0, I),
//
// where ĝ(θ) = ∇log p(θ) + (N/|B|) Σ_{i∈B} ∇log p(zᵢ|θ). For small steps the
// chain targets p(θ|D)^(1/τ). Welling & Teh's step ε is 2η.
//
// PrecondFull, when set, is a dense constant preconditioner M = LLᵀ (for
// example the Laplace covariance H⁻¹, which makes MH ≈ I near the mode so that
// one step suits every direction of a correlated posterior): the update is
// θ ← θ + ηₜMĝ + √(2ηₜτ) Lξ, O(d²) per step.
//
// Per-draw statistics:
//   - lp__: the minibatch estimate of log p(θ|D) at the start of the step;
//   - accept_stat__: always 1 (no Metropolis–Hastings correction);
//   - stepsize__: ηₜ;
//   - noise_inj__: variance of the injected noise per coordinate, the mean over
//     j of 2ηₜτMⱼⱼ;
//   - noise_grad__: an estimate of the variance per coordinate of the
//     gradient noise as it enters the update, the mean over j of
//     ηₜ²Mⱼⱼ² Var(ĝⱼ), where Var(ĝⱼ) = (N²/|B|) sⱼ² (times the finite-population
//     factor 1 − |B|/N for batches drawn without replacement) and sⱼ² is the
//     sample variance of the per-observation gradients in the batch. It is
//     computed every NoiseEvery steps (it costs |B| extra gradient
//     evaluations) and holds its last value in between; NaN until first
//     computed, 0 for full batches. With control variates sⱼ² is that of
//     the terms ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂) of the estimator used (with the
//     second-order one, Minibatch.Taylor, the remainders ∇log p(zᵢ|θ) − ∇qᵢ(θ)). With a
//     dense preconditioner Mⱼⱼ² stands for (MCM)ⱼⱼ. Sampling takes over from optimisation when
//     noise_inj__ exceeds noise_grad__ (Welling & Teh §4).
//   - clipped__: number of steps whose gradient was clipped so far.
type SGLD struct {
	Step        schedule.Schedule
	Batch       Minibatch
	Temperature float64       // τ; 0 means 1
	Precond     []float64     // diagonal of M; nil means the identity
	PrecondFull *mat.SymDense // dense M (overrides Precond); nil: not dense
	// PrecondOp, when set, is a constant preconditioner M given by its
	// action (overrides Precond and PrecondFull): θ ← θ + ηₜMĝ + √(2ηₜτ) Rξ
	// with RRᵀ = M — for example langevin.BlockArrow, M = H⁻¹ of a
	// hierarchical model's Laplace approximation in O(d) per step.
	PrecondOp  PrecondOperator
	Clip       Clipping
	NoiseEvery int // estimate noise_grad__ every NoiseEvery steps; 0: never

	// TemperatureStart τ₀ and BurnIn anneal the temperature from τ₀ to τ
	// over the first BurnIn iterations (see Anneal); 0: no annealing.
	TemperatureStart float64
	BurnIn           int
}

// StatNames implements langevin.Sampler.
func (s SGLD) StatNames() []string {
	return []string{"lp__", "accept_stat__", "stepsize__", "noise_inj__", "noise_grad__", "clipped__"}
}

// NewChain implements langevin.Sampler.
func (s SGLD) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	tau := s.Temperature
	if tau == 0 {
		tau = 1
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return nil, fmt.Errorf("sampler: temperature %v: expected τ > 0", s.Temperature)
	}
	if s.NoiseEvery < 0 {
		return nil, fmt.Errorf("sampler: NoiseEvery = %d: expected ≥ 0", s.NoiseEvery)
	}
	d := m.Dim()
	if err := checkDiag(s.Precond, d, "preconditioner"); err != nil {
		return nil, err
	}
	pre := make([]float64, d)
	sqrtPre := make([]float64, d)
	var preMean float64
	for j := range pre {
		pre[j] = 1
		if s.Precond != nil {
			pre[j] = s.Precond[j]
		}
		sqrtPre[j] = math.Sqrt(pre[j])
		preMean += pre[j] / float64(d)
	}
	met := &metric{d: d, diag: pre, sqrt: sqrtPre}
	if s.PrecondFull != nil {
		if s.PrecondFull.SymmetricDim() != d {
			return nil, fmt.Errorf("sampler: preconditioner is %d×%d, model has %d parameters", s.PrecondFull.SymmetricDim(), s.PrecondFull.SymmetricDim(), d)
		}
		var ch mat.Cholesky
		if !ch.Factorize(s.PrecondFull) {
			return nil, fmt.Errorf("sampler: dense preconditioner is not positive definite")
		}
		var l mat.TriDense
		ch.LTo(&l)
		// gonum's factor, not linalg.CholLower's: its rounding is in the
		// draws (TestGolden).
		met.dense, met.m, met.l = true, make([]float64, d*d), make([]float64, d*d)
		preMean = 0
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				met.m[i*d+j] = s.PrecondFull.At(i, j)
				met.l[i*d+j] = l.At(i, j)
			}
			pre[i] = met.m[i*d+i]
			preMean += pre[i] / float64(d)
		}
	}
	if s.PrecondOp != nil {
		if s.PrecondOp.Dim() != d {
			return nil, fmt.Errorf("sampler: preconditioner operator of dimension %d, model has %d parameters", s.PrecondOp.Dim(), d)
		}
		met.dense, met.m, met.l, met.op = false, nil, nil, s.PrecondOp
		s.PrecondOp.PrecondDiag(pre)
		if err := checkDiag(pre, d, "preconditioner operator: diagonal"); err != nil {
			return nil, err
		}
		preMean = 0
		for j, v := range pre {
			sqrtPre[j] = math.Sqrt(v)
			preMean += v / float64(d)
		}
	}
	ann, err := newAnneal(tau, s.TemperatureStart, s.BurnIn)
	if err != nil {
		return nil, err
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	c := &sgldChain{
		gradChain: g, rng: rng, ann: ann, step: newLangevinStep(met),
		preMean: preMean, every: s.NoiseEvery,
		noiseGrad: math.NaN(),
	}
	if s.NoiseEvery > 0 {
		c.gi = make([]float64, d)
		c.g0 = make([]float64, d)
		c.sum = make([]float64, d)
		c.sumsq = make([]float64, d)
	}
	return c, nil
}

type sgldChain struct {
	*gradChain
	rng        *rand.Rand
	ann        anneal
	tau        float64       // temperature of the last step
	step       *langevinStep // over M (diagonal, dense or an operator)
	preMean    float64
	every      int
	noiseGrad  float64
	gi, g0     []float64 // scratch of RowGrads
	sum, sumsq []float64
}

// PrecondOperator is a constant preconditioner M given by its action, for
// M too large to hold dense (SGLD's PrecondOp). Its methods must be safe
// for concurrent use and allocate nothing.
type PrecondOperator interface {
	Dim() int
	// MulPrecond sets dst = Mg.
	MulPrecond(dst, g []float64)
	// MulPrecondRoot sets dst = Rξ for a fixed R with RRᵀ = M.
	MulPrecondRoot(dst, xi []float64)
	// PrecondDiag sets dst to the diagonal of M.
	PrecondDiag(dst []float64)
}

func (c *sgldChain) Step() error {
	eta := c.gradient()
	if c.every > 0 && c.t%c.every == 0 {
		c.estimateNoise(eta)
	}
	c.tau = c.ann.at(c.t)
	sd := math.Sqrt(2 * eta * c.tau)
	if c.exploring() {
		c.tau, sd = 0, 0
	}
	c.step.move(c.theta, c.grad, eta, sd, c.rng)
	return nil
}

// estimateNoise sets noiseGrad from the per-observation gradients of the
// current batch, those of the estimator used: with control variates the
// terms ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂), with the second-order one the
// remainders ∇log p(zᵢ|θ) − ∇qᵢ(θ).
func (c *sgldChain) estimateNoise(eta float64) {
	batch := c.est.Batch()
	if batch == nil {
		c.noiseGrad = 0
		return
	}
	m := c.est.Model()
	clear(c.sum)
	clear(c.sumsq)
	langevin.RowGrads(m, c.theta, batch, c.est.RowTerms(), c.gi, c.g0, func(_ int, g []float64) error {
		for j, v := range g {
			c.sum[j] += v
			c.sumsq[j] += v * v
		}
		return nil
	})
	b := float64(len(batch))
	n := float64(m.Len())
	if b < 2 {
		c.noiseGrad = math.NaN()
		return
	}
	f := n * n / b
	if !c.est.Batcher().Replace() {
		f *= 1 - b/n
	}
	var v float64
	for j := range c.sum {
		mean := c.sum[j] / b
		s2 := (c.sumsq[j] - b*mean*mean) / (b - 1)
		v += c.step.mt.diag[j] * c.step.mt.diag[j] * max(s2, 0)
	}
	c.noiseGrad = eta * eta * f * v / float64(len(c.sum))
}

func (c *sgldChain) Position() []float64 { return c.theta }

func (c *sgldChain) Stats(dst []float64) {
	dst[0] = c.lp
	dst[1] = 1
	dst[2] = c.eta
	dst[3] = 2 * c.eta * c.tau * c.preMean
	dst[4] = c.noiseGrad
	dst[5] = float64(c.clipped)
}
