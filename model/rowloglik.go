package model

import (
	"math"

	"github.com/langevin-go/langevin"
)

var (
	_ langevin.RowLogLiker = (*Linear)(nil)
	_ langevin.RowCDFer    = (*Linear)(nil)
	_ langevin.RowLogLiker = (*Logistic)(nil)
	_ langevin.RowCDFer    = (*Logistic)(nil)
	_ langevin.RowLogLiker = (*GLM)(nil)
)

// RowLogLik writes log N(yᵢ; xᵢᵀβ, e^γ) = −½(log 2π + γ) − ½e^(−γ)rᵢ² for
// each row i of rows into dst.
func (m *Linear) RowLogLik(dst, theta []float64, rows []int) {
	g := theta[m.coef()]
	eg := math.Exp(-g)
	for j, i := range rows {
		dst[j] = -0.5*(log2Pi+g) - 0.5*eg*m.resid(theta, nil, i, eg)
	}
}

// RowCDF writes Φ(rᵢ e^(−γ/2)), rᵢ = yᵢ − xᵢᵀβ, for each row i of rows into
// dst.
func (m *Linear) RowCDF(dst, theta []float64, rows []int) {
	sd := math.Exp(0.5 * theta[m.coef()])
	for j, i := range rows {
		dst[j] = 0.5 * math.Erfc(-m.residSigned(theta, i)/sd/math.Sqrt2)
	}
}

// residSigned returns yᵢ − xᵢᵀβ.
func (m *Linear) residSigned(theta []float64, i int) float64 {
	p := m.p
	x := m.x[i*p : i*p+p]
	var z float64
	beta := theta
	if m.intercept {
		z = beta[0]
		beta = beta[1:]
	}
	for j, v := range x {
		z += v * beta[j]
	}
	return m.y[i] - z
}

// RowLogLik writes log σ(sᵢxᵢᵀβ), sᵢ = ±1 the label, for each row i of rows
// into dst.
func (m *Logistic) RowLogLik(dst, theta []float64, rows []int) {
	for j, i := range rows {
		if m.rows != nil {
			dst[j] = m.LogLik(theta, rows[j:j+1], nil)
			continue
		}
		h, e := m.term(theta, nil, i)
		dst[j] = -(h + math.Log1p(e))
	}
}

// RowCDF writes P(Yᵢ ≤ yᵢ | β) for each row i of rows into dst: 1 for the
// label 1, σ(−xᵢᵀβ) for 0; NaN for a model read from Rows.
func (m *Logistic) RowCDF(dst, theta []float64, rows []int) {
	for j, i := range rows {
		switch {
		case m.rows != nil:
			dst[j] = math.NaN()
		case m.s[i] > 0:
			dst[j] = 1
		default:
			h, e := m.term(theta, nil, i)
			dst[j] = math.Exp(-(h + math.Log1p(e))) // σ(−xᵢᵀβ)
		}
	}
}

// RowLogLik writes log p(yᵢ | θ) of the GLM's kind (Poisson, negative
// binomial, probit or Student-t, normalised, offsets included) for each row
// i of rows into dst.
func (m *GLM) RowLogLik(dst, theta []float64, rows []int) {
	aux, nu := m.auxAt(theta)
	for j, i := range rows {
		eta := m.linpred(theta, m.x.Row(i))
		if m.offset != nil {
			eta += m.offset[i]
		}
		var y float64
		if m.yf != nil {
			y = m.yf[i]
		} else {
			y = float64(m.yi[i])
		}
		dst[j] = m.logDensity(y, eta, aux, nu)
	}
}
