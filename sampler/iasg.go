package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// IASG is the iterate-averaged stochastic gradient sampler (Mandt, Hoffman &
// Blei 2017, Algorithm 1): constant SGD θ ← θ + η M ĝ(θ) whose draws are the
// means of Window consecutive iterates. One Step runs Window SGD iterations
// and Position returns their mean.
//
// With Window = T = N/S (one pass through the data per draw) the mean's
// covariance is, for a quadratic log posterior with precision Λ and gradient
// noise C = Cov(ĝ) = (N²/S)V, and T much longer than the iterates'
// correlation time 1/(η λ_min(MΛ)),
//
//	Cov(θ̄) ≈ (1/T) Λ⁻¹ C Λ⁻¹ = Λ⁻¹ (N V) Λ⁻¹,
//
// whatever η and M, to first order (the long-run variance of a linear
// recursion does not depend on its step). When the model is well specified,
// N·V ≈ Λ (the Fisher information equals the curvature) and Cov(θ̄) ≈ Λ⁻¹, the
// posterior covariance. The step must be small enough that the randomness of
// the minibatch curvature (N/S)Σ_{i∈B} xᵢxᵢᵀ does not add variance (a
// second-order effect the Ornstein–Uhlenbeck picture ignores: +62% at
// η λ_max(Λ) = 0.5 on §7.2's data with S = 10, D = 10, +9% at 0.1, +5% at
// 0.05) and large enough that T covers many correlation times 1/(η λ_min(MΛ)):
// η λ_max ≈ 0.05 with T = N/S = 1000 does both.
//
// IASG draws its batches with replacement whatever Batch.Replace says: with
// shuffled epochs, a window of one epoch (T = N/S) sums every observation's
// gradient exactly once, the minibatch noise cancels, and the averaged draws
// would be far too concentrated (the test shows a factor 2.3 on §7.2's data).
//
// Per-draw statistics: lp__ (minibatch estimate at the window's last
// iteration) and stepsize__ (η).
type IASG struct {
	Eta     float64
	Batch   Minibatch // Size ≥ 1
	Window  int       // iterates per draw; 0: N/S
	Precond []float64 // diagonal M; nil: identity
}

// StatNames implements langevin.Sampler.
func (s IASG) StatNames() []string { return []string{"lp__", "stepsize__"} }

// NewChain implements langevin.Sampler.
func (s IASG) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if !(s.Eta > 0) || math.IsInf(s.Eta, 0) {
		return nil, fmt.Errorf("sampler: IASG step η = %v: expected a positive finite number", s.Eta)
	}
	if s.Window < 0 {
		return nil, fmt.Errorf("sampler: IASG window %d: expected ≥ 1 (0 for N/S)", s.Window)
	}
	mb := s.Batch
	mb.Replace = true
	g, err := newGradChain(m, theta0, mb, schedule.Constant(s.Eta), Clipping{}, rng)
	if err != nil {
		return nil, err
	}
	w := s.Window
	if w == 0 {
		w = max(1, m.Len()/g.est.Batcher().Size())
	}
	if err := checkDiag(s.Precond, m.Dim(), "preconditioner"); err != nil {
		return nil, err
	}
	pre := append([]float64(nil), s.Precond...) // nil: the identity
	return &iasgChain{gradChain: g, window: w, pre: pre, mean: append([]float64(nil), theta0...)}, nil
}

type iasgChain struct {
	*gradChain
	window int
	pre    []float64
	mean   []float64
}

func (c *iasgChain) Step() error {
	clear(c.mean)
	inv := 1 / float64(c.window)
	for k := 0; k < c.window; k++ {
		eta := c.gradient()
		for j, g := range c.grad {
			if c.pre != nil {
				g *= c.pre[j]
			}
			c.theta[j] += eta * g
			c.mean[j] += inv * c.theta[j]
		}
	}
	return diverged("IASG", c.t, c.theta, "step too large?")
}

func (c *iasgChain) Position() []float64 { return c.mean }

func (c *iasgChain) Stats(dst []float64) { dst[0], dst[1] = c.lp, c.eta }
