package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// ConstSGD is constant-rate SGD used as an approximate posterior sampler
// (Mandt, Hoffman & Blei 2017): its iterates are draws from its stationary
// distribution, which the step size and preconditioner tune to be close in KL
// to the posterior. With preconditioner M (identity, diagonal or full) and
// optional momentum μ:
//
//	θ ← θ + η M ĝ(θ)                          (Momentum = 0)
//	v ← (1 − μ) v + η M ĝ(θ),  θ ← θ + v       (Momentum = μ ∈ (0, 1])
//
// with ĝ the minibatch gradient of the log posterior (scaled by N/|B|) and no
// injected noise. On a quadratic log posterior with precision Λ and gradient
// noise Cov(ĝ) = C, the stationary covariance Σ solves, in the
// Ornstein–Uhlenbeck limit (eq. 13; [approx.SolveLyapunov] for M = I),
//
//	MΛΣ + ΣΛM = (η/μ) M C M     (μ = 1 without momentum).
//
// Only η/μ matters with momentum (eq. 25). The settings that minimise
// KL(stationary ‖ posterior) are [OptimalStep] (Theorem 1), [OptimalDiag]
// (Corollary 3), [OptimalFull] (Theorem 2: then Σ = Λ⁻¹ exactly) and
// [OptimalSqrt] (Theorem 7). In Mandt et al.'s units the step is ε = Nη and
// their preconditioner H = NηM (see [GradCov] for the conversion).
//
// Per-draw statistics: lp__ (minibatch estimate of log p(θ|D) before the
// step) and stepsize__ (η).
type ConstSGD struct {
	Eta         float64       // η > 0
	Batch       Minibatch     // Size ≥ 1: constant SGD needs minibatch noise
	Precond     []float64     // diagonal M; nil: identity
	PrecondFull *mat.SymDense // full M (takes precedence over Precond)
	Momentum    float64       // μ; 0: plain SGD
}

// StatNames implements langevin.Sampler.
func (s ConstSGD) StatNames() []string { return []string{"lp__", "stepsize__"} }

// NewChain implements langevin.Sampler.
func (s ConstSGD) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if !(s.Eta > 0) || math.IsInf(s.Eta, 0) {
		return nil, fmt.Errorf("sampler: constant SGD step η = %v: expected a positive finite number", s.Eta)
	}
	if !(s.Momentum >= 0 && s.Momentum <= 1) {
		return nil, fmt.Errorf("sampler: momentum μ = %v: expected 0 ≤ μ ≤ 1 (0 for none)", s.Momentum)
	}
	g, err := newGradChain(m, theta0, s.Batch, schedule.Constant(s.Eta), Clipping{}, rng)
	if err != nil {
		return nil, err
	}
	c := &constChain{gradChain: g}
	d := m.Dim()
	if c.met, err = checkPrecond(d, s.Precond, s.PrecondFull); err != nil {
		return nil, err
	}
	c.mg = make([]float64, d)
	if s.Momentum > 0 {
		c.mu = s.Momentum
		c.v = make([]float64, d)
	}
	return c, nil
}

// checkPrecond validates a diagonal or full preconditioner and returns it
// as a metric with only M (mul; no factor): the identity when both are nil.
func checkPrecond(d int, diag []float64, full *mat.SymDense) (*metric, error) {
	mt := &metric{d: d, diag: make([]float64, d)}
	for j := range mt.diag {
		mt.diag[j] = 1
	}
	if full != nil {
		if full.SymmetricDim() != d {
			return nil, fmt.Errorf("sampler: preconditioner is %d×%d, model has %d parameters", full.SymmetricDim(), full.SymmetricDim(), d)
		}
		var chol mat.Cholesky
		if !chol.Factorize(full) {
			return nil, fmt.Errorf("sampler: full preconditioner is not positive definite")
		}
		mt.dense, mt.m = true, make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				mt.m[i*d+j] = full.At(i, j)
			}
		}
		return mt, nil
	}
	if err := checkDiag(diag, d, "preconditioner"); err != nil {
		return nil, err
	}
	if diag != nil {
		copy(mt.diag, diag)
	}
	return mt, nil
}

type constChain struct {
	*gradChain
	met *metric // M (identity, diagonal or dense)
	mg  []float64
	mu  float64
	v   []float64
}

