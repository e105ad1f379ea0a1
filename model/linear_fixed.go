package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// LinearFixedNoiseOptions are the settings of a [LinearFixedNoise] model. The
// zero value is the default: an intercept, noise variance σ² = 1 and prior
// precision λ = 1 (the quadratic regulariser ½‖β‖² of Mandt et al. 2017).
type LinearFixedNoiseOptions struct {
	// Sigma2 is the known noise variance σ²; 0 means 1.
	Sigma2 float64
	// Precision is the prior precision λ of every coefficient, intercept
	// included; 0 means 1.
	Precision float64
	// NoIntercept drops the intercept, which is on by default.
	NoIntercept bool
}

// LinearFixedNoise is the Gaussian linear regression with known noise
// variance σ² and a Gaussian prior of precision λ,
//
//	yᵢ | β ~ N(xᵢᵀβ, σ²),  β ~ N(0, λ⁻¹ I),
//
// whose log posterior is a quadratic function of β: the posterior is exactly
// Gaussian, N(m, Σ) with Σ = (XᵀX/σ² + λI)⁻¹ and m = Σ Xᵀy/σ² ([LinearFixedNoise.Posterior]),
// and the negative Hessian of the log posterior is the constant Σ⁻¹. It is the
// model on which the Ornstein–Uhlenbeck analysis of constant SGD (Mandt et
// al. 2017, eq. 13) is exact up to discretisation, and the linear model of
// their Table 1 and §7.2.
//
//	log p(β) = −(d/2) log 2π + (d/2) log λ − λ‖β‖²/2,   ∇ = −λβ,
//	log p(yᵢ|β) = −½ log 2πσ² − rᵢ²/(2σ²),  rᵢ = yᵢ − xᵢᵀβ,   ∇ = rᵢ xᵢ/σ².
//
// The parameters are (intercept, beta.1, …, beta.p), Dim = d.
type LinearFixedNoise struct {
	design
	y           []float64
	sigma2, lam float64
	priorC      float64
}

// NewLinearFixedNoise returns the regression of y on the columns of X
// (shared when X is contiguous: X must not change while the model is in use).
func NewLinearFixedNoise(X *mat.Dense, y []float64, opt LinearFixedNoiseOptions) (*LinearFixedNoise, error) {
	if y == nil {
		return nil, fmt.Errorf("model: linear regression (fixed noise): no responses")
	}
	ds, err := newDesign("linear regression (fixed noise)", X, y, !opt.NoIntercept)
	if err != nil {
		return nil, err
	}
	m := &LinearFixedNoise{design: ds, y: append([]float64(nil), y...), sigma2: opt.Sigma2, lam: opt.Precision}
	if m.sigma2 == 0 {
		m.sigma2 = 1
	}
	if m.lam == 0 {
		m.lam = 1
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"noise variance Sigma2", m.sigma2}, {"prior precision", m.lam}} {
		if !(p.v > 0) || math.IsInf(p.v, 1) {
			return nil, fmt.Errorf("model: linear regression (fixed noise): %s = %v: expected a positive finite number (0 for the default)", p.name, p.v)
		}
	}
	d := float64(ds.coef())
	m.priorC = -d/2*log2Pi + d/2*math.Log(m.lam)
	return m, nil
}

// Dim returns d, the number of coefficients.
func (m *LinearFixedNoise) Dim() int { return m.coef() }

// Len returns the number of observations n.
func (m *LinearFixedNoise) Len() int { return m.n }

// ParamNames returns intercept, beta.1, …, beta.p.
func (m *LinearFixedNoise) ParamNames() []string { return m.coefNames() }

// Sigma2 returns the noise variance σ².
func (m *LinearFixedNoise) Sigma2() float64 { return m.sigma2 }

