package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// LabelError reports a class label that logistic regression cannot read.
type LabelError struct {
	Row   int     // 1-based row of the label
	Value float64 // the label
	// Other is the 1-based row of a label of the other coding when the
	// labels mix 0/1 with −1/+1 (a 0 and a −1), and 0 otherwise.
	Other int
}

func (e *LabelError) Error() string {
	if e.Other > 0 {
		other := 0.0
		if e.Value == 0 {
			other = -1
		}
		return fmt.Sprintf("row %d: label %g: labels mix the 0/1 and −1/+1 codings (row %d: label %g)", e.Row, e.Value, e.Other, other)
	}
	return fmt.Sprintf("row %d: label %g: logistic regression expects labels 0/1 or −1/+1", e.Row, e.Value)
}

// CheckLabels returns a *LabelError for the first label of y that is not 0, 1
// or −1, or that mixes the 0/1 and −1/+1 codings (a 0 and a −1 in one set).
func CheckLabels(y []float64) error {
	zero, minus := 0, 0 // 1-based rows of the first 0 and −1
	for i, v := range y {
		switch v {
		case 1:
		case 0:
			if minus > 0 {
				return &LabelError{Row: i + 1, Value: v, Other: minus}
			}
			if zero == 0 {
				zero = i + 1
			}
		case -1:
			if zero > 0 {
				return &LabelError{Row: i + 1, Value: v, Other: zero}
			}
			if minus == 0 {
				minus = i + 1
			}
		default:
			return &LabelError{Row: i + 1, Value: v}
		}
	}
	return nil
}

// LogisticOptions are the settings of a [Logistic] model. The zero value is
// the default: an intercept and a N(0, 1) prior on every coefficient.
type LogisticOptions struct {
	// PriorScale is the prior standard deviation σ₀ of every coefficient,
	// intercept included; 0 means 1.
	PriorScale float64
	// NoIntercept drops the intercept, which is on by default.
	NoIntercept bool
}

// Logistic is the Bayesian logistic regression model
//
//	P(yᵢ = 1 | β) = σ(xᵢᵀβ),  σ(z) = 1/(1 + e^(−z)),
//	β ~ N(0, σ₀² I),
//
// where xᵢ includes a leading 1 when the model has an intercept. Labels may be
// coded 0/1 or −1/+1; with sᵢ = ±1 the sign of the label,
//
//	log p(yᵢ | β) = log σ(sᵢ zᵢ) = −softplus(−sᵢ zᵢ),  zᵢ = xᵢᵀβ,
//	∂/∂β log p(yᵢ | β) = sᵢ σ(−sᵢ zᵢ) xᵢ,
//
// computed stably with softplus(t) = max(t, 0) + log1p(e^(−|t|)). The log prior
// is −(d/2) log 2π − d log σ₀ − ‖β‖²/(2σ₀²) with gradient −β/σ₀².
//
// The parameters are (intercept, beta.1, …, beta.p), Dim = d.
type Logistic struct {
	design
	xt     []float64 // Xᵀ, p×n row-major: the full-data pass reads columns of X
	s      []float64 // labels as ±1
	scale  float64   // σ₀
	priorC float64   // −(d/2) log 2π − d log σ₀

	rows Rows       // the data when read from Rows (NewLogisticRows); x, xt, s unused
	pool *sync.Pool // scratch *rowsScratch for rows
}

// NewLogistic returns the logistic regression of the labels y on the columns
// of X (shared when X is contiguous: X must not change while the model is in use). Labels other than 0/1 or −1/+1 give a *LabelError.
func NewLogistic(X *mat.Dense, y []float64, opt LogisticOptions) (*Logistic, error) {
	if y == nil {
		return nil, fmt.Errorf("model: logistic regression: no labels")
	}
	if err := CheckLabels(y); err != nil {
		return nil, err
	}
	ds, err := newDesign("logistic regression", X, y, !opt.NoIntercept)
	if err != nil {
		return nil, err
	}
	m := &Logistic{design: ds, s: make([]float64, len(y)), scale: opt.PriorScale}
	m.xt = make([]float64, len(ds.x))
	for i := 0; i < ds.n; i++ {
		for j := 0; j < ds.p; j++ {
			m.xt[j*ds.n+i] = ds.x[i*ds.p+j]
		}
	}
	for i, v := range y {
		m.s[i] = sign(v)
	}
	if m.scale == 0 {
		m.scale = 1
	}
	if !(m.scale > 0) || math.IsInf(m.scale, 1) {
		return nil, fmt.Errorf("model: logistic regression: PriorScale = %v: expected a positive finite number (0 for the default)", opt.PriorScale)
	}
	d := float64(ds.coef())
	m.priorC = -d/2*log2Pi - d*math.Log(m.scale)
	return m, nil
}

