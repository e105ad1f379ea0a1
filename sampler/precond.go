package sampler

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// LaplacePrecond returns the diagonal of the Laplace approximation's
// covariance at theta (normally the MAP): diag(H⁻¹), H = −∇²log p(θ|D), with
// H from central finite differences of the full-data gradient (2d gradient
// evaluations). Used as SGLD's constant diagonal preconditioner M it makes
// every coordinate's posterior scale about 1, so one step size suits all of
// them; the step η then reads in units of posterior variance.
func LaplacePrecond(m langevin.Model, theta []float64) ([]float64, error) {
	d := m.Dim()
	if len(theta) != d {
		return nil, fmt.Errorf("sampler: Laplace preconditioner at a point of %d values, model has %d parameters", len(theta), d)
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
		return nil, fmt.Errorf("sampler: Laplace preconditioner: the negative Hessian is not positive definite (is θ a mode?)")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("sampler: Laplace preconditioner: %v", err)
	}
	out := make([]float64, d)
	for j := range out {
		out[j] = inv.At(j, j)
	}
	return out, nil
}
