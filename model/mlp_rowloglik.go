package model

import (
	"math"

	"github.com/langevin-go/langevin"
)

var _ langevin.RowLogLiker = (*MLP)(nil)

// RowLogLik writes log p(yᵢ | f(xᵢ; θ)) for each row i of rows into dst,
// the terms whose sum LogLik returns: −½(log 2π + log σ² + rᵢ²/σ²) − log s_y
// for the Gaussian likelihood (σ² learned, fixed, or σ²(xᵢ) of a
// heteroscedastic network; s_y the response's scale when it was
// standardised), log σ(yᵢ fᵢ) for Bernoulli (yᵢ = ±1), fᵢ,yᵢ − log Σₖ e^(fᵢ,ₖ)
// for categorical. It runs the network on chunks of rows and allocates
// nothing in steady state.
func (m *MLP) RowLogLik(dst, theta []float64, rows []int) {
	w := m.pool.get()
	defer m.pool.put(w)
	sigma2 := m.noiseVar
	if m.learn {
		sigma2 = math.Exp(theta[m.dim-1])
	}
	L := len(m.sizes) - 1
	out := m.sizes[L]
	p := m.p
	for i0 := 0; i0 < len(rows); i0 += mlpChunk {
		rs := rows[i0:min(len(rows), i0+mlpChunk)]
		for k, i := range rs {
			copy(w.in[k*p:(k+1)*p], m.x[i*p:(i+1)*p])
		}
		m.forward(theta, w.in[:len(rs)*p], len(rs), w)
		f := w.a[L][:len(rs)*out]
		for k, i := range rs {
			y := m.y[i]
			var ll float64
			switch m.lik {
			case LikGaussian:
				if m.het {
					s := f[2*k+1]
					res := y - f[2*k]
					ll = -(0.5*(log2Pi+s+res*res*math.Exp(-s)) + m.logSDY)
					break
				}
				res := y - f[k]
				ll = -(0.5*(log2Pi+math.Log(sigma2)+res*res/sigma2) + m.logSDY)
			case LikBernoulli:
				t := y * f[k]
				ll = -(max(-t, 0) + math.Log(1+math.Exp(-math.Abs(t))))
			case LikCategorical:
				fk := f[k*out : (k+1)*out]
				mx := fk[0]
				for _, v := range fk[1:] {
					mx = max(mx, v)
				}
				var s float64
				for _, v := range fk {
					s += math.Exp(v - mx)
				}
				ll = fk[int(y)] - (mx + math.Log(s))
			}
			dst[i0+k] = ll
		}
	}
}
