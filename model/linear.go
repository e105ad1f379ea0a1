package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// LinearOptions are the settings of a [Linear] model. The zero value is the
// default: an intercept and the prior β | σ² ~ N(0, 100σ² I), σ² ~ IG(1, 1).
type LinearOptions struct {
	// NoIntercept drops the intercept, which is on by default.
	NoIntercept bool
	// Mu is the prior mean μ of β, intercept included (length d); nil means 0.
	Mu []float64
	// V is the prior variance scale v in V = v·I; 0 means 100.
	V float64
	// Phi and Psi are the shape φ and scale ψ of the inverse-gamma prior of
	// σ²; 0 means 1.
	Phi, Psi float64
	// Flat replaces the prior by the flat improper prior p(β, log σ²) ∝ 1,
	// so that LogPrior ≡ 0 and the posterior mode is the maximum-likelihood
	// estimate. Flat needs n > d and X (with the intercept) of full column
	// rank, so that the posterior is proper.
	Flat bool
}

// Linear is the Bayesian normal linear regression model
//
//	yᵢ | β, σ² ~ N(xᵢᵀβ, σ²),            i = 1, …, n,
//	β | σ² ~ N(μ, σ²V),  V = v·I,
//	σ² ~ IG(φ, ψ),  p(σ²) = ψ^φ/Γ(φ) (σ²)^(−φ−1) exp(−ψ/σ²),
//
// where xᵢ includes a leading 1 when the model has an intercept and d is the
// number of coefficients (intercept included). It is sampled in the
// unconstrained coordinates w = (β, γ), γ = log σ², so the prior density on w
// carries the Jacobian dσ²/dγ = e^γ:
//
//	log p(w) = −(d/2) log 2π − (d/2) log v − (d/2) γ − e^(−γ) ‖β − μ‖²/(2v)
//	           + φ log ψ − log Γ(φ) − (φ + 1) γ − ψ e^(−γ) + γ,
//	∂/∂β log p(w) = −e^(−γ) (β − μ)/v,
//	∂/∂γ log p(w) = −d/2 + e^(−γ) ‖β − μ‖²/(2v) − (φ + 1) + ψ e^(−γ) + 1,
//
// and, for each observation with residual rᵢ = yᵢ − xᵢᵀβ,
//
//	log p(yᵢ | w) = −½ log 2π − γ/2 − e^(−γ) rᵢ²/2,
//	∂/∂β = e^(−γ) rᵢ xᵢ,  ∂/∂γ = −½ + e^(−γ) rᵢ²/2.
//
// With [LinearOptions].Flat the prior is p(w) ∝ 1 instead (flat in β and in
// log σ², that is p(σ²) ∝ 1/σ²), LogPrior ≡ 0 and the posterior mode in w is
// the maximum-likelihood estimate.
//
// The parameters are w = (intercept, beta.1, …, beta.p, log_sigma2) with
// Dim = d + 1; σ² = e^γ is the derived quantity "sigma2". The exact posterior
// is given by [Linear.Posterior].
type Linear struct {
	design
	y        []float64
	mu       []float64 // prior mean of β (length d)
	v        float64
	phi, psi float64
	flat     bool
	priorC   float64 // −(d/2) log 2π − (d/2) log v + φ log ψ − log Γ(φ)
}

// NewLinear returns the linear regression of y on the columns of X (shared when X is contiguous: X must not change while the model is in use).
func NewLinear(X *mat.Dense, y []float64, opt LinearOptions) (*Linear, error) {
	if y == nil {
		return nil, fmt.Errorf("model: linear regression: no responses")
	}
	ds, err := newDesign("linear regression", X, y, !opt.NoIntercept)
	if err != nil {
		return nil, err
	}
	m := &Linear{design: ds, y: append([]float64(nil), y...), v: opt.V, phi: opt.Phi, psi: opt.Psi, flat: opt.Flat}
	d := ds.coef()
	if m.v == 0 {
		m.v = 100
	}
	if m.phi == 0 {
		m.phi = 1
	}
	if m.psi == 0 {
		m.psi = 1
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"prior variance scale V", m.v}, {"prior shape Phi", m.phi}, {"prior scale Psi", m.psi}} {
		if !(p.v > 0) || math.IsInf(p.v, 1) {
			return nil, fmt.Errorf("model: linear regression: %s = %v: expected a positive finite number (0 for the default)", p.name, p.v)
		}
	}
	m.mu = make([]float64, d)
	if opt.Mu != nil {
		if len(opt.Mu) != d {
			return nil, fmt.Errorf("model: linear regression: prior mean Mu has %d values, model has %d coefficients (intercept included)", len(opt.Mu), d)
		}
		for j, v := range opt.Mu {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("model: linear regression: prior mean Mu[%d] = %v: expected a finite number", j, v)
			}
		}
		copy(m.mu, opt.Mu)
	}
	lg, _ := math.Lgamma(m.phi)
	fd := float64(d)
	m.priorC = -fd/2*log2Pi - fd/2*math.Log(m.v) + m.phi*math.Log(m.psi) - lg
	if m.flat {
		if ds.n <= d {
			return nil, fmt.Errorf("model: linear regression with a flat prior: %d observations for %d coefficients: the posterior is improper unless n > d", ds.n, d)
		}
		var chol mat.Cholesky
		if !chol.Factorize(gram(m.designMatrix(), 0)) {
			return nil, fmt.Errorf("model: linear regression with a flat prior: the features (with the intercept) are collinear, so the posterior is improper")
		}
	}
	return m, nil
}

// Dim returns d + 1, the number of coefficients plus log σ².
func (m *Linear) Dim() int { return m.coef() + 1 }

// Len returns the number of observations n.
func (m *Linear) Len() int { return m.n }

