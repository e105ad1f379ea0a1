package langevin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Model is a Bayesian model whose log posterior is log p(θ) + Σᵢ log p(zᵢ|θ).
//
// Parameterisation. θ ∈ ℝᵈ is the unconstrained vector the samplers move:
// every coordinate may take any real value. A constrained parameter (a scale
// σ > 0, a probability, a simplex, a correlation matrix) is a transform
// y = f(θ) of it — package transform has Stan's transforms and a layout of
// named blocks — and the density of θ is p(f(θ)) |det ∂f/∂θ|.
//
// The log Jacobian log|det ∂f/∂θ| belongs in LogPrior, never in LogLik: the
// stochastic-gradient samplers estimate the log posterior as
// log p(θ) + (N/|B|) Σ_{i∈B} log p(zᵢ|θ), so a Jacobian in LogLik would count
// N/|B| times under SGLD (the exact samplers, which use the whole data, would
// not notice — a slip only SG-MCMC reveals).
//
// Gradients are accumulated: both methods add their gradient into grad, which
// must have length Dim, and leave it untouched when grad is nil. A nil grad asks
// for the value only, and implementations should then skip gradient work.
// Implementations must not retain theta, grad or batch, and must not allocate
// when called with a non-nil grad (the sampler hot loop calls them every step).
//
// Concurrency. Run shares one Model value among its chains, which call it
// from several goroutines at once, so LogPrior and LogLik must be safe for
// concurrent use: read-only fields only. Scratch space must not live in the
// struct (chains would race on it) but come from a sync.Pool (Get at the
// start of a call, Put at the end: no allocation once the pool is warm), or
// from the stack. Package ad's models do this with one tape per call.
type Model interface {
	// Dim is the number of parameters d.
	Dim() int
	// Len is the number of observations N.
	Len() int
	// LogPrior returns log p(θ) up to an additive constant and adds ∇log p(θ)
	// into grad.
	LogPrior(theta, grad []float64) float64
	// LogLik returns Σ_{i∈batch} log p(zᵢ|θ) up to an additive constant and adds
	// its gradient into grad. A nil batch means all N observations. Indices
	// may repeat (batches drawn with replacement).
	LogLik(theta []float64, batch []int, grad []float64) float64
}

// PairLogLik is implemented by models that can evaluate one batch at two
// points in one pass over its observations: LogLikPair(a, b, batch, ga, gb)
// returns LogLik(a, batch, ga) and LogLik(b, batch, gb), the same values
// bit for bit, adding the gradients into ga and gb (either may be nil). A
// model whose rows are read from disk reads each row once instead of twice;
// the control-variate estimator, which evaluates every batch at θ and at its
// centre, uses it.
type PairLogLik interface {
	LogLikPair(a, b []float64, batch []int, ga, gb []float64) (la, lb float64)
}

// RowLogLiker is implemented by models whose log-likelihood is a sum of
// normalised terms, one per row: RowLogLik writes log p(y_rows[j] | θ),
// constants included, into dst[j], so that Σⱼ dst[j] = LogLik(θ, rows, nil).
// Leave-one-out cross-validation (package loo) needs it.
type RowLogLiker interface {
	RowLogLik(dst, theta []float64, rows []int)
}

// RowCDFer is implemented by models that give each row's predictive
// distribution function at its observed response, P(Yᵢ ≤ yᵢ | θ), written
// into dst[j] for row rows[j]: the LOO probability integral transform is its
// weighted mean over the draws (loo.PIT's expectation over replicated data).
type RowCDFer interface {
	RowCDF(dst, theta []float64, rows []int)
}

// ParamNamer is implemented by models that name their parameters. Names are
// stable and are the CmdStan CSV column names (for example "beta.1", "sigma2").
type ParamNamer interface {
	ParamNames() []string
}

// PriorSampler is implemented by models that can draw θ from their prior.
type PriorSampler interface {
	SamplePrior(dst []float64, rng *rand.Rand)
}

// Deriver is implemented by models with derived quantities (for example σ² from
// the sampled log σ²). Run stores them after the parameters in every draw.
type Deriver interface {
	DerivedNames() []string
	// Derive writes the derived quantities at θ into dst (len(DerivedNames())).
	Derive(theta, dst []float64)
}

// ParamNames returns the model's parameter names, or theta.1 … theta.d when the
// model does not name them.
func ParamNames(m Model) []string {
	if n, ok := m.(ParamNamer); ok {
		return n.ParamNames()
	}
	names := make([]string, m.Dim())
	for i := range names {
		names[i] = "theta." + strconv.Itoa(i+1)
	}
	return names
}

// LogPosterior returns log p(θ) + Σᵢ log p(zᵢ|θ) on all data and, when grad is
// not nil, overwrites grad with its gradient.
func LogPosterior(m Model, theta, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	return m.LogPrior(theta, grad) + m.LogLik(theta, nil, grad)
}

// GradientError reports a disagreement between a model's analytic gradient and
// central finite differences.
type GradientError struct {
	Term     string // "prior" or "likelihood" or "value"
	Index    int    // parameter index
	Name     string // parameter name
	Analytic float64
	Numeric  float64
	RelErr   float64 // |Analytic − Numeric| / max(1, |Analytic|, |Numeric|)
	// Rounding is the allowance ρ for the rounding error of the finite
	// difference (see CheckGradient), in the units of the gradient.
	Rounding float64
}

func (e *GradientError) Error() string {
	if e.Term == "value" {
		return fmt.Sprintf("langevin: %s value with gradient (%g) differs from value without (%g)", e.Name, e.Analytic, e.Numeric)
	}
	return fmt.Sprintf("langevin: %s gradient of %s (index %d): analytic %.10g, finite difference %.10g, relative error %.3g (rounding allowance %.3g)",
		e.Term, e.Name, e.Index, e.Analytic, e.Numeric, e.RelErr, e.Rounding)
}

