package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// ClassLabelError reports a label that softmax regression cannot read: labels
// must be the integers 0, 1, …, K−1.
type ClassLabelError struct {
	Row     int     // 1-based row of the label
	Value   float64 // the label
	Classes int     // K when it was given, 0 when it is inferred from the labels
}

func (e *ClassLabelError) Error() string {
	if e.Classes > 0 {
		return fmt.Sprintf("row %d: label %g: softmax regression with %d classes expects integer labels 0…%d", e.Row, e.Value, e.Classes, e.Classes-1)
	}
	return fmt.Sprintf("row %d: label %g: softmax regression expects integer class labels 0, 1, …, K−1", e.Row, e.Value)
}

// maxLabel is the largest class label accepted (K ≤ 65,536).
const maxLabel = 1<<16 - 1

// CheckClassLabels returns the number of classes K (one more than the largest
// label, or classes when it is positive) and a *ClassLabelError for the first
// label that is not an integer in 0…K−1.
func CheckClassLabels(y []float64, classes int) (int, error) {
	k := classes
	for i, v := range y {
		if v < 0 || v != math.Trunc(v) || v > maxLabel || (classes > 0 && v >= float64(classes)) {
			return 0, &ClassLabelError{Row: i + 1, Value: v, Classes: classes}
		}
		if classes <= 0 {
			k = max(k, int(v)+1)
		}
	}
	return k, nil
}

// SoftmaxOptions are the settings of a [Softmax] model. The zero value is the
// default: an intercept per class, K inferred from the labels and prior
// precision λ = 1.
type SoftmaxOptions struct {
	// Precision is the prior precision λ of every parameter, intercepts
	// included; 0 means 1.
	Precision float64
	// Classes is K; 0 means one more than the largest label. Give it when a
	// training set may lack the last classes.
	Classes int
	// NoIntercept drops the per-class intercepts.
	NoIntercept bool
}

// Softmax is Bayesian multinomial logistic (softmax) regression with K classes
// (Mandt, Hoffman & Blei 2017, eq. 35):
//
//	P(yᵢ = k | θ) = πₖ(xᵢ) = exp(zᵢₖ) / Σₗ exp(zᵢₗ),  zᵢₖ = bₖ + wₖᵀxᵢ,
//	θ ~ N(0, λ⁻¹ I),
//
// over-parameterised (K weight vectors, identified by the proper prior). With
// x̃ᵢ = (1, xᵢ) (no 1 without intercepts) and θₖ = (bₖ, wₖ),
//
//	log p(yᵢ | θ) = zᵢ,yᵢ − log Σₗ exp(zᵢₗ)   (computed with the max shifted out),
//	∂/∂θₖ log p(yᵢ | θ) = (δₖ,yᵢ − πₖ(xᵢ)) x̃ᵢ,
//	∂²/∂θₖ∂θₗ log p(yᵢ | θ) = −(δₖₗ πₖ − πₖπₗ) x̃ᵢx̃ᵢᵀ,
//	log p(θ) = (D/2) log(λ/2π) − (λ/2) ‖θ‖²,  ∇ = −λθ,  ∇² = −λI.
//
// Parameters are stored class by class, θ = (θ₁, …, θ_K) with θₖ = (bₖ, wₖ,₁,
// …, wₖ,ₚ), D = K(p+1), and named b.k, w.k.1, …, w.k.p, where k = label + 1
// is 1-based like every CmdStan index (class label 0 is b.1).
//
// Softmax holds no mutable state: one model can serve concurrent chains.
// LogLik keeps the K logits of a row on the stack (K ≤ 256; more classes
// allocate one slice per call).
type Softmax struct {
	design
	y      []int32
	k      int
	lambda float64
}

// NewSoftmax returns the softmax regression of the class labels y ∈ {0, …,
// K−1} on the columns of X (shared when X is contiguous: X must not change while the model is in use). Bad labels give a *ClassLabelError.
func NewSoftmax(X *mat.Dense, y []float64, opt SoftmaxOptions) (*Softmax, error) {
	if y == nil {
		return nil, fmt.Errorf("model: softmax regression: no labels")
	}
	if opt.Classes < 0 {
		return nil, fmt.Errorf("model: softmax regression: Classes = %d: expected K ≥ 2 (0 to infer it from the labels)", opt.Classes)
	}
	k, err := CheckClassLabels(y, opt.Classes)
	if err != nil {
		return nil, err
	}
	if k < 2 {
		k = 2 // a one-class data set still has a second class to predict against
	}
	ds, err := newDesign("softmax regression", X, y, !opt.NoIntercept)
	if err != nil {
		return nil, err
	}
	lambda := opt.Precision
	if lambda == 0 {
		lambda = 1
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("model: softmax regression: Precision = %v: expected a positive finite number (0 for the default)", opt.Precision)
	}
	m := &Softmax{design: ds, y: make([]int32, len(y)), k: k, lambda: lambda}
	for i, v := range y {
		m.y[i] = int32(v)
	}
	return m, nil
}

