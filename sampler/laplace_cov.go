package sampler

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// LaplaceCov returns the covariance of the Laplace approximation at theta
// (normally the MAP), H⁻¹ with H = −∇²log p(θ|D) from central finite
// differences of the full-data gradient (2d gradient evaluations),
// symmetrised. It is the dense counterpart of LaplacePrecond: as MALA's
// PrecondDense, RWM's ScaleDense or NUTS's InvMetricDense it makes a nearly
// Gaussian posterior nearly isotropic.
func LaplaceCov(m langevin.Model, theta []float64) (*mat.SymDense, error) {
	d := m.Dim()
	if len(theta) != d {
		return nil, fmt.Errorf("sampler: Laplace covariance at a point of %d values, model has %d parameters", len(theta), d)
	}
	th := append([]float64(nil), theta...)
	gp := make([]float64, d)
	gm := make([]float64, d)
	h := mat.NewDense(d, d, nil)
	for j := 0; j < d; j++ {
		step := 1e-5 * math.Max(1, math.Abs(theta[j]))
		th[j] = theta[j] + step
		langevin.LogPosterior(m, th, gp)
		th[j] = theta[j] - step
		langevin.LogPosterior(m, th, gm)
		th[j] = theta[j]
		for i := 0; i < d; i++ {
			h.Set(i, j, -(gp[i]-gm[i])/(2*step))
		}
	}
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(sym) {
		return nil, fmt.Errorf("sampler: Laplace covariance: the negative Hessian is not positive definite (is θ a mode?)")
	}
	inv := mat.NewSymDense(d, nil)
	if err := chol.InverseTo(inv); err != nil {
		return nil, fmt.Errorf("sampler: Laplace covariance: %v", err)
	}
	return inv, nil
}