// sign maps a label 1 to +1 and 0 or −1 to −1.
func sign(y float64) float64 {
	if y == 1 {
		return 1
	}
	return -1
}

// Dim returns d, the number of coefficients.
func (m *Logistic) Dim() int { return m.coef() }

// Len returns the number of observations n.
func (m *Logistic) Len() int { return m.n }

// Intercept reports whether the model has an intercept.
func (m *Logistic) Intercept() bool { return m.intercept }

// ParamNames returns intercept, beta.1, …, beta.p.
func (m *Logistic) ParamNames() []string { return m.coefNames() }

// LogPrior returns log N(β; 0, σ₀² I) and adds its gradient −β/σ₀² into grad.
func (m *Logistic) LogPrior(theta, grad []float64) float64 {
	beta := theta[:m.coef()]
	var ss float64
	for _, b := range beta {
		ss += b * b
	}
	if grad != nil {
		c := 1 / (m.scale * m.scale)
		g := grad[:len(beta)]
		for j, b := range beta {
			g[j] -= c * b
		}
	}
	return m.priorC - 0.5*ss/(m.scale*m.scale)
}

// LogLik returns Σ_{i∈batch} log σ(sᵢ xᵢᵀβ) and adds its gradient into grad.
// A nil batch means all observations.
//
// With tᵢ = sᵢ xᵢᵀβ and eᵢ = e^(−|tᵢ|) ∈ (0, 1], log σ(tᵢ) = −max(−tᵢ, 0) −
// log(1 + eᵢ). The logarithms are summed as the logarithm of the product
// Πᵢ (1 + eᵢ), taken once per block of at most 1000 terms (each factor is at
// most 2, so a block cannot overflow): one math.Log per block instead of one
// per observation, and a rounding error (≈ 1e-16 relative per factor) no
// larger than that of summing the logarithms.
func (m *Logistic) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if m.rows != nil {
		return m.logLikRows(theta, batch, grad)
	}
	if batch == nil {
		return m.logLikAll(theta, grad)
	}
	n := len(batch)
	var hinge, logs float64
	prod := 1.0
	for k := 0; k < n; k++ {
		h, e := m.term(theta, grad, batch[k])
		hinge += h
		prod *= 1 + e
		if k%1000 == 999 {
			logs += math.Log(prod)
			prod = 1
		}
	}
	return -(hinge + logs + math.Log(prod))
}

// logBlock is the number of observations logLikAll handles at a time; its
// scratch arrays live on the stack.
const logBlock = 256

// split returns the intercept b₀ (0 without one) and the p coefficients β
// of theta, and the coefficients' part of grad (nil when grad is nil).
func (m *Logistic) split(theta, grad []float64) (b0 float64, beta, g []float64) {
	beta = theta
	if m.intercept {
		b0, beta = theta[0], theta[1:]
	}
	beta = beta[:m.p]
	if grad != nil {
		g = grad
		if m.intercept {
			g = grad[1:]
		}
		g = g[:m.p]
	}
	return b0, beta, g
}

// blockTerms handles a block of at most logBlock observations with linear
// predictors z and signs s (±1): it sets c[k] = sₖ σ(−tₖ), tₖ = sₖzₖ (the
// gradient's weights), adds max(−tₖ, 0) to *hinge in order, and returns
// log Πₖ (1 + e^{−|tₖ|}), so that log p = −(hinge + Σ logs).
func blockTerms(z, s, c []float64, hinge *float64) float64 {
	prod := 1.0
	h := *hinge
	for k, zk := range z {
		sk := s[k]
		t := sk * zk
		e := math.Exp(-math.Abs(t))
		h += max(-t, 0)
		prod *= 1 + e // ≤ 2^logBlock: no overflow
		// c = sᵢ σ(−t), σ(−t) = e/(1+e) for t ≥ 0 and 1/(1+e) for t < 0.
		ck := sk / (1 + e)
		if t >= 0 {
			ck *= e
		}
		c[k] = ck
	}
	*hinge = h
	return math.Log(prod)
}

