package approx

import (
	"context"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// HessianContext is [Hessian] with cancellation: a model's exact Hessian
// (one pass over the data) is computed whole; the finite-difference one
// checks ctx before each of its d columns and returns ctx.Err().
func HessianContext(ctx context.Context, m langevin.Model, theta, dst []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if h, ok := m.(Hessianer); ok {
		h.Hessian(theta, dst)
		return nil
	}
	return langevin.HessianFDContext(ctx, m, theta, dst)
}

// RunLaplace is the Laplace approximation of one run, computed at most once:
// one MAP and one Hessian, however many parts of the run ask for them (the
// initial points, SGLD's diagonal preconditioner, the dense metric of RWM and
// MALA, the optimal settings of constant SGD, SGFS and IASG). Each is
// computed with the context of the first call, so an interrupt stops it; an
// error, cancellation included, is remembered and returned to every later
// caller. A RunLaplace is safe for concurrent use.
type RunLaplace struct {
	// Model is the model whose posterior is approximated.
	Model langevin.Model
	// FindMAP, when not nil, finds the mode instead of L-BFGS from zero
	// ([FindMAP]); the MLP's Adam fit ([sampler.FitAdam]) is one.
	FindMAP func(ctx context.Context, m langevin.Model) ([]float64, error)

	mu        sync.Mutex
	mode      []float64
	modeErr   error
	modeDone  bool
	lap       *LaplaceApprox
	lapErr    error
	lapDone   bool
	hess      []float64 // the Hessian at the mode, row-major (nil until computed)
	hessErr   error
	hessDone  bool
	maps, hes int
}

// MAP returns the mode of the posterior, found on the first call.
func (r *RunLaplace) MAP(ctx context.Context) ([]float64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mapLocked(ctx)
}

func (r *RunLaplace) mapLocked(ctx context.Context) ([]float64, error) {
	if !r.modeDone {
		r.modeDone = true
		r.maps++
		if r.FindMAP != nil {
			r.mode, r.modeErr = r.FindMAP(ctx, r.Model)
		} else {
			r.mode, r.modeErr = FindMAP(ctx, r.Model, nil)
		}
	}
	return r.mode, r.modeErr
}

// Approx returns the Laplace approximation N(MAP, H⁻¹), H the negative
// Hessian of the log posterior at the MAP ([HessianContext]), computed on
// the first call.
func (r *RunLaplace) Approx(ctx context.Context) (*LaplaceApprox, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lapDone {
		return r.lap, r.lapErr
	}
	mode, h, err := r.hessianLocked(ctx)
	if err != nil {
		return nil, err
	}
	r.lapDone = true
	r.lap, r.lapErr = laplaceFromHessian(mode, h)
	return r.lap, r.lapErr
}

// hessianLocked returns the mode and the Hessian there, computed on the
// first call (with r.mu held).
func (r *RunLaplace) hessianLocked(ctx context.Context) ([]float64, []float64, error) {
	mode, err := r.mapLocked(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !r.hessDone {
		r.hessDone = true
		r.hes++
		d := r.Model.Dim()
		r.hess = make([]float64, d*d)
		if r.hessErr = HessianContext(ctx, r.Model, mode, r.hess); r.hessErr != nil {
			r.hess = nil
		}
	}
	return mode, r.hess, r.hessErr
}

// Floored returns the Laplace approximation of [LaplaceFloored] at the run's
// MAP and Hessian, with the floor the prior's smallest curvature there
// ([PriorCurvature]), and a note saying how many eigenvalues it raised ("" if
// none): the Laplace approximation of a network, whose MAP from Adam is
// not an exact mode and whose Hessian there is often indefinite.
func (r *RunLaplace) Floored(ctx context.Context) (*LaplaceApprox, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mode, h, err := r.hessianLocked(ctx)
	if err != nil {
		return nil, "", err
	}
	if l, err := laplaceFromHessian(mode, h); err == nil {
		return l, "", nil // positive definite: the plain approximation, bit for bit
	}
	floor := PriorCurvature(r.Model, mode)
	l, raised, err := LaplaceFloored(mode, h, floor)
	if err != nil || raised == 0 {
		return l, "", err
	}
	return l, fmt.Sprintf("laplace:  %d of %d eigenvalues of the negative Hessian at the MAP were below the prior's smallest curvature %.3g and were raised to it (an inexact mode, or a saddle)",
		raised, len(mode), floor), nil
}

// Diag returns the diagonal of the Laplace covariance, diag(H⁻¹): SGLD's
// constant preconditioner and the per-coordinate scales of the Laplace
// initial points.
func (r *RunLaplace) Diag(ctx context.Context) ([]float64, error) {
	l, err := r.Approx(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(l.Mean))
	for j := range out {
		out[j] = l.Cov.At(j, j)
	}
	return out, nil
}

// Counts returns how many times the MAP and the Hessian were computed (each
// at most once).
func (r *RunLaplace) Counts() (maps, hessians int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maps, r.hes
}

// laplaceFromHessian returns N(mode, (−H)⁻¹) from the row-major Hessian h.
func laplaceFromHessian(mode, h []float64) (*LaplaceApprox, error) {
	d := len(mode)
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
