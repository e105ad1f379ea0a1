package langevin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Model is a Bayesian model whose log posterior is log p(θ) + Σᵢ log p(zᵢ|θ).
//
// Gradients are accumulated: both methods add their gradient into grad, which
// must have length Dim, and leave it untouched when grad is nil. A nil grad asks
// for the value only, and implementations should then skip gradient work.
// Implementations must not retain theta, grad or batch, and must not allocate
// when called with a non-nil grad (the sampler hot loop calls them every step).
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
	RelErr   float64
}

func (e *GradientError) Error() string {
	if e.Term == "value" {
		return fmt.Sprintf("langevin: %s value with gradient (%g) differs from value without (%g)", e.Name, e.Analytic, e.Numeric)
	}
	return fmt.Sprintf("langevin: %s gradient of %s (index %d): analytic %.10g, finite difference %.10g, relative error %.3g",
		e.Term, e.Name, e.Index, e.Analytic, e.Numeric, e.RelErr)
}

// CheckGradient compares the analytic gradients of m's log prior and of its log
// likelihood on batch (nil = all data) at theta with central finite differences
//
//	∂f/∂θⱼ ≈ (f(θ + h eⱼ) − f(θ − h eⱼ)) / 2h,  h = 6.06e-6 · max(1, |θⱼ|),
//
// and returns a *GradientError for the first component whose relative error
// |a − n| / max(1, |a|, |n|) exceeds tol (1e-6 is a good default for smooth
// models). It also checks that value-only calls (nil grad) return the same
// values, and that gradients are added into grad rather than overwriting it.
func CheckGradient(m Model, theta []float64, batch []int, tol float64) error {
	d := m.Dim()
	if len(theta) != d {
		return fmt.Errorf("langevin: CheckGradient: len(theta) = %d, model has %d parameters", len(theta), d)
	}
	names := ParamNames(m)
	terms := []struct {
		name string
		f    func(th, g []float64) float64
	}{
		{"prior", m.LogPrior},
		{"likelihood", func(th, g []float64) float64 { return m.LogLik(th, batch, g) }},
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
		for j := 0; j < d; j++ {
			a := g[j] - offset
			h := 6.06e-6 * math.Max(1, math.Abs(theta[j]))
			th[j] = theta[j] + h
			fp := term.f(th, nil)
			th[j] = theta[j] - h
			fm := term.f(th, nil)
			th[j] = theta[j]
			num := (fp - fm) / (2 * h)
			rel := math.Abs(a-num) / math.Max(1, math.Max(math.Abs(a), math.Abs(num)))
			if !(rel <= tol) {
				return &GradientError{Term: term.name, Index: j, Name: names[j], Analytic: a, Numeric: num, RelErr: rel}
			}
		}
	}
	return nil
}