// logLikAll is LogLik on all observations. It works on blocks of logBlock
// rows and on the columns of X (Xᵀ is stored row-major), so that the linear
// predictors z = Xβ and the gradient Xᵀc are vector operations of length
// logBlock (gonum's assembly kernels) rather than dot products of length p
// per row; the result equals the row-wise sum up to rounding.
func (m *Logistic) logLikAll(theta, grad []float64) float64 {
	var zb, cb [logBlock]float64
	n := m.n
	b0, beta, g := m.split(theta, grad)
	var hinge, logs, g0 float64
	for lo := 0; lo < n; lo += logBlock {
		hi := min(lo+logBlock, n)
		z, c := zb[:hi-lo], cb[:hi-lo]
		for i := range z {
			z[i] = b0
		}
		for j, bj := range beta {
			axpy(z, bj, m.xt[j*n+lo:j*n+hi])
		}
		logs += blockTerms(z, m.s[lo:hi], c, &hinge)
		if g != nil {
			for _, ck := range c {
				g0 += ck
			}
			for j := range g {
				g[j] += dot(c, m.xt[j*n+lo:j*n+hi])
			}
		}
	}
	if grad != nil && m.intercept {
		grad[0] += g0
	}
	return -(hinge + logs)
}

// term returns max(−tᵢ, 0) and eᵢ = e^(−|tᵢ|), tᵢ = sᵢ xᵢᵀβ, so that
// log σ(tᵢ) = −max(−tᵢ, 0) − log(1 + eᵢ), and adds the gradient of
// log σ(tᵢ) into grad (if not nil).
func (m *Logistic) term(theta, grad []float64, i int) (hinge, e float64) {
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
	s := m.s[i]
	t := s * z
	e = math.Exp(-math.Abs(t))
	if grad != nil {
		// c = sᵢ σ(−t), σ(−t) = e/(1+e) for t ≥ 0 and 1/(1+e) for t < 0.
		c := s / (1 + e)
		if t >= 0 {
			c *= e
		}
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
	return max(-t, 0), e
}

// logSigmoid returns log σ(t) = −softplus(−t).
func logSigmoid(t float64) float64 { return -(max(-t, 0) + math.Log1p(math.Exp(-math.Abs(t)))) }

// sigmoid returns σ(z) = 1/(1 + e^(−z)) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// SamplePrior draws β ~ N(0, σ₀² I) into dst.
func (m *Logistic) SamplePrior(dst []float64, rng *rand.Rand) {
	for j := range dst[:m.coef()] {
		dst[j] = m.scale * rng.NormFloat64()
	}
}

// Predict writes the probabilities P(y = 1 | xᵢ, θ) = σ(xᵢᵀβ) of the rows of
// X into dst (allocated when nil) and returns it.
func (m *Logistic) Predict(theta []float64, X *mat.Dense, dst []float64) []float64 {
	checkTheta("logistic Predict", theta, m.Dim())
	x, n := m.testRows("logistic Predict", X)
	dst = dstLen("logistic Predict", dst, n)
	for i := range dst {
		dst[i] = sigmoid(m.linpred(theta, x[i*m.p:(i+1)*m.p]))
	}
	return dst
}

// NumClasses returns 2: logistic regression is a binary classifier.
func (m *Logistic) NumClasses() int { return 2 }

// ClassProbs writes (1 − σ(xᵢᵀβ), σ(xᵢᵀβ)) for the rows of X into the rows
// of dst (n×2).
func (m *Logistic) ClassProbs(theta []float64, X *mat.Dense, dst *mat.Dense) {
	checkTheta("logistic ClassProbs", theta, m.Dim())
	x, n := m.testRows("logistic ClassProbs", X)
	if r, c := dst.Dims(); r != n || c != 2 {
		panic(fmt.Sprintf("model: logistic ClassProbs: dst is %d×%d, want %d×2", r, c, n))
	}
	for i := 0; i < n; i++ {
		q := sigmoid(m.linpred(theta, x[i*m.p:(i+1)*m.p]))
		dst.Set(i, 0, 1-q)
		dst.Set(i, 1, q)
	}
}

// axpy sets y += a·x; len(x) ≥ len(y). (gonum's assembly kernels would make
// the caller's stack buffers escape to the heap.)
func axpy(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// dot returns x·y; len(y) ≥ len(x).
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}
