package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
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
	if h, ok := m.(Hessianer); ok {
		h.Hessian(theta, dst)
		return
	}
	langevin.HessianFD(m, theta, dst)
}

// LaplaceApprox is the Laplace approximation N(Mean, Cov) of a posterior:
// Mean is the MAP and Cov = Prec⁻¹, Prec = −∇²log p(θ|D) at the MAP.
type LaplaceApprox struct {
	Mean []float64
	Prec *mat.SymDense
	Cov  *mat.SymDense
}

// Laplace returns the Laplace approximation of m's posterior: the MAP by
// L-BFGS ([FindMAP], from theta0; nil: zero) and the negative
// Hessian there ([Hessian]: exact for models that implement [Hessianer],
// finite differences otherwise). It fails when the negative Hessian is not
// positive definite.
func Laplace(ctx context.Context, m langevin.Model, theta0 []float64) (*LaplaceApprox, error) {
	mode, err := FindMAP(ctx, m, theta0)
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
	return laplaceFromHessian(mode, h)
}

// LaplaceCov returns the covariance of the Laplace approximation at theta
// (normally the MAP), H⁻¹ with H = −∇²log p(θ|D) from central finite
// differences of the full-data gradient (langevin.HessianFD, 2d gradient
// evaluations, symmetrised; not the model's own Hessian, as [LaplaceAt]
// takes). As the PrecondFull of any sampler (SGLD, MALA, RWM, NUTS) it
// makes a nearly Gaussian posterior nearly isotropic.
func LaplaceCov(m langevin.Model, theta []float64) (*mat.SymDense, error) {
	d := m.Dim()
	if len(theta) != d {
		return nil, fmt.Errorf("approx: Laplace covariance at a point of %d values, model has %d parameters", len(theta), d)
	}
	h := make([]float64, d*d)
	langevin.HessianFD(m, theta, h)
	l, err := laplaceFromHessian(theta, h)
	if err != nil {
		return nil, err
	}
	return l.Cov, nil
}

// LaplacePrecond returns the diagonal of [LaplaceCov]: diag(H⁻¹). Used as
// SGLD's constant diagonal preconditioner M it makes every coordinate's
// posterior scale about 1, so one step size suits all of them; the step η
// then reads in units of posterior variance.
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

// Sampler returns a sampler whose chains draw independently from the
// Laplace approximation N(Mean, Cov), θ = Mean + Lξ with LLᵀ = Cov (the
// reference draws of `langevin run --sampler laplace`). Its chains ignore
// the model and the initial point. Per-draw statistic: lp__, the log density
// of the approximation up to a constant, −½ξᵀξ.
func (l *LaplaceApprox) Sampler() langevin.Sampler {
	d := len(l.Mean)
	var chol mat.Cholesky
	chol.Factorize(l.Cov) // positive definite: the inverse of a Cholesky-factorised precision
	var lt mat.TriDense
	chol.LTo(&lt)
	f := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			f[i*d+j] = lt.At(i, j)
		}
	}
	return laplaceSampler{mean: l.Mean, chol: f}
}

type laplaceSampler struct {
	mean, chol []float64
}

func (laplaceSampler) StatNames() []string { return []string{"lp__"} }

func (s laplaceSampler) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if m.Dim() != len(s.mean) {
		return nil, fmt.Errorf("approx: Laplace sampler of dimension %d for a model with %d parameters", len(s.mean), m.Dim())
	}
	d := len(s.mean)
	return &laplaceChain{s: s, rng: rng, xi: make([]float64, d), theta: append([]float64(nil), s.mean...)}, nil
}

type laplaceChain struct {
	s         laplaceSampler
	rng       *rand.Rand
	xi, theta []float64
	lp        float64
}

func (c *laplaceChain) Step() error {
	d := len(c.xi)
	var ss float64
	for j := range c.xi {
		c.xi[j] = c.rng.NormFloat64()
		ss += c.xi[j] * c.xi[j]
	}
	for i := 0; i < d; i++ {
		v := c.s.mean[i]
		for j, l := range c.s.chol[i*d : i*d+i+1] {
			v += l * c.xi[j]
		}
		c.theta[i] = v
	}
	c.lp = -ss / 2
	return nil
}

func (c *laplaceChain) Position() []float64 { return c.theta }

func (c *laplaceChain) Stats(dst []float64) { dst[0] = c.lp }

