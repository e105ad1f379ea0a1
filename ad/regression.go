package ad

import (
	"fmt"
	"math"
)

// Regression is a design matrix X (n×p) with a response y and the
// sufficient statistics of the normal linear model, computed once, with the
// columns and y centred for accuracy: the means x̄, ȳ, the cross-products
// X̃ᵀX̃ and X̃ᵀỹ, and ỹᵀỹ (X̃ = X − 1x̄ᵀ, ỹ = y − ȳ). It is read-only after
// NewRegression and safe for concurrent use.
type Regression struct {
	X        *Matrix
	Y        []float64
	xbar     []float64
	ybar     float64
	xtx, xty []float64 // X̃ᵀX̃ (p×p), X̃ᵀỹ
	yty      float64   // ỹᵀỹ
	n, p     int
}

// NewRegression computes the sufficient statistics of y on X (y is copied).
func NewRegression(X *Matrix, y []float64) *Regression {
	n, p := X.Dims()
	if len(y) != n {
		panic(fmt.Sprintf("ad: NewRegression: %d responses for %d rows", len(y), n))
	}
	r := &Regression{X: X, Y: append([]float64(nil), y...), xbar: make([]float64, p), xtx: make([]float64, p*p), xty: make([]float64, p), n: n, p: p}
	for _, v := range y {
		r.ybar += v
	}
	r.ybar /= float64(n)
	for j := 0; j < p; j++ {
		col := X.cols[j*n : (j+1)*n]
		var s float64
		for _, v := range col {
			s += v
		}
		r.xbar[j] = s / float64(n)
	}
	xc := make([]float64, p)
	for i := 0; i < n; i++ {
		row := X.rows[i*p : (i+1)*p]
		for j, v := range row {
			xc[j] = v - r.xbar[j]
		}
		yc := y[i] - r.ybar
		r.yty += yc * yc
		for j, a := range xc {
			r.xty[j] += a * yc
			for k := j; k < p; k++ {
				r.xtx[j*p+k] += a * xc[k]
			}
		}
	}
	for j := 0; j < p; j++ {
		for k := 0; k < j; k++ {
			r.xtx[j*p+k] = r.xtx[k*p+j]
		}
	}
	return r
}

// NormalRegression returns Σᵢ log N(yᵢ; α + xᵢᵀβ, σ) of the regression r
// over the rows batch, as NormalIDGLM, but on all rows (nil batch) from the
// sufficient statistics in O(p²) instead of O(np): with c = α + x̄ᵀβ − ȳ,
//
//	RSS = ỹᵀỹ − 2βᵀX̃ᵀỹ + βᵀX̃ᵀX̃β + n c²,
//	∂RSS/∂α = 2nc,  ∂RSS/∂β = 2(X̃ᵀX̃β − X̃ᵀỹ + nc x̄).
//
// (the centring makes the cross terms vanish and keeps the rounding error
// of RSS near 1e-16·ỹᵀỹ; the tests check it equals the O(np) sum to
// 1e-10). A minibatch runs NormalIDGLM.
func (t *Tape) NormalRegression(r *Regression, batch []int, alpha, beta, sigma Vec) Vec {
	if batch != nil {
		return t.NormalIDGLM(r.Y, r.X, batch, alpha, beta, sigma)
	}
	if int(beta.n) != r.p || alpha.n != 1 || sigma.n != 1 {
		panic(fmt.Sprintf("ad: NormalRegression with %d predictors: %d coefficients, intercept of length %d, σ of length %d", r.p, beta.n, alpha.n, sigma.n))
	}
	p := t.parts(alpha, beta, sigma)
	b := t.vals(beta)
	a, s := t.vals(alpha)[0], t.vals(sigma)[0]
	if !(s > 0) {
		return t.scalarNode(opGLM, math.NaN(), p, alpha, beta, sigma)
	}
	n := float64(r.n)
	c := a - r.ybar
	for j, v := range r.xbar {
		c += v * b[j]
	}
	// q = X̃ᵀX̃β, computed into the β partial buffer when there is one.
	var qbuf [64]float64
	var q []float64
	if db := t.pslice(p, 1, beta); db != nil {
		q = db
	} else if r.p <= len(qbuf) {
		q = qbuf[:r.p]
	} else {
		q = make([]float64, r.p)
	}
	var bqb, bxy float64
	for j := 0; j < r.p; j++ {
		row := r.xtx[j*r.p : (j+1)*r.p]
		var sj float64
		for k, v := range row {
			sj += v * b[k]
		}
		q[j] = sj
		bqb += b[j] * sj
		bxy += b[j] * r.xty[j]
	}
	rss := max(r.yty-2*bxy+bqb+n*c*c, 0)
	inv2 := 1 / (s * s)
	lp := -0.5*rss*inv2 - n*(math.Log(s)+lnSqrt2Pi)
	if da := t.pslice(p, 0, alpha); da != nil {
		da[0] = -n * c * inv2
	}
	if db := t.pslice(p, 1, beta); db != nil {
		for j := range db {
			db[j] = -(q[j] - r.xty[j] + n*c*r.xbar[j]) * inv2
		}
	}
	if ds := t.pslice(p, 2, sigma); ds != nil {
		ds[0] = (rss*inv2 - n) / s
	}
	return t.scalarNode(opGLM, lp, p, alpha, beta, sigma)
}

const lnSqrt2Pi = 0.91893853320467274178032973640561763986139747363778
