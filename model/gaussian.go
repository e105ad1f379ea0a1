package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Gaussian is the toy target N(μ, Σ) on θ ∈ ℝᵈ, written as a model with one
// observation and a flat prior so that the posterior is exactly N(μ, Σ):
//
//	LogPrior(θ) ≡ 0,
//	LogLik(θ, B) = |B| log N(θ; μ, Σ)
//	             = |B| (−(d/2) log 2π − ½ log|Σ| − ½ (θ − μ)ᵀΣ⁻¹(θ − μ)),
//	∇ = −|B| Σ⁻¹(θ − μ),
//
// where |B| is the number of batch entries (their values are ignored) and a
// nil batch counts once. Len is 1, so full-batch and minibatch samplers see
// the same target; a chain at temperature τ targets N(μ, τΣ). The parameters
// are named theta.1, …, theta.d.
type Gaussian struct {
	mu    []float64
	cov   *mat.SymDense
	prec  []float64 // Σ⁻¹, d×d row-major
	lower []float64 // Cholesky factor L of Σ = LLᵀ, d×d row-major
	c     float64   // −(d/2) log 2π − ½ log|Σ|
}

// NewGaussian returns the target N(mu, cov). cov must be symmetric positive
// definite with the dimension of mu; both are copied.
func NewGaussian(mu []float64, cov *mat.SymDense) (*Gaussian, error) {
	d := len(mu)
	if d == 0 {
		return nil, fmt.Errorf("model: Gaussian: empty mean")
	}
	if cov == nil || cov.SymmetricDim() != d {
		n := 0
		if cov != nil {
			n = cov.SymmetricDim()
		}
		return nil, fmt.Errorf("model: Gaussian: mean has %d entries, covariance is %d×%d", d, n, n)
	}
	for j, v := range mu {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("model: Gaussian: mean[%d] = %v: expected a finite number", j, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		return nil, fmt.Errorf("model: Gaussian: covariance is not positive definite")
	}
	var p mat.SymDense
	if err := chol.InverseTo(&p); err != nil {
		return nil, fmt.Errorf("model: Gaussian: covariance: %v", err)
	}
	var l mat.TriDense
	chol.LTo(&l)
	g := &Gaussian{
		mu:    append([]float64(nil), mu...),
		cov:   mat.NewSymDense(d, nil),
		prec:  make([]float64, d*d),
		lower: make([]float64, d*d),
		c:     -float64(d)/2*log2Pi - 0.5*chol.LogDet(),
	}
	g.cov.CopySym(cov)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.prec[i*d+j] = p.At(i, j)
			g.lower[i*d+j] = l.At(i, j)
		}
	}
	return g, nil
}

// Dim returns d.
func (g *Gaussian) Dim() int { return len(g.mu) }

// Len returns 1.
func (g *Gaussian) Len() int { return 1 }

// ParamNames returns theta.1, …, theta.d.
func (g *Gaussian) ParamNames() []string {
	names := make([]string, len(g.mu))
	for i := range names {
		names[i] = "theta." + strconv.Itoa(i+1)
	}
	return names
}

// Mean returns a copy of μ.
func (g *Gaussian) Mean() []float64 { return append([]float64(nil), g.mu...) }

// Cov returns a copy of Σ.
func (g *Gaussian) Cov() *mat.SymDense {
	c := mat.NewSymDense(len(g.mu), nil)
	c.CopySym(g.cov)
	return c
}

// Precision returns a copy of Σ⁻¹.
func (g *Gaussian) Precision() *mat.SymDense {
	d := len(g.mu)
	return mat.NewSymDense(d, append([]float64(nil), g.prec...))
}

// LogPrior returns 0 and leaves grad untouched.
func (g *Gaussian) LogPrior(theta, grad []float64) float64 { return 0 }

// LogLik returns |batch| log N(θ; μ, Σ) (once for a nil batch) and adds its
// gradient −|batch| Σ⁻¹(θ − μ) into grad.
func (g *Gaussian) LogLik(theta []float64, batch []int, grad []float64) float64 {
	k := 1.0
	if batch != nil {
		k = float64(len(batch))
	}
	d := len(g.mu)
	mu := g.mu
	theta = theta[:d]
	var q float64
	for i := 0; i < d; i++ {
		row := g.prec[i*d : i*d+d]
		var t float64 // (Σ⁻¹(θ − μ))ᵢ
		for j, p := range row {
			t += p * (theta[j] - mu[j])
		}
		q += (theta[i] - mu[i]) * t
		if grad != nil {
			grad[i] -= k * t
		}
	}
	return k * (g.c - 0.5*q)
}

// Rand draws θ ~ N(μ, Σ) into dst.
func (g *Gaussian) Rand(dst []float64, rng *rand.Rand) {
	d := len(g.mu)
	z := dst[:d]
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- {
		row := g.lower[i*d : i*d+i+1]
		var s float64
		for j, l := range row {
			s += l * z[j]
		}
		z[i] = g.mu[i] + s
	}
}
