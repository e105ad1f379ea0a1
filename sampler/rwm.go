package sampler

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// RWM is random-walk Metropolis (seed report eqs. 7–9) on the full-data log
// posterior log π(θ) = log p(θ) + Σᵢ log p(zᵢ|θ). From θ it proposes
//
//	θ' = θ + σ √M ξ,  ξ ~ N(0, I),
//
// with an optional diagonal scale M (the identity by default), and accepts
// with probability min(1, π(θ')/π(θ)) (the proposal is symmetric). Its step
// size is σ, the proposal standard deviation, not a drift coefficient.
//
// With Adapt, σ is tuned during warm-up toward a mean acceptance statistic of
// 0.234 (Roberts, Gelman & Gilks 1997), and with Adapt.Metric = MetricDiag
// the diagonal M is estimated in Stan's windows (then σ ≈ 2.38/√d).
//
// Per-draw statistics: lp__ (log π at the current θ), accept_stat__
// (min(1, π(θ')/π(θ)) of the last proposal), stepsize__ (σ).
type RWM struct {
	// Step is the initial σ; 0 finds one by Stan's doubling heuristic.
	Step float64
	// Precond is the diagonal of M, the proposal's covariance σ²M; nil
	// means the identity.
	Precond []float64
	// PrecondFull, if not nil, is a dense M (instead of Precond).
	PrecondFull *mat.SymDense
	// Scale and ScaleDense are Precond's and PrecondFull's old names.
	//
	// Deprecated: use Precond and PrecondFull (the names of every sampler).
	Scale      []float64
	ScaleDense *mat.SymDense
	Adapt
}

// StatNames implements langevin.Sampler.
func (s RWM) StatNames() []string { return []string{"lp__", "accept_stat__", "stepsize__"} }

// NewChain implements langevin.Sampler.
func (s RWM) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if err := checkStep("RWM step σ", s.Step); err != nil {
		return nil, err
	}
	cfg, err := s.Adapt.validate(0.234, MetricFixed)
	if err != nil {
		return nil, err
	}
	pre, err := aliasSlice("RWM", "Precond", s.Precond, "Scale", s.Scale)
	if err != nil {
		return nil, err
	}
	full, err := alias("RWM", "PrecondFull", s.PrecondFull, "ScaleDense", s.ScaleDense)
	if err != nil {
		return nil, err
	}
	st, err := newExactState(m, theta0, false, pre, full, cfg.Metric, "RWM scale")
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	c := &rwmChain{exactState: st, rng: rng, prop: make([]float64, d), z: make([]float64, d), lz: make([]float64, d)}
	c.exactState.logAccept = c.propose
	if err := c.startMetropolis(cfg, s.Step); err != nil {
		return nil, err
	}
	return c, nil
}

type rwmChain struct {
	*exactState
	rng    *rand.Rand
	prop   []float64
	lpProp float64
	z, lz  []float64 // scratch: ξ, Lξ
}

// propose draws θ' with scale sigma into c.prop and returns log α.
func (c *rwmChain) propose(sigma float64) float64 {
	for j := range c.z {
		c.z[j] = c.rng.NormFloat64()
	}
	c.met.mulL(c.lz, c.z)
	for j, x := range c.theta {
		c.prop[j] = x + sigma*c.lz[j]
	}
	c.lpProp = langevin.LogPosterior(c.m, c.prop, nil)
	if math.IsNaN(c.lpProp) || math.IsInf(c.lpProp, 0) {
		return math.Inf(-1)
	}
	return c.lpProp - c.lp
}

func (c *rwmChain) Step() error {
	sigma := c.step
	c.used = sigma
	if c.accept(c.propose(sigma), c.rng) {
		c.theta, c.prop = c.prop, c.theta
		c.lp = c.lpProp
	}
	return c.adapt()
}

func (c *rwmChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2] = c.lp, c.stat, c.used
}