// CheckGradient compares the analytic gradients of m's log prior and of its log
// likelihood on batch (nil = all data) at theta with central finite differences
//
//	∂f/∂θⱼ ≈ (f(θ + hⱼ eⱼ) − f(θ − hⱼ eⱼ)) / 2hⱼ,  hⱼ = 6.06e-6 · max(1, |θⱼ|),
//
// and returns a *GradientError for the first component whose analytic value a
// and finite difference n disagree by more than
//
//	|a − n| ≤ tol · max(1, |a|, |n|) + ρⱼ,  ρⱼ = √k · ε · max|f(θ ± hⱼ eⱼ)| / hⱼ,
//
// with ε = 2⁻⁵² the machine epsilon and k the number of terms summed in f
// (the batch size, or Len for the full data; Dim for the prior). ρⱼ is the
// rounding error of the difference quotient: f(θ ± hⱼeⱼ) are each computed
// with an absolute error of about ε|f| per rounding, and a sum of k terms
// accumulates k roundings like a random walk, √k ε |f| (Higham, Accuracy and
// Stability of Numerical Algorithms, §4.2); dividing by 2hⱼ magnifies it
// 1/(2hⱼ)-fold. Without ρ an exact gradient of a large-data log likelihood
// fails: for yᵢ ~ N(θ, I₂) at N = 10⁶ and θ = ȳ, |f| ≈ 2.8·10⁶ and the
// finite difference of the zero gradient is 2e-3 (ρ ≈ 3.5e-2). tol = 1e-6
// is a good default for smooth models; the allowance stays far below the size
// of a real slip away from a stationary point (a 1% error in one component
// at N = 10⁵ is caught, see the tests), but at a stationary point a relative
// error in a zero gradient is invisible, so check at several points
// (CheckGradientNear). It also checks that value-only calls (nil grad)
// return the same values, and that gradients are added into grad rather than
// overwriting it.
func CheckGradient(m Model, theta []float64, batch []int, tol float64) error {
	d := m.Dim()
	if len(theta) != d {
		return fmt.Errorf("langevin: CheckGradient: len(theta) = %d, model has %d parameters", len(theta), d)
	}
	names := ParamNames(m)
	nLik := len(batch)
	if batch == nil {
		nLik = m.Len()
	}
	terms := []struct {
		name string
		f    func(th, g []float64) float64
		k    int
	}{
		{"prior", m.LogPrior, d},
		{"likelihood", func(th, g []float64) float64 { return m.LogLik(th, batch, g) }, nLik},
	}
	th := append([]float64(nil), theta...)
	g := make([]float64, d)
	for _, term := range terms {
		const offset = 0.5 // gradients must be added, not written
		for j := range g {
			g[j] = offset
		}
		v := term.f(th, g)
		if v0 := term.f(th, nil); v0 != v && !(math.IsNaN(v) && math.IsNaN(v0)) {
			return &GradientError{Term: "value", Name: term.name, Analytic: v, Numeric: v0}
		}
		sqrtK := math.Sqrt(float64(max(1, term.k)))
		for j := 0; j < d; j++ {
			a := g[j] - offset
			h := 6.06e-6 * math.Max(1, math.Abs(theta[j]))
			th[j] = theta[j] + h
			fp := term.f(th, nil)
			th[j] = theta[j] - h
			fm := term.f(th, nil)
			th[j] = theta[j]
			num := (fp - fm) / (2 * h)
			rho := sqrtK * epsMach * math.Max(math.Abs(fp), math.Abs(fm)) / h
			diff := math.Abs(a - num)
			scale := math.Max(1, math.Max(math.Abs(a), math.Abs(num)))
			if !(diff <= tol*scale+rho) {
				return &GradientError{Term: term.name, Index: j, Name: names[j], Analytic: a, Numeric: num, RelErr: diff / scale, Rounding: rho}
			}
		}
	}
	return nil
}

// epsMach is the float64 machine epsilon 2⁻⁵².
const epsMach = 0x1p-52

// CheckGradientNear runs CheckGradient at k points θ₀ + s ⊙ ξ, ξ ~ N(0, I)
// drawn from rng (s = scale, nil meaning 1 in every coordinate; a posterior
// sd or a prior scale is a good choice): a gradient that is right only at θ₀
// — for example a wrong gradient that vanishes at a stationary point θ₀ —
// fails. It returns the first failure, wrapped with the point's number and
// coordinates.
func CheckGradientNear(m Model, theta0, scale []float64, k int, rng *rand.Rand, batch []int, tol float64) error {
	d := m.Dim()
	switch {
	case len(theta0) != d:
		return fmt.Errorf("langevin: CheckGradientNear: len(theta0) = %d, model has %d parameters", len(theta0), d)
	case scale != nil && len(scale) != d:
		return fmt.Errorf("langevin: CheckGradientNear: len(scale) = %d, model has %d parameters", len(scale), d)
	case k < 1:
		return fmt.Errorf("langevin: CheckGradientNear: %d points: expected at least 1", k)
	}
	th := make([]float64, d)
	for p := 1; p <= k; p++ {
		for j := range th {
			s := 1.0
			if scale != nil {
				s = scale[j]
			}
			th[j] = theta0[j] + s*rng.NormFloat64()
		}
		if err := CheckGradient(m, th, batch, tol); err != nil {
			return fmt.Errorf("langevin: point %d of %d, θ = %.6g: %w", p, k, th, err)
		}
	}
	return nil
}
