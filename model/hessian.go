package model

import "math"

// Hessian writes the d×d Hessian of the full-data log posterior of the
// logistic regression into dst (row-major):
//
//	∇² log p(β|y) = −Σᵢ σ(zᵢ)(1 − σ(zᵢ)) xᵢxᵢᵀ − I/σ₀²,  zᵢ = xᵢᵀβ.
func (m *Logistic) Hessian(theta, dst []float64) {
	if m.rows != nil {
		m.hessianRows(theta, dst)
		return
	}
	d := m.coef()
	clear(dst[:d*d])
	row := make([]float64, d)
	for i := 0; i < m.n; i++ {
		m.fullRow(row, i)
		var z float64
		for j, v := range row {
			z += v * theta[j]
		}
		p := sigmoid(z)
		addOuter(dst, d, -p*(1-p), row)
	}
	c := 1 / (m.scale * m.scale)
	for j := 0; j < d; j++ {
		dst[j*d+j] -= c
	}
}

// Hessian writes the (d+1)×(d+1) Hessian of the full-data log posterior of
// the normal linear regression in w = (β, γ = log σ²) into dst (row-major).
// With rᵢ = yᵢ − xᵢᵀβ, q = ‖β − μ‖²/v and X the design matrix:
//
//	∂²/∂β²  = −e^(−γ) (XᵀX + I/v),
//	∂²/∂β∂γ = e^(−γ) ((β − μ)/v − Σᵢ rᵢxᵢ),
//	∂²/∂γ²  = −e^(−γ) (q/2 + ψ + Σᵢ rᵢ²/2).
//
// With the flat prior the prior terms (those with v, μ, ψ) are absent.
func (m *Linear) Hessian(theta, dst []float64) {
	d := m.coef()
	D := d + 1
	clear(dst[:D*D])
	eg := math.Exp(-theta[d])
	row := make([]float64, d)
	full := make([]float64, D) // (xᵢ, 0): the outer product fills the β block
	var rss float64
	for i := 0; i < m.n; i++ {
		m.fullRow(row, i)
		r := m.y[i] - m.linpred(theta, m.x[i*m.p:(i+1)*m.p])
		rss += r * r
		copy(full, row)
		addOuter(dst, D, -eg, full)
		for j, v := range row {
			dst[j*D+d] -= eg * r * v
		}
	}
	gg := -eg * rss / 2
	if !m.flat {
		var q float64
		for j := 0; j < d; j++ {
			dst[j*D+j] -= eg / m.v
			u := theta[j] - m.mu[j]
			q += u * u
			dst[j*D+d] += eg * u / m.v
		}
		q /= m.v
		gg -= eg * (q/2 + m.psi)
	}
	for j := 0; j < d; j++ {
		dst[d*D+j] = dst[j*D+d]
	}
	dst[d*D+d] = gg
}
