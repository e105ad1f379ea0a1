package sampler

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// LaplaceCov returns the covariance of the Laplace approximation at theta
// (normally the MAP), H⁻¹ with H = −∇²log p(θ|D) from central finite
// differences of the full-data gradient (2d gradient evaluations),
// symmetrised. It is the dense counterpart of LaplacePrecond: as the
// PrecondFull of any sampler (SGLD, MALA, RWM, NUTS) it makes a nearly
// Gaussian posterior nearly isotropic.
func LaplaceCov(m langevin.Model, theta []float64) (*mat.SymDense, error) {
	d := m.Dim()
	if len(theta) != d {
		return nil, fmt.Errorf("sampler: Laplace covariance at a point of %d values, model has %d parameters", len(theta), d)
	}
	h := make([]float64, d*d)
	langevin.HessianFD(m, theta, h)
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, -h[i*d+j])
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