// Intercept reports whether the model has an intercept.
func (m *Linear) Intercept() bool { return m.intercept }

// ParamNames returns intercept, beta.1, …, beta.p, log_sigma2.
func (m *Linear) ParamNames() []string { return append(m.coefNames(), "log_sigma2") }

// DerivedNames returns sigma2.
func (m *Linear) DerivedNames() []string { return []string{"sigma2"} }

// Derive writes σ² = exp(γ) into dst[0].
func (m *Linear) Derive(theta, dst []float64) { dst[0] = math.Exp(theta[m.coef()]) }

// LogPrior returns the log prior density of w = (β, γ), Jacobian included,
// and adds its gradient into grad. With Flat it returns 0 and leaves grad
// untouched.
func (m *Linear) LogPrior(theta, grad []float64) float64 {
	if m.flat {
		return 0
	}
	d := m.coef()
	beta, mu := theta[:d], m.mu[:d]
	g := theta[d]
	eg := math.Exp(-g)
	var ss float64
	for j, b := range beta {
		r := b - mu[j]
		ss += r * r
	}
	q := ss / m.v // (β−μ)ᵀV⁻¹(β−μ)
	fd := float64(d)
	lp := m.priorC - fd/2*g - 0.5*eg*q - m.phi*g - m.psi*eg
	if grad != nil {
		gb := grad[:d]
		c := eg / m.v
		for j, b := range beta {
			gb[j] -= c * (b - mu[j])
		}
		grad[d] += -fd/2 + 0.5*eg*q - m.phi + m.psi*eg
	}
	return lp
}

// LogLik returns Σ_{i∈batch} log N(yᵢ; xᵢᵀβ, e^γ) and adds its gradient into
// grad. A nil batch means all observations.
func (m *Linear) LogLik(theta []float64, batch []int, grad []float64) float64 {
	d := m.coef()
	g := theta[d]
	eg := math.Exp(-g)
	var rss float64
	var b int
	if batch == nil {
		b = m.n
		for i := 0; i < m.n; i++ {
			rss += m.resid(theta, grad, i, eg)
		}
	} else {
		b = len(batch)
		for _, i := range batch {
			rss += m.resid(theta, grad, i, eg)
		}
	}
	fb := float64(b)
	if grad != nil {
		grad[d] += -fb/2 + 0.5*eg*rss
	}
	return -fb/2*(log2Pi+g) - 0.5*eg*rss
}

// resid returns rᵢ² and, when grad is not nil, adds e^(−γ) rᵢ xᵢ into the β
// part of grad.
func (m *Linear) resid(theta, grad []float64, i int, eg float64) float64 {
	p := m.p
	x := m.x[i*p : i*p+p]
	var z float64
	beta := theta
	if m.intercept {
		z = beta[0]
		beta = beta[1:]
	}
	beta = beta[:len(x)]
	for j, v := range x {
		z += v * beta[j]
	}
	r := m.y[i] - z
	if grad != nil {
		c := eg * r
		gb := grad
		if m.intercept {
			gb[0] += c
			gb = gb[1:]
		}
		gb = gb[:len(x)]
		for j, v := range x {
			gb[j] += c * v
		}
	}
	return r * r
}

// SamplePrior draws w = (β, log σ²) from the prior: σ² ~ IG(φ, ψ), then
// β ~ N(μ, σ² v I). The flat prior is improper; with Flat, SamplePrior draws
// from the proper prior that the other options define (as if Flat were
// false), which serves to spread initial points.
func (m *Linear) SamplePrior(dst []float64, rng *rand.Rand) {
	d := m.coef()
	s2 := m.psi / distuv.Gamma{Alpha: m.phi, Beta: 1, Src: rng}.Rand()
	sd := math.Sqrt(s2 * m.v)
	for j := 0; j < d; j++ {
		dst[j] = m.mu[j] + sd*rng.NormFloat64()
	}
	dst[d] = math.Log(s2)
}

// Predict writes the regression means xᵢᵀβ of the rows of X at θ into dst
// (allocated when nil) and returns it.
func (m *Linear) Predict(theta []float64, X *mat.Dense, dst []float64) []float64 {
	checkTheta("linear Predict", theta, m.Dim())
	x, n := m.testRows("linear Predict", X)
	dst = dstLen("linear Predict", dst, n)
	for i := range dst {
		dst[i] = m.linpred(theta, x[i*m.p:(i+1)*m.p])
	}
	return dst
}

// RegressionMean writes the regression means xᵢᵀβ of the rows of X at θ into
// dst (one per row): with NoiseVar, the Linear model is a predict.Regressor.
func (m *Linear) RegressionMean(theta []float64, X *mat.Dense, dst []float64) {
	m.Predict(theta, X, dst)
}

// NoiseVar returns the observation noise variance σ² = exp γ at θ = (β, γ).
func (m *Linear) NoiseVar(theta []float64) float64 { return math.Exp(theta[m.coef()]) }

// designMatrix returns the n×d design matrix, with the column of ones of
// the intercept first.
func (m *Linear) designMatrix() *mat.Dense {
	d := m.coef()
	a := mat.NewDense(m.n, d, nil)
	raw := a.RawMatrix()
	for i := 0; i < m.n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		if m.intercept {
			row[0] = 1
			row = row[1:]
		}
		copy(row, m.x[i*m.p:(i+1)*m.p])
	}
	return a
}

// gram returns XᵀX + c·I for the design matrix xd.
func gram(xd *mat.Dense, c float64) *mat.SymDense {
	_, d := xd.Dims()
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1, xd.T())
	for j := 0; j < d; j++ {
		a.SetSym(j, j, a.At(j, j)+c)
	}
	return a
}
