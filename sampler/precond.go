package sampler

import (
	"github.com/langevin-go/langevin"
)

// LaplacePrecond returns the diagonal of the Laplace approximation's
// covariance at theta (normally the MAP): diag(H⁻¹), H = −∇²log p(θ|D), with
// H from central finite differences of the full-data gradient (2d gradient
// evaluations). Used as SGLD's constant diagonal preconditioner M it makes
// every coordinate's posterior scale about 1, so one step size suits all of
// them; the step η then reads in units of posterior variance.
func LaplacePrecond(m langevin.Model, theta []float64) ([]float64, error) {
	cov, err := LaplaceCov(m, theta)
	if err != nil {
		return nil, err
	}
	out := make([]float64, cov.SymmetricDim())
	for j := range out {
		out[j] = cov.At(j, j)
	}
	return out, nil
}