// WithPrecision returns a model with prior precision λ sharing m's data (which
// is read-only, so both can be used concurrently). It panics unless λ is
// positive and finite.
func (m *Softmax) WithPrecision(lambda float64) *Softmax {
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		panic(fmt.Sprintf("model: softmax WithPrecision(%v): expected a positive finite precision", lambda))
	}
	c := *m
	c.lambda = lambda
	return &c
}

// Dim returns D = K(p+1) (K·p without intercepts).
func (m *Softmax) Dim() int { return m.k * m.coef() }

// Len returns the number of observations n.
func (m *Softmax) Len() int { return m.n }

// Classes returns K.
func (m *Softmax) Classes() int { return m.k }

// Features returns p, the number of features.
func (m *Softmax) Features() int { return m.p }

// Precision returns the prior precision λ.
func (m *Softmax) Precision() float64 { return m.lambda }

// Intercept reports whether the model has per-class intercepts.
func (m *Softmax) Intercept() bool { return m.intercept }

// ParamNames returns b.1, w.1.1, …, w.1.p, b.2, … (class-major; class label
// c is index c+1).
func (m *Softmax) ParamNames() []string {
	names := make([]string, 0, m.Dim())
	for k := 1; k <= m.k; k++ {
		ks := strconv.Itoa(k)
		if m.intercept {
			names = append(names, "b."+ks)
		}
		for j := 1; j <= m.p; j++ {
			names = append(names, "w."+ks+"."+strconv.Itoa(j))
		}
	}
	return names
}

// LogPrior returns log N(θ; 0, λ⁻¹I) and adds its gradient −λθ into grad.
func (m *Softmax) LogPrior(theta, grad []float64) float64 {
	d := m.Dim()
	theta = theta[:d]
	var ss float64
	for _, v := range theta {
		ss += v * v
	}
	if grad != nil {
		g := grad[:d]
		for j, v := range theta {
			g[j] -= m.lambda * v
		}
	}
	return 0.5*float64(d)*(math.Log(m.lambda)-log2Pi) - 0.5*m.lambda*ss
}

// maxStackClasses is the largest K whose logits LogLik keeps on the stack.
const maxStackClasses = 256

// LogLik returns Σ_{i∈batch} log πᵧᵢ(xᵢ) and adds its gradient into grad. A
// nil batch means all observations.
func (m *Softmax) LogLik(theta []float64, batch []int, grad []float64) float64 {
	var buf [maxStackClasses]float64
	var z []float64
	if m.k <= maxStackClasses {
		z = buf[:m.k]
	} else {
		z = make([]float64, m.k)
	}
	theta = theta[:m.Dim()]
	if grad != nil {
		grad = grad[:m.Dim()]
	}
	var ll float64
	if batch == nil {
		for i := 0; i < m.n; i++ {
			ll += m.term(theta, grad, z, i)
		}
		return ll
	}
	for _, i := range batch {
		ll += m.term(theta, grad, z, i)
	}
	return ll
}

// logits writes zₖ = bₖ + wₖᵀx into z and returns max_k zₖ.
func (m *Softmax) logits(theta, x, z []float64) float64 {
	q := m.coef()
	zmax := math.Inf(-1)
	for k := range z {
		zk := m.linpred(theta[k*q:(k+1)*q], x)
		z[k] = zk
		zmax = max(zmax, zk)
	}
	return zmax
}

// term returns log π_yᵢ(xᵢ) and adds its gradient into grad (if not nil),
// using z (length K) as scratch.
func (m *Softmax) term(theta, grad, z []float64, i int) float64 {
	p, q := m.p, m.coef()
	x := m.x[i*p : i*p+p]
	zmax := m.logits(theta, x, z)
	y := int(m.y[i])
	zy := z[y]
	var s float64
	for k, v := range z {
		e := math.Exp(v - zmax)
		z[k] = e
		s += e
	}
	// log π_y = z_y − zmax − log Σₗ exp(zₗ − zmax).
	ll := zy - zmax - math.Log(s)
	if grad != nil {
		inv := 1 / s
		for k, e := range z {
			c := -e * inv
			if k == y {
				c++
			}
			g := grad[k*q : (k+1)*q]
			if m.intercept {
				g[0] += c
				g = g[1:]
			}
			g = g[:len(x)]
			for j, v := range x {
				g[j] += c * v
			}
		}
	}
	return ll
}

