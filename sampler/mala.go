package sampler

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// MALA is the Metropolis-adjusted Langevin algorithm (Roberts & Tweedie
// 1996; seed report eqs. 10–11) on the full-data log posterior
// log π(θ) = log p(θ) + Σᵢ log p(zᵢ|θ), with an optional diagonal
// preconditioner M. From θ it proposes
//
//	θ' = θ + η M ∇log π(θ) + √(2η M) ξ,  ξ ~ N(0, I),
//
// and accepts θ' with probability min(1, α),
//
//	α = π(θ') q(θ | θ') / (π(θ) q(θ' | θ)),
//	log q(θ' | θ) = −Σⱼ (θ'ⱼ − θⱼ − η Mⱼ ∂ⱼlog π(θ))² / (4η Mⱼ) + const,
//
// the asymmetric proposal density making the chain exact for any η. The
// step η is langevin's convention (the drift coefficient); the report writes
// θ' = θ + (ε/2)∇log π + √ε ξ, so its ε is 2η (ε = 0.02 is η = 0.01).
//
// With Adapt the step is tuned during warm-up toward a mean acceptance
// statistic of 0.574 (Roberts & Rosenthal 1998), and with Adapt.Metric =
// MetricDiag the diagonal M is estimated in Stan's windows (M ≈ posterior
// variances, after which η is of order d^(−1/3)).
//
// Per-draw statistics: lp__ (log π at the current θ, exact), accept_stat__
// (min(1, α) of the last proposal), stepsize__ (η of the last proposal).
type MALA struct {
	// Step is the initial η; 0 finds one by Stan's doubling heuristic.
	Step float64
	// Precond is the diagonal of M; nil means the identity.
	Precond []float64
	// PrecondFull, if not nil, is a dense M (instead of Precond).
	PrecondFull *mat.SymDense
	// PrecondDense is PrecondFull's old name.
	//
	// Deprecated: use PrecondFull (the name of every sampler).
	PrecondDense *mat.SymDense
	Adapt

	noCorrection bool // test hook: drop q from α (the wrong sampler)
}

// StatNames implements langevin.Sampler.
func (s MALA) StatNames() []string { return []string{"lp__", "accept_stat__", "stepsize__"} }

// NewChain implements langevin.Sampler.
func (s MALA) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if err := checkStep("MALA step", s.Step); err != nil {
		return nil, err
	}
	cfg, err := s.Adapt.validate(0.574, MetricFixed)
	if err != nil {
		return nil, err
	}
	full, err := alias("MALA", "PrecondFull", s.PrecondFull, "PrecondDense", s.PrecondDense)
	if err != nil {
		return nil, err
	}
	st, err := newExactState(m, theta0, true, s.Precond, full, cfg.Metric, "MALA preconditioner")
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	c := &malaChain{exactState: st, rng: rng, noCorr: s.noCorrection,
		prop: make([]float64, d), gprop: make([]float64, d), lstep: newLangevinStep(st.met)}
	c.exactState.logAccept = c.propose
	if err := c.startMetropolis(cfg, s.Step); err != nil {
		return nil, err
	}
	return c, nil
}

type malaChain struct {
	*exactState
	rng         *rand.Rand
	noCorr      bool
	prop, gprop []float64
	lpProp      float64
	lstep       *langevinStep // over the metric (adapted in warm-up)
}

// propose draws θ' with step eta into c.prop and returns log α.
func (c *malaChain) propose(eta float64) float64 {
	c.lstep.propose(c.prop, c.theta, c.grad, eta, math.Sqrt(2*eta), c.rng)
	var fwd float64
	for _, z := range c.lstep.xi {
		fwd -= 0.5 * z * z
	}
	c.lpProp = langevin.LogPosterior(c.m, c.prop, c.gprop)
	if math.IsNaN(c.lpProp) || math.IsInf(c.lpProp, 0) {
		return math.Inf(-1)
	}
	logA := c.lpProp - c.lp
	if c.noCorr {
		return logA
	}
	// log q(θ|θ') = −‖L⁻¹(θ − θ' − ηM∇log π(θ'))‖² / (4η).
	mg, r := c.lstep.mg, c.lstep.xi
	c.met.mul(mg, c.gprop)
	for j, x := range c.theta {
		r[j] = x - c.prop[j] - eta*mg[j]
	}
	c.met.solveL(r, r)
	var bwd float64
	for _, r := range r {
		bwd -= r * r
	}
	return logA + bwd/(4*eta) - fwd
}

func (c *malaChain) Step() error {
	eta := c.step
	c.used = eta
	if c.accept(c.propose(eta), c.rng) {
		c.theta, c.prop = c.prop, c.theta
		c.grad, c.gprop = c.gprop, c.grad
		c.lp = c.lpProp
	}
	return c.adapt()
}

func (c *malaChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2] = c.lp, c.stat, c.used
}
