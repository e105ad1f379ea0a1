package langevin

import (
	"context"
	"math"
)

// HessianFD writes into dst (row-major d×d, len d·d) the Hessian of m's
// full-data log posterior log p(θ) + Σᵢ log p(zᵢ|θ) at theta, from central
// finite differences of its gradient, symmetrised:
//
//	H[i][j] ≈ (∂ᵢ log p(θ + hⱼeⱼ) − ∂ᵢ log p(θ − hⱼeⱼ)) / 2hⱼ,  hⱼ = 10⁻⁵·max(1, |θⱼ|),
//
// then H ← (H + Hᵀ)/2. It costs 2d full-data gradient evaluations. Models
// with an exact Hessian need not use it (see approx.Hessian).
func HessianFD(m Model, theta, dst []float64) {
	_ = HessianFDContext(context.Background(), m, theta, dst)
}

// HessianFDContext is HessianFD that checks ctx before each of its d
// columns and returns ctx.Err() (dst partly written) when it is done.
func HessianFDContext(ctx context.Context, m Model, theta, dst []float64) error {
	d := m.Dim()
	th := append([]float64(nil), theta...)
	gp, gm := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := 1e-5 * math.Max(1, math.Abs(theta[j]))
		th[j] = theta[j] + e
		LogPosterior(m, th, gp)
		th[j] = theta[j] - e
		LogPosterior(m, th, gm)
		th[j] = theta[j]
		for i := 0; i < d; i++ {
			dst[i*d+j] = (gp[i] - gm[i]) / (2 * e)
		}
	}
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			v := (dst[i*d+j] + dst[j*d+i]) / 2
			dst[i*d+j], dst[j*d+i] = v, v
		}
	}
	return nil
}
