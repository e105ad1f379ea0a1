package fit

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// netStepBudget is the largest η·λmax(MH) the rule step of constant SGD
// on a network may reach: along an eigenvector of MH with eigenvalue λ the
// stationary variance of the discrete recursion is inflated by 1/(1 − ηλ/2)
// over the continuous-time answer Mandt et al.'s η* assumes, 5% at ηλ =
// 0.1 — the budget of the network plan's SGLD step (NetPlan.Step). Above
// about 2 the recursion diverges.
const netStepBudget = 0.1

// netMandtLaplace is the Laplace approximation constant SGD and IASG tune
// to on a network: N(MAP, Λ⁻¹) with Λ the negative Hessian at Adam's mode,
// its eigenvalues floored at the prior's curvature (RunLaplace.Floored). A
// network's mode from Adam is not an exact mode, and its Hessian is often
// indefinite there (a saddle direction per symmetry of the hidden units):
// the floored precision is positive definite where the plain Laplace
// approximation would fail.
func netMandtLaplace(ctx context.Context, b *BuildEnv) (*approx.LaplaceApprox, string, error) {
	l, note, err := b.Lap.Floored(ctx)
	if err != nil {
		return nil, "", err
	}
	return l, note, nil
}

// capNetStep caps constant SGD's step on a network for stability: with
// preconditioner M (nil: the identity) and the Laplace precision Λ, the
// step η is lowered to netStepBudget/λmax(M^{1/2} Λ M^{1/2}) when above it
// (for a preconditioned step the preconditioner is scaled instead, η = 1).
// It returns the sampler so capped and the auto: line saying what was
// chosen and why.
func capNetStep(cs sampler.ConstSGD, prec *mat.SymDense, name string) (sampler.ConstSGD, string, error) {
	d := prec.SymmetricDim()
	fixed := 0
	if cs.Precond != nil {
		// A coordinate whose gradient never varies (a dead unit's weights:
		// only the prior's gradient) has M*ₖₖ = 2/0: it gets the largest
		// finite entry, which the cap below then scales with the rest.
		top := 0.0
		for _, v := range cs.Precond {
			if v > 0 && !math.IsInf(v, 0) {
				top = max(top, v)
			}
		}
		if top == 0 {
			return cs, "", fmt.Errorf("{sampler} %s: the gradient covariance at the MAP is zero in every coordinate: no preconditioner", name)
		}
		cs.Precond = append([]float64(nil), cs.Precond...)
		for k, v := range cs.Precond {
			if !(v > 0) || math.IsInf(v, 0) {
				cs.Precond[k] = top
				fixed++
			}
		}
	}
	mh := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := prec.At(i, j)
			if cs.Precond != nil {
				v *= math.Sqrt(cs.Precond[i] * cs.Precond[j])
			}
			mh.SetSym(i, j, v)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(mh, false) {
		return cs, "", fmt.Errorf("{sampler} %s: the eigenvalues of the preconditioned curvature failed", name)
	}
	vals := eig.Values(nil)
	lmax := vals[len(vals)-1]
	what := "η*"
	rule := "2D/Tr Cov(ĝ) (Mandt, Hoffman & Blei 2017, Theorem 1: the KL-optimal scalar step)"
	if cs.Precond != nil {
		what = "M*"
		rule = "M* = 2/diag Cov(ĝ) at η = 1 (Mandt, Hoffman & Blei 2017, Corollary 3)"
	}
	if fixed > 0 {
		rule += fmt.Sprintf("; %d coordinates with no gradient variance at the MAP (dead units) given its largest finite entry", fixed)
	}
	eff := cs.Eta * lmax
	if eff <= netStepBudget {
		return cs, fmt.Sprintf("step: %s (η·λmax(MH) = %.3g ≤ %g, λmax the largest eigenvalue of the preconditioned Laplace precision at the MAP) — %s", stepText(cs), eff, netStepBudget, rule), nil
	}
	f := netStepBudget / eff
	if cs.Precond != nil {
		for k := range cs.Precond {
			cs.Precond[k] *= f
		}
	} else {
		cs.Eta *= f
	}
	return cs, fmt.Sprintf("step: %s, %s scaled by %.3g: the rule %s gives η·λmax(MH) = %.3g, λmax = %.4g the largest eigenvalue of the (preconditioned) Laplace precision at the MAP, above the stability budget %g (a network's curvature is far from uniform: the discrete recursion inflates the variance along its stiffest direction by 1/(1 − ηλ/2), and diverges at ηλ = 2); the stationary spread is then smaller than the posterior's along the flat directions (constant SGD's known bias: compare the test scores with the default {sampler} auto)",
		stepText(cs), what, f, rule, eff, lmax, netStepBudget), nil
}

// stepText describes a constant-SGD step.
func stepText(cs sampler.ConstSGD) string {
	if cs.Precond == nil {
		return fmt.Sprintf("η = %.4g", cs.Eta)
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range cs.Precond {
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf("η = %g, diagonal preconditioner from %.3g to %.3g", cs.Eta, lo, hi)
}

// iasgNetDraws and iasgNetBurnin are IASG's run length on a network unless
// {iters} is given: 1,000 kept draws a chain, the number the general default
// keeps ((500,000 − 50,000)/450), after 100 of burn-in (a tenth, as there),
// at thin 1. An IASG iteration is already the mean of a window of N/S SGD
// steps (one pass), so the general default, which counts single steps for the
// other samplers, would run N/S times as many gradients: on yacht split 0
// (N = 277, batch 10, window 27) 13,500,000 SGD steps a chain and about
// 900 s of CPU, against 29,700 steps and 8.9 s (the whole job) here.
const (
	iasgNetDraws  = 1000
	iasgNetBurnin = 100
)

// iasgNetLength sets IASG's length on a network (iasgNetDraws after
// iasgNetBurnin, thin 1) where the flags leave it.
func iasgNetLength(c *Config) {
	if c.Set["iters"] {
		return
	}
	if !c.Set["burnin"] {
		c.Burnin = iasgNetBurnin
	}
	if !c.Set["thin"] {
		c.Thin = 1
	}
	c.Iters = c.Burnin + iasgNetDraws*c.Thin
}

// iasgNetLengthNote is the auto: line of iasgNetLength's rule: window is the
// SGD steps a draw averages.
func iasgNetLengthNote(c *Config, window int) string {
	return fmt.Sprintf("auto:     length: IASG on a network: %d draws a chain after %d of burn-in, thin %d (%d iterations, unless {iters}) — a draw is the mean of a window of %d SGD steps (one pass, N/B), so the chain takes %d SGD steps; 1,000 draws a chain is what the general default keeps, whose 500,000 iterations count single SGD steps for the other samplers and would here run %d× as many gradients",
		(c.Iters-c.Burnin)/c.Thin, c.Burnin, c.Thin, c.Iters, window, c.Iters*window, window)
}