// Hessian writes the Hessian of the full-data log posterior log p(θ) +
// Σᵢ log p(yᵢ|θ) at θ into dst, a D×D row-major matrix (len D²):
//
//	∇² = −λI − Σᵢ (diag πᵢ − πᵢπᵢᵀ) ⊗ x̃ᵢx̃ᵢᵀ,
//
// entry ((k,a), (l,b)) = −λ δ − Σᵢ (δₖₗπᵢₖ − πᵢₖπᵢₗ) x̃ᵢₐx̃ᵢᵦ. It costs
// O(n K² (p+1)²) and panics when len(dst) ≠ D².
func (m *Softmax) Hessian(theta, dst []float64) {
	d, q, p := m.Dim(), m.coef(), m.p
	checkTheta("softmax Hessian", theta, d)
	if len(dst) != d*d {
		panic(fmt.Sprintf("model: softmax Hessian: len(dst) = %d, want D² = %d", len(dst), d*d))
	}
	clear(dst)
	z := make([]float64, m.k)
	xt := make([]float64, q)
	for i := 0; i < m.n; i++ {
		x := m.x[i*p : (i+1)*p]
		zmax := m.logits(theta, x, z)
		var s float64
		for k, v := range z {
			z[k] = math.Exp(v - zmax)
			s += z[k]
		}
		for k := range z {
			z[k] /= s
		}
		if m.intercept {
			xt[0] = 1
			copy(xt[1:], x)
		} else {
			copy(xt, x)
		}
		for k := 0; k < m.k; k++ {
			for l := 0; l < m.k; l++ {
				c := z[k] * z[l]
				if k == l {
					c -= z[k]
				}
				// c = −(δₖₗπₖ − πₖπₗ); add c x̃x̃ᵀ to block (k, l).
				for a, xa := range xt {
					row := dst[(k*q+a)*d+l*q : (k*q+a)*d+l*q+q]
					ca := c * xa
					for b, xb := range xt {
						row[b] += ca * xb
					}
				}
			}
		}
	}
	for j := 0; j < d; j++ {
		dst[j*d+j] -= m.lambda
		for i := 0; i < j; i++ { // symmetric up to rounding: make it exactly so
			v := 0.5 * (dst[i*d+j] + dst[j*d+i])
			dst[i*d+j], dst[j*d+i] = v, v
		}
	}
}

// SamplePrior draws θ ~ N(0, λ⁻¹I) into dst.
func (m *Softmax) SamplePrior(dst []float64, rng *rand.Rand) {
	sd := 1 / math.Sqrt(m.lambda)
	for j := range dst[:m.Dim()] {
		dst[j] = sd * rng.NormFloat64()
	}
}

// Proba writes the class probabilities πₖ(xᵢ) at θ of the n rows of X into
// dst (n×K row-major, allocated when nil) and returns it.
func (m *Softmax) Proba(theta []float64, X *mat.Dense, dst []float64) []float64 {
	checkTheta("softmax Proba", theta, m.Dim())
	x, n := m.testRows("softmax Proba", X)
	dst = dstLen("softmax Proba", dst, n*m.k)
	z := make([]float64, m.k)
	for i := 0; i < n; i++ {
		out := dst[i*m.k : (i+1)*m.k]
		zmax := m.logits(theta, x[i*m.p:(i+1)*m.p], z)
		var s float64
		for k, v := range z {
			z[k] = math.Exp(v - zmax)
			s += z[k]
		}
		for k, e := range z {
			out[k] = e / s
		}
	}
	return dst
}

// NumClasses returns K.
func (m *Softmax) NumClasses() int { return m.k }

// ClassProbs writes πₖ(xᵢ) at θ for the rows of X into row i, column k of
// dst (n×K); with the predict package it gives the posterior predictive.
func (m *Softmax) ClassProbs(theta []float64, X *mat.Dense, dst *mat.Dense) {
	n, _ := X.Dims()
	if r, c := dst.Dims(); r != n || c != m.k {
		panic(fmt.Sprintf("model: softmax ClassProbs: dst is %d×%d, want %d×%d", r, c, n, m.k))
	}
	raw := dst.RawMatrix()
	if raw.Stride == m.k {
		m.Proba(theta, X, raw.Data[:n*m.k])
		return
	}
	p := m.Proba(theta, X, nil)
	for i := 0; i < n; i++ {
		copy(dst.RawRowView(i), p[i*m.k:(i+1)*m.k])
	}
}

// FlatDim returns the dimension p+1 (p without intercepts) of the class-shift
// subspace {θ : (bₖ, wₖ) = (c, v) for every class k}. Adding the same vector
// to every class's coefficients adds the same number to every logit, which
// the softmax ignores, so the log-likelihood is constant along this subspace
// and the posterior's component in it is exactly the prior's, N(0, λ⁻¹I),
// independent of the rest (the prior is isotropic). When the design (with its
// intercept column) is rank-deficient — constant pixels, say — the
// likelihood is flat along further directions, which are not counted here.
func (m *Softmax) FlatDim() int { return m.coef() }

// FlatNorm2 returns ‖Pθ‖², the squared norm of θ's projection onto the
// class-shift subspace: K Σⱼ θ̄ⱼ², θ̄ⱼ the mean over classes of coefficient j.
func (m *Softmax) FlatNorm2(theta []float64) float64 {
	c := m.coef()
	kf := float64(m.k)
	var ss float64
	for j := 0; j < c; j++ {
		var s float64
		for k := 0; k < m.k; k++ {
			s += theta[k*c+j]
		}
		s /= kf
		ss += s * s
	}
	return kf * ss
}
