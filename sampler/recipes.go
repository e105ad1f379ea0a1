package sampler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// Default steps. Each rule is named for what it guarantees; the command line
// uses them when no step is given, and prints the one it used. N is the
// number of observations, B the batch size (0 means full batch, B = N).

// StepNoiseFraction returns the constant step at which the minibatch gradient
// noise of (preconditioned) SGLD or SGHMC is about 5% of the injected noise:
//
//	η = 0.1·αB/N   with the Laplace preconditioner M = diag(H⁻¹) (laplace true),
//	η = 0.1·αB/N²  without it,
//
// α the SGHMC friction (1 for SGLD). With M the preconditioned gradient noise
// η²M Cov(ĝ) is about ηN/(2αB) of the injected noise 2ηM (Cov(ĝ) ≈ (N/B)H),
// so 0.1·αB/N keeps it near 5%; without a preconditioner, standardised
// features give posterior variances of order 1/N, hence the extra 1/N.
func StepNoiseFraction(n, batch int, friction float64, laplace bool) float64 {
	b := batch
	if b == 0 {
		b = n
	}
	nf := float64(n)
	eta := 0.1 * friction * float64(b) / nf
	if !laplace {
		eta /= nf
	}
	return eta
}

// StepPSGLDRelax returns pSGLD's default step η = √B/N². Near the mode its
// preconditioner G ≈ √B/s (s the per-observation gradient sd) makes the
// preconditioned curvature about N s √B, so this step gives a relaxation
// time of about 1/s steps; on the Australian credit data (η ≈ 1e-5) its
// bulk-ESS is close to SGLD's default.
func StepPSGLDRelax(n, batch int) float64 {
	b := batch
	if b == 0 {
		b = n
	}
	nf := float64(n)
	return math.Sqrt(float64(b)) / (nf * nf)
}

// StepToyStable is the step of the SG-MCMC samplers on the toy targets
// (N = 1, curvature up to 10 for a 2-D Gaussian with ρ = 0.9 and 33 for the
// 25-Gaussian mixture): η·λmax ≤ 0.33, well inside the stability bound 2.
const StepToyStable = 0.01

// StepCyclicalExplore returns the peak step η₀ of cyclical SGLD's cosine
// schedule on a target whose modes have curvature λ (the largest
// eigenvalue of −∇²log p at a mode): η₀ = 7/(3λ), 7/6 of a mode's
// stability limit 2/λ. In the first quarter of each cycle, where
// ηₜ > 2/λ, the update θ − c ← (1 − ηₜλ)(θ − c) overshoots the mode's
// centre c by a growing factor, which throws the chain out of its mode; the
// rest of the cycle samples the mode it lands in. A peak below 2/λ (the
// SG-MCMC default StepToyStable = 0.01 has ηλ = 0.33 on the 25-Gaussian
// mixture) never leaves the starting mode: at s² = 0.03 the barrier
// between neighbouring modes is 1/(2s²) ≈ 17 nats. On that mixture
// (λ = 1/0.03) the rule gives Zhang et al.'s (2020) η₀ = 0.07. It relies
// on the modes' basins tiling the region between them (overshooting one
// mode lands in another); on a target with unbounded directions the
// unstable phase can diverge.
func StepCyclicalExplore(lambda float64) float64 { return 7 / (3 * lambda) }

// CyclesExplore is the default number of cycles of cyclical SGLD on a
// multimodal toy target: Zhang et al.'s (2020) 30, one exploration of the
// modes per cycle.
const CyclesExplore = 30

// StepUnitMeanLoss returns the step 1/N of gradient descent and SGD on the
// summed log posterior: a unit step on the mean loss (1/N)·log p(θ|D).
func StepUnitMeanLoss(n int) float64 { return 1 / float64(n) }

