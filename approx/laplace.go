package approx

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// Hessianer is implemented by models that compute the exact Hessian of their
// full-data log posterior log p(θ) + Σᵢ log p(zᵢ|θ) (prior included). dst is
// the d×d Hessian in row-major order (len d·d), overwritten.
type Hessianer interface {
	Hessian(theta []float64, dst []float64)
}

// Hessian writes the Hessian of m's full-data log posterior at theta into
// dst (row-major d×d): m's own when it is a [Hessianer], otherwise central
// finite differences of the gradient, symmetrised,
//
//	H[i][j] ≈ (∂ᵢ log p(θ + hⱼeⱼ) − ∂ᵢ log p(θ − hⱼeⱼ)) / 2hⱼ,  hⱼ = 1e-5·max(1, |θⱼ|),
//
// which costs 2d full-data gradients.
func Hessian(m langevin.Model, theta, dst []float64) {
	d := m.Dim()
	if h, ok := m.(Hessianer); ok {
		h.Hessian(theta, dst)
		return
	}
	th := append([]float64(nil), theta...)
	gp, gm := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		e := 1e-5 * math.Max(1, math.Abs(theta[j]))
		th[j] = theta[j] + e
		langevin.LogPosterior(m, th, gp)
		th[j] = theta[j] - e
		langevin.LogPosterior(m, th, gm)
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
}

// LaplaceApprox is the Laplace approximation N(Mean, Cov) of a posterior:
// Mean is the MAP and Cov = Prec⁻¹, Prec = −∇²log p(θ|D) at the MAP.
type LaplaceApprox struct {
	Mean []float64
	Prec *mat.SymDense
	Cov  *mat.SymDense
}

// Laplace returns the Laplace approximation of m's posterior: the MAP by
// L-BFGS ([sampler.FindMAP], from theta0; nil: zero) and the negative
// Hessian there ([Hessian]: exact for models that implement [Hessianer],
// finite differences otherwise). It fails when the negative Hessian is not
// positive definite.
func Laplace(ctx context.Context, m langevin.Model, theta0 []float64) (*LaplaceApprox, error) {
	mode, err := sampler.FindMAP(ctx, m, theta0)
	if err != nil {
		return nil, fmt.Errorf("approx: Laplace: %w", err)
	}
	return LaplaceAt(m, mode)
}

// LaplaceAt is the Laplace approximation centred at a given mode.
func LaplaceAt(m langevin.Model, mode []float64) (*LaplaceApprox, error) {
	d := m.Dim()
	if len(mode) != d {
		return nil, fmt.Errorf("approx: Laplace at a point of %d values, model has %d parameters", len(mode), d)
	}
	h := make([]float64, d*d)
	Hessian(m, mode, h)
	prec := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			prec.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(prec) {
		return nil, fmt.Errorf("approx: Laplace: the negative Hessian at the mode is not positive definite")
	}
	cov := mat.NewSymDense(d, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil, fmt.Errorf("approx: Laplace: %v", err)
	}
	return &LaplaceApprox{Mean: append([]float64(nil), mode...), Prec: prec, Cov: cov}, nil
}