// LogPrior returns log N(β; 0, λ⁻¹I) and adds −λβ into grad.
func (m *LinearFixedNoise) LogPrior(theta, grad []float64) float64 {
	var ss float64
	for _, b := range theta[:m.coef()] {
		ss += b * b
	}
	if grad != nil {
		for j, b := range theta[:m.coef()] {
			grad[j] -= m.lam * b
		}
	}
	return m.priorC - 0.5*m.lam*ss
}

// LogLik returns Σ_{i∈batch} log N(yᵢ; xᵢᵀβ, σ²) and adds its gradient into
// grad. A nil batch means all observations.
func (m *LinearFixedNoise) LogLik(theta []float64, batch []int, grad []float64) float64 {
	var rss float64
	b := len(batch)
	if batch == nil {
		b = m.n
		for i := 0; i < m.n; i++ {
			rss += m.resid(theta, grad, i)
		}
	} else {
		for _, i := range batch {
			rss += m.resid(theta, grad, i)
		}
	}
	return -float64(b)/2*(log2Pi+math.Log(m.sigma2)) - 0.5*rss/m.sigma2
}

func (m *LinearFixedNoise) resid(theta, grad []float64, i int) float64 {
	x := m.x[i*m.p : (i+1)*m.p]
	r := m.y[i] - m.linpred(theta, x)
	if grad != nil {
		c := r / m.sigma2
		g := grad
		if m.intercept {
			g[0] += c
			g = g[1:]
		}
		g = g[:len(x)]
		for j, v := range x {
			g[j] += c * v
		}
	}
	return r * r
}

// Hessian writes the d×d Hessian of the full-data log posterior,
// −(XᵀX/σ² + λI) (constant in β), into dst in row-major order.
func (m *LinearFixedNoise) Hessian(theta, dst []float64) {
	d := m.coef()
	clear(dst[:d*d])
	row := make([]float64, d)
	for i := 0; i < m.n; i++ {
		m.fullRow(row, i)
		addOuter(dst, d, -1/m.sigma2, row)
	}
	for j := 0; j < d; j++ {
		dst[j*d+j] -= m.lam
	}
}

// fullRow writes xᵢ with the leading 1 of the intercept into row.
func (d *design) fullRow(row []float64, i int) {
	x := d.x[i*d.p : (i+1)*d.p]
	if d.intercept {
		row[0] = 1
		copy(row[1:], x)
		return
	}
	copy(row, x)
}

// addOuter adds c·v vᵀ into the d×d row-major matrix dst.
func addOuter(dst []float64, d int, c float64, v []float64) {
	for a, va := range v {
		if va == 0 {
			continue
		}
		r := dst[a*d : a*d+d]
		ca := c * va
		for b, vb := range v {
			r[b] += ca * vb
		}
	}
}

// Posterior returns the exact Gaussian posterior N(mean, cov):
// cov = (XᵀX/σ² + λI)⁻¹, mean = cov·Xᵀy/σ².
func (m *LinearFixedNoise) Posterior() (mean []float64, cov *mat.SymDense) {
	d := m.coef()
	h := make([]float64, d*d)
	m.Hessian(nil, h)
	prec := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			prec.SetSym(i, j, -h[i*d+j])
		}
	}
	var chol mat.Cholesky
	chol.Factorize(prec) // positive definite: λ > 0
	cov = mat.NewSymDense(d, nil)
	chol.InverseTo(cov)
	xty := make([]float64, d)
	row := make([]float64, d)
	for i := 0; i < m.n; i++ {
		m.fullRow(row, i)
		for j, v := range row {
			xty[j] += v * m.y[i] / m.sigma2
		}
	}
	mv := mat.NewVecDense(d, nil)
	mv.MulVec(cov, mat.NewVecDense(d, xty))
	return mv.RawVector().Data, cov
}

// SamplePrior draws β ~ N(0, λ⁻¹I).
func (m *LinearFixedNoise) SamplePrior(dst []float64, rng *rand.Rand) {
	sd := 1 / math.Sqrt(m.lam)
	for j := range dst[:m.coef()] {
		dst[j] = sd * rng.NormFloat64()
	}
}
