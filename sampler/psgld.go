package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// PSGLD is preconditioned SGLD (Li, Chen, Carlson & Carin 2016) with the
// RMSprop diagonal preconditioner, in langevin's step convention:
//
//	V ← αV + (1−α) ḡ⊙ḡ,  ḡ = (1/|B|) Σ_{i∈B} ∇log p(zᵢ|θ),
//	G = diag(1 ⊘ (λ + √V)),
//	θ ← θ + η [G ĝ(θ) + Γ(θ)] + N(0, 2ητ G),
//
// where ĝ = ∇log p(θ) + N ḡ is the minibatch gradient estimate (with the
// control variate when Batch.CV is set, ḡ is its likelihood part divided by
// N) and Γⱼ = Σₖ ∂Gⱼₖ/∂θₖ = ∂Gⱼⱼ/∂θⱼ. Li et al.'s step ε is 2η.
//
// Defaults: α = 0.99, λ = 1e-5. Alpha = 1 freezes V at V0 (a fixed
// preconditioner G, for which Γ = 0 and the chain is SGLD with the constant
// preconditioner G). V starts at V0 (nil: zero).
//
// The correction Γ is off by default, as in common practice. With it on,
// Γⱼ = −Gⱼⱼ² (1−α) ḡⱼ Hⱼⱼ / √Vⱼ, where Hⱼⱼ = ∂ḡⱼ/∂θⱼ is computed by
// central finite differences of the batch gradient (2d extra batch gradients
// per step). Without Γ the chain's stationary law is biased: the
// Fokker–Planck equation of θ̇ = G∇log p + √(2G) ẇ with a θ-dependent G has
// the stationary density p only if the drift includes ∇·G. Because V is an
// exponential average over about 1/(1−α) steps, G changes little with θ and
// Γ is of order (1−α); the bias is small when α is near 1 and the posterior
// is narrow compared to the scale on which ḡ² varies, and it is zero for a
// fixed preconditioner.
//
// Per-draw statistics: lp__, accept_stat__ (1), stepsize__ (ηₜ), noise_inj__
// (mean over j of 2ηₜτGⱼⱼ), precond__ (mean over j of Gⱼⱼ), clipped__.
type PSGLD struct {
	Step        schedule.Schedule
	Batch       Minibatch
	Alpha       float64   // EMA weight α ∈ (0, 1]; 0 means 0.99
	Lambda      float64   // λ > 0; 0 means 1e-5
	V0          []float64 // initial V; nil means 0
	Correction  bool      // add Γ
	Temperature float64   // τ; 0 means 1
	Clip        Clipping

	// TemperatureStart and BurnIn anneal the temperature (see SGLD).
	TemperatureStart float64
	BurnIn           int
}

// StatNames implements langevin.Sampler.
func (s PSGLD) StatNames() []string {
	return []string{"lp__", "accept_stat__", "stepsize__", "noise_inj__", "precond__", "clipped__"}
}

// NewChain implements langevin.Sampler.
func (s PSGLD) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	tau, err := temperature(s.Temperature)
	if err != nil {
		return nil, err
	}
	ann, err := newAnneal(tau, s.TemperatureStart, s.BurnIn)
	if err != nil {
		return nil, err
	}
	alpha, lambda := s.Alpha, s.Lambda
	if alpha == 0 {
		alpha = 0.99
	}
	if lambda == 0 {
		lambda = 1e-5
	}
	if !(alpha > 0 && alpha <= 1) {
		return nil, fmt.Errorf("sampler: pSGLD α = %v: expected 0 < α ≤ 1", s.Alpha)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("sampler: pSGLD λ = %v: expected a positive number", s.Lambda)
	}
	d := m.Dim()
	v := make([]float64, d)
	if s.V0 != nil {
		if len(s.V0) != d {
			return nil, fmt.Errorf("sampler: pSGLD V0 has %d entries, model has %d parameters", len(s.V0), d)
		}
		for j, x := range s.V0 {
			if !(x >= 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("sampler: pSGLD V0 entry %d is %v: expected a non-negative number", j+1, x)
			}
		}
		copy(v, s.V0)
	}
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	c := &psgldChain{gradChain: g, rng: rng, ann: ann, alpha: alpha, lambda: lambda,
		v: v, gdiag: make([]float64, d)}
	c.step = newLangevinStep(&metric{d: d, diag: c.gdiag, sqrt: make([]float64, d)})
	if s.Correction && alpha < 1 {
		c.gamma = make([]float64, d)
		c.gp = make([]float64, d)
		c.gm = make([]float64, d)
	}
	return c, nil
}

type psgldChain struct {
	*gradChain
	rng           *rand.Rand
	ann           anneal
	tau           float64
	alpha, lambda float64
	v, gdiag      []float64
	gamma, gp, gm []float64 // Γ and finite-difference buffers (nil: no Γ)
	gmean         float64
	step          *langevinStep // over M = diag(gdiag)
}

func (c *psgldChain) Step() error {
	eta := c.gradient()
	c.tau = c.ann.at(c.t)
	sd := math.Sqrt(2 * eta * c.tau)
	if c.exploring() {
		c.tau, sd = 0, 0
	}
	n := float64(c.est.Model().Len())
	lik := c.est.LikGrad()
	a := c.alpha
	if a < 1 {
		for j, l := range lik {
			gb := l / n
			c.v[j] = a*c.v[j] + (1-a)*gb*gb
		}
	}
	var gsum float64
	sq := c.step.mt.sqrt
	for j, vj := range c.v {
		c.gdiag[j] = 1 / (c.lambda + math.Sqrt(vj))
		sq[j] = math.Sqrt(c.gdiag[j])
		gsum += c.gdiag[j]
	}
	c.gmean = gsum / float64(len(c.v))
	if c.gamma != nil {
		c.correction(lik, n)
	}
	drift := c.step.mg // G ĝ + Γ
	for j, g := range c.grad {
		drift[j] = c.gdiag[j] * g
		if c.gamma != nil {
			drift[j] += c.gamma[j]
		}
	}
	c.step.moveDrift(c.theta, drift, eta, sd, c.rng)
	return nil
}

// correction sets Γⱼ = ∂Gⱼⱼ/∂θⱼ = −Gⱼⱼ² (1−α) ḡⱼ Hⱼⱼ / √Vⱼ, with Hⱼⱼ the
// central finite difference of the batch-mean likelihood gradient.
func (c *psgldChain) correction(lik []float64, n float64) {
	m := c.est.Model()
	batch := c.est.Batch()
	nb := float64(len(batch))
	if batch == nil {
		nb = n
	}
	for j := range c.theta {
		x := c.theta[j]
		h := 1e-5 * math.Max(1, math.Abs(x))
		clear(c.gp)
		clear(c.gm)
		c.theta[j] = x + h
		m.LogLik(c.theta, batch, c.gp)
		c.theta[j] = x - h
		m.LogLik(c.theta, batch, c.gm)
		c.theta[j] = x
		hjj := (c.gp[j] - c.gm[j]) / (2 * h) / nb
		sv := math.Sqrt(c.v[j])
		if sv == 0 {
			c.gamma[j] = 0
			continue
		}
		gj := c.gdiag[j]
		c.gamma[j] = -gj * gj * (1 - c.alpha) * (lik[j] / n) * hjj / sv
	}
}

func (c *psgldChain) Position() []float64 { return c.theta }

func (c *psgldChain) Stats(dst []float64) {
	dst[0] = c.lp
	dst[1] = 1
	dst[2] = c.eta
	dst[3] = 2 * c.eta * c.tau * c.gmean
	dst[4] = c.gmean
	dst[5] = float64(c.clipped)
}