func (c *constChain) Step() error {
	eta := c.gradient()
	c.met.mul(c.mg, c.grad)
	if c.v == nil {
		for j, g := range c.mg {
			c.theta[j] += eta * g
		}
	} else {
		for j, g := range c.mg {
			c.v[j] = (1-c.mu)*c.v[j] + eta*g
			c.theta[j] += c.v[j]
		}
	}
	return diverged("constant SGD", c.t, c.theta, "step too large?")
}

func (c *constChain) Position() []float64 { return c.theta }

func (c *constChain) Stats(dst []float64) { dst[0], dst[1] = c.lp, c.eta }

// OptimalStep returns the KL-optimal constant step of plain SGD (Mandt et
// al. 2017, Theorem 1, eq. 15), converted to our units:
//
//	ε* = 2 (S/N) D / Tr(BBᵀ)   ⇒   η* = ε*/N = 2 S D / (N² Tr V) = 2D / Tr Cov(ĝ),
//
// where V is the per-observation gradient covariance ([GradCov], their BBᵀ),
// N the number of observations and S the batch size. (On a quadratic log
// posterior Σ(η) = ηΣ₁ by eq. 13, so KL(N(·, Σ) ‖ N(·, Λ⁻¹)) =
// ½[η Tr Cov(ĝ)/2 − D log η] + const, minimised at η*.)
func OptimalStep(V mat.Symmetric, n, s int) float64 {
	D := V.SymmetricDim()
	var tr float64
	for j := 0; j < D; j++ {
		tr += V.At(j, j)
	}
	nf := float64(n)
	return 2 * float64(s) * float64(D) / (nf * nf * tr)
}

// OptimalDiag returns the KL-optimal diagonal preconditioner (Corollary 3,
// H_kk = 2S/(N·BBᵀ_kk)) in our units, for use with η = 1:
//
//	M_kk = H_kk/N = 2S/(N² V_kk) = 2 / Cov(ĝ)_kk.
func OptimalDiag(V mat.Symmetric, n, s int) []float64 {
	D := V.SymmetricDim()
	nf := float64(n)
	out := make([]float64, D)
	for k := range out {
		out[k] = 2 * float64(s) / (nf * nf * V.At(k, k))
	}
	return out
}

// OptimalFull returns the KL-optimal full preconditioner (Theorem 2,
// H = (2S/N)(BBᵀ)⁻¹) in our units, for use with η = 1:
//
//	M = H/N = (2S/N²) V⁻¹ = 2 Cov(ĝ)⁻¹.
//
// On a quadratic log posterior the stationary covariance is then exactly
// the posterior's, whatever Λ (Corollary 4): MΛΛ⁻¹ + Λ⁻¹ΛM = 2M = M Cov(ĝ) M.
func OptimalFull(V mat.Symmetric, n, s int) (*mat.SymDense, error) {
	var chol mat.Cholesky
	if !chol.Factorize(V) {
		return nil, fmt.Errorf("sampler: full preconditioner: the gradient covariance is not positive definite")
	}
	inv := mat.NewSymDense(V.SymmetricDim(), nil)
	if err := chol.InverseTo(inv); err != nil {
		return nil, fmt.Errorf("sampler: full preconditioner: %v", err)
	}
	nf := float64(n)
	inv.ScaleSym(2*float64(s)/(nf*nf), inv)
	return inv, nil
}

// OptimalSqrt returns the square-root preconditioner G⁻¹ = diag(V_kk)^(−1/2)
// (the AdaGrad/RMSProp-like choice) together with its KL-optimal step
// (Theorem 7, eq. 47). For a fixed preconditioner G⁻¹ the Lyapunov equation
// gives Tr(ΛΣ) = (η/2) Tr(G⁻¹ Cov(ĝ)) and Σ ∝ η, hence
//
//	ε* = 2 S D / (N Tr(G⁻¹BBᵀ))   ⇒   η* = 2 S D / (N² Σ_k √V_kk).
func OptimalSqrt(V mat.Symmetric, n, s int) (eta float64, precond []float64) {
	D := V.SymmetricDim()
	precond = make([]float64, D)
	var tr float64
	for k := range precond {
		r := math.Sqrt(V.At(k, k))
		precond[k] = 1 / r
		tr += r
	}
	nf := float64(n)
	return 2 * float64(s) * float64(D) / (nf * nf * tr), precond
}