// StepIASG returns IASG's step η = 0.05/λmax(Λ), Λ the Laplace precision:
// small enough that the minibatch curvature adds about 5% variance, large
// enough that a window of N/S iterates covers many correlation times (see
// [IASG]).
func StepIASG(prec mat.Symmetric) (float64, error) {
	var eig mat.EigenSym
	if !eig.Factorize(prec, false) {
		return 0, fmt.Errorf("sampler: IASG step: eigenvalues of the Laplace precision failed")
	}
	vals := eig.Values(nil)
	return 0.05 / vals[len(vals)-1], nil
}

// The constant-SGD recipes of Mandt, Hoffman & Blei (2017): the KL-optimal
// settings for a per-observation gradient covariance V at the mode ([GradCov],
// their BBᵀ), N observations and batches mb (Size S).

// MandtConstSGD returns constant SGD at the optimal scalar step η*
// ([OptimalStep]).
func MandtConstSGD(V mat.Symmetric, n int, mb Minibatch) ConstSGD {
	return ConstSGD{Eta: OptimalStep(V, n, mb.Size), Batch: mb}
}

// MandtConstSGDDiag returns constant SGD with the optimal diagonal
// preconditioner at η = 1 ([OptimalDiag]).
func MandtConstSGDDiag(V mat.Symmetric, n int, mb Minibatch) ConstSGD {
	return ConstSGD{Eta: 1, Batch: mb, Precond: OptimalDiag(V, n, mb.Size)}
}

// MandtConstSGDFull returns constant SGD with the optimal full
// preconditioner at η = 1 ([OptimalFull]).
func MandtConstSGDFull(V mat.Symmetric, n int, mb Minibatch) (ConstSGD, error) {
	full, err := OptimalFull(V, n, mb.Size)
	return ConstSGD{Eta: 1, Batch: mb, PrecondFull: full}, err
}

// MandtConstSGDSqrt returns constant SGD with the square-root
// preconditioner and its optimal step ([OptimalSqrt]).
func MandtConstSGDSqrt(V mat.Symmetric, n int, mb Minibatch) ConstSGD {
	eta, pre := OptimalSqrt(V, n, mb.Size)
	return ConstSGD{Eta: eta, Batch: mb, Precond: pre}
}

// MandtConstSGDMomentum returns constant SGD with momentum friction μ at
// η = μ·η*: the velocity's stationary variance matches plain SGD's at η*.
func MandtConstSGDMomentum(V mat.Symmetric, n int, mb Minibatch, mu float64) ConstSGD {
	return ConstSGD{Eta: mu * OptimalStep(V, n, mb.Size), Momentum: mu, Batch: mb}
}

// MandtIASG returns IASG at [StepIASG] with the given window (0: N/S).
func MandtIASG(prec mat.Symmetric, mb Minibatch, window int) (IASG, error) {
	eta, err := StepIASG(prec)
	return IASG{Eta: eta, Batch: mb, Window: window}, err
}

// AdamFit are the settings of [FitAdam].
type AdamFit struct {
	Iters int     // Adam iterations
	Batch int     // minibatch size (at most N)
	LR    float64 // constant learning rate
}

// FitAdam maximises m's log posterior with Adam from theta0 (not modified)
// and returns the final iterate: the MAP start of neural networks, whose
// posterior L-BFGS handles badly. It checks ctx every 256 iterations and
// fails, naming the parameter, when an iterate is not finite.
func FitAdam(ctx context.Context, m langevin.Model, theta0 []float64, s AdamFit, rng *rand.Rand) ([]float64, error) {
	batch := min(s.Batch, m.Len())
	ch, err := Adam{Step: schedule.Constant(s.LR), Batch: Minibatch{Size: batch}}.NewChain(m, append([]float64(nil), theta0...), rng)
	if err != nil {
		return nil, err
	}
	for it := 1; it <= s.Iters; it++ {
		if it%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := ch.Step(); err != nil {
			return nil, err
		}
	}
	out := append([]float64(nil), ch.Position()...)
	for j, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("MAP fit diverged: %s = %v (try a smaller learning rate)", langevin.ParamNames(m)[j], v)
		}
	}
	return out, nil
}