// LaplaceFloored is the Laplace approximation at mode from the row-major
// Hessian h of the log posterior there, with the eigenvalues of the
// negative Hessian −H = V Λ Vᵀ raised to at least floor > 0:
//
//	N(mode, V max(Λ, floor)⁻¹ Vᵀ).
//
// At an exact local maximum −H is positive semi-definite and the likelihood
// adds curvature to the prior's, so floor = the prior's smallest curvature
// ([PriorCurvature]) changes nothing there; at an inexact mode (a network's
// MAP from Adam) or a saddle it replaces the negative curvature by the
// prior's, instead of failing. raised counts the eigenvalues raised.
func LaplaceFloored(mode, h []float64, floor float64) (l *LaplaceApprox, raised int, err error) {
	d := len(mode)
	if len(h) != d*d {
		return nil, 0, fmt.Errorf("approx: Laplace: a Hessian of %d values for %d parameters", len(h), d)
	}
	if !(floor > 0) {
		return nil, 0, fmt.Errorf("approx: Laplace: eigenvalue floor %v: expected a positive curvature (is the prior flat?)", floor)
	}
	prec := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			prec.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(prec, true) {
		return nil, 0, fmt.Errorf("approx: Laplace: the eigendecomposition of the negative Hessian failed")
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	inv := make([]float64, d)
	for k, v := range vals {
		if !(v >= floor) {
			v = floor
			raised++
		}
		vals[k], inv[k] = v, 1/v
	}
	rebuild := func(w []float64) *mat.SymDense {
		var vd mat.Dense
		vd.Mul(&V, mat.NewDiagDense(d, w))
		var out mat.Dense
		out.Mul(&vd, V.T())
		s := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				s.SetSym(i, j, (out.At(i, j)+out.At(j, i))/2)
			}
		}
		return s
	}
	return &LaplaceApprox{Mean: append([]float64(nil), mode...), Prec: rebuild(vals), Cov: rebuild(inv)}, raised, nil
}

// PriorCurvature returns the smallest curvature of m's log prior at θ over
// the coordinates, minⱼ −∂²log p(θ)/∂θⱼ², by central differences of the
// prior's gradient (step 10⁻⁴·max(1, |θⱼ|)): 1/s² for a N(0, s²) prior on
// every weight. It is 0 for a flat prior.
func PriorCurvature(m langevin.Model, theta []float64) float64 {
	d := len(theta)
	th := append([]float64(nil), theta...)
	gp, gm := make([]float64, d), make([]float64, d)
	lo := math.Inf(1)
	for j := range d {
		twoH := priorGradPair(m, theta, th, gp, gm, j)
		lo = math.Min(lo, -(gp[j]-gm[j])/twoH)
	}
	return math.Max(lo, 0)
}

// priorGradPair writes into gp and gm the gradients of m's log prior at
// θ ± h·eⱼ, h = 10⁻⁴·max(1, |θⱼ|), and returns 2h: (gp − gm)/2h is column j
// of the prior's Hessian by central differences (PriorCurvature, and the
// prior precision of GLMLaplace). th holds a copy of θ and is restored.
func priorGradPair(m langevin.Model, theta, th, gp, gm []float64, j int) float64 {
	h := 1e-4 * math.Max(1, math.Abs(theta[j]))
	clear(gp)
	clear(gm)
	th[j] = theta[j] + h
	m.LogPrior(th, gp)
	th[j] = theta[j] - h
	m.LogPrior(th, gm)
	th[j] = theta[j]
	return 2 * h
}

// PriorCurvatureDiag writes into dst the diagonal of the prior's negative
// Hessian at θ, −∂²log p(θ)/∂θⱼ², floored at 0, by Hutchinson's estimator
// with Rademacher vectors z: diag(A) = E[z ⊙ Az], Az the central difference
// of the prior's gradient along z (8 evaluations of LogPrior, no pass over
// the data). For a prior independent across coordinates (a diagonal
// Hessian) each probe gives the diagonal exactly; otherwise (a conjugate
// prior coupling β and σ²) the 4 probes' mean is an unbiased estimate. The prior's part of a diagonal curvature where the
// dense Hessian is too large to form.
func PriorCurvatureDiag(m langevin.Model, theta, dst []float64, rng *rand.Rand) {
	const probes = 4
	d := len(theta)
	th := make([]float64, d)
	z := make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	clear(dst)
	for range probes {
		for j := range z {
			z[j] = 1
			if rng.Uint64()&1 == 0 {
				z[j] = -1
			}
		}
		var h float64
		for j := range theta {
			h = math.Max(h, math.Abs(theta[j]))
		}
		h = 1e-4 * math.Max(1, h)
		clear(gp)
		clear(gm)
		for j := range th {
			th[j] = theta[j] + h*z[j]
		}
		m.LogPrior(th, gp)
		for j := range th {
			th[j] = theta[j] - h*z[j]
		}
		m.LogPrior(th, gm)
		for j := range dst {
			dst[j] -= z[j] * (gp[j] - gm[j]) / (2 * h) / probes
		}
	}
	for j := range dst {
		dst[j] = math.Max(dst[j], 0)
	}
}
