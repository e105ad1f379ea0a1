package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// InitLaplace starts each chain at an independent draw from the diagonal
// Laplace approximation N(Mean, diag(Var)) — around the MAP, dispersed on
// the posterior's scale, as `langevin run --init laplace` does. Build it
// with NewInitLaplace, or from a LaplaceApprox or a RunLaplace.
type InitLaplace struct {
	Mean, Var []float64
}

// Init implements langevin.Initializer.
func (in InitLaplace) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	if len(in.Mean) != len(dst) || len(in.Var) != len(dst) {
		return fmt.Errorf("approx: InitLaplace: mean of %d and variance of %d values for a model of %d parameters", len(in.Mean), len(in.Var), len(dst))
	}
	for j := range dst {
		dst[j] = in.Mean[j] + math.Sqrt(in.Var[j])*rng.NormFloat64()
	}
	return nil
}

// NewInitLaplace computes m's Laplace approximation (one MAP, one Hessian)
// and returns the initialiser that draws from its diagonal.
func NewInitLaplace(ctx context.Context, m langevin.Model) (InitLaplace, error) {
	l, err := Laplace(ctx, m, nil)
	if err != nil {
		return InitLaplace{}, err
	}
	return l.Init(), nil
}

// Init returns the initialiser drawing from N(Mean, diag(Cov)).
func (l *LaplaceApprox) Init() InitLaplace {
	d := len(l.Mean)
	v := make([]float64, d)
	for j := range v {
		v[j] = l.Cov.At(j, j)
	}
	return InitLaplace{Mean: l.Mean, Var: v}
}

// LaplaceMALA is the exact-sampler recipe of `langevin run --sampler mala
// --metric dense`, as a library function: MALA preconditioned by the dense
// covariance Σ of the Laplace approximation (one MAP, one Hessian), so that a
// posterior close to Gaussian looks isotropic to the sampler, with the step
// adapted during warm-up (its length taken from Options.BurnIn), and chains
// started by the returned initialiser at draws from N(MAP, diag Σ). Run it
// as
//
//	s, init, err := approx.LaplaceMALA(ctx, m)
//	tr, err := langevin.Run(ctx, m, s, langevin.Options{Iters: 2000, BurnIn: 1000, Init: init})
//
// It fails when the MAP cannot be found or the negative Hessian there is
// not positive definite (use NUTS then).
func LaplaceMALA(ctx context.Context, m langevin.Model) (sampler.MALA, langevin.Initializer, error) {
	l, err := Laplace(ctx, m, nil)
	if err != nil {
		return sampler.MALA{}, nil, err
	}
	return sampler.MALA{PrecondFull: l.Cov}, l.Init(), nil
}

// MandtConstSGDReverseKL returns constant SGD at [ReverseKLStep], the step
// that minimises KL(posterior ‖ stationary) (Mandt et al. 2017, Appendix
// C), for a posterior with precision prec (the Laplace approximation's) and
// per-observation gradient covariance V at the mode ([sampler.GradCov]):
// C = Cov(ĝ) = (N²/S)·V with S = mb.Size.
func MandtConstSGDReverseKL(prec, V mat.Symmetric, n int, mb sampler.Minibatch) (sampler.ConstSGD, error) {
	d := V.SymmetricDim()
	if mb.Size < 1 || n < 1 {
		return sampler.ConstSGD{}, fmt.Errorf("approx: reverse-KL constant SGD: batch %d of N = %d: expected 1 ≤ S ≤ N", mb.Size, n)
	}
	c := mat.NewSymDense(d, nil)
	nf := float64(n)
	c.ScaleSym(nf*nf/float64(mb.Size), V)
	eta, err := ReverseKLStep(prec, c)
	if err != nil {
		return sampler.ConstSGD{}, err
	}
	return sampler.ConstSGD{Eta: eta, Batch: mb}, nil
}
