package fit

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// stabilityCap applies the stability cap (sampler.StableStep) to the step of
// SGLD and cSGLD on a data model with a MAP, and returns the default step:
// without {step}, min(rule, κ/λmax(MH)) (κ = 0.1, H the negative Hessian at
// the MAP, M the preconditioner); with {step}, rule (unused), after checking
// the user's step against the budget and the stability limit 2/λmax(MH). It
// records the line that says which in b.stepNote (a warning when the user's
// step is beyond the budget).
func (b *BuildEnv) stabilityCap(ctx context.Context, rule float64) float64 {
	c := b.C
	if c.Toy() || b.MapTh == nil {
		return rule
	}
	_, isNet := b.M.(*model.MLP)
	if isNet && c.StepSet {
		// A network's Hessian at Adam's mode is often indefinite: the
		// user's step is checked against the floored Laplace precision
		// (its largest eigenvalue is the Hessian's), for d up to
		// netMaxHessianDim; the step itself is the user's.
		if d := b.M.Dim(); d > netMaxHessianDim {
			b.StepNote = fmt.Sprintf("stability: not checked (d = %d > %d)", d, netMaxHessianDim)
			return rule
		}
		la, _, err := b.Lap.Floored(ctx)
		if err == nil {
			var st sampler.StableStep
			if st, err = sampler.NewStableStep(la.Prec, b.Precond, 0); err == nil {
				if w := st.Warning(c.Step); w != "" {
					b.StepNote = "warning:  --" + w
				} else {
					b.StepNote = fmt.Sprintf("stability: {step} %.3g: η·λmax(MH) = %.3g ≤ %g (λmax(MH) = %.3g at the MAP, the network's Hessian with its eigenvalues floored at the prior's curvature; largest stable step %.3g)",
						c.Step, c.Step*st.LambdaMax, st.Budget, st.LambdaMax, st.Limit())
				}
				return rule
			}
		}
		b.StepNote = fmt.Sprintf("stability: not checked (%v)", err)
		return rule
	}
	if d := b.M.Dim(); b.Precond == nil && d > maxHessianDim {
		// No Laplace preconditioner: the Hessian would be built only for
		// the check (2d full-data gradients, d² numbers).
		b.StepNote = fmt.Sprintf("stability: not checked (d = %d > %d without the Laplace preconditioner's Hessian)", d, maxHessianDim)
		return rule
	}
	la, err := b.Lap.Approx(ctx)
	if err != nil {
		b.StepNote = fmt.Sprintf("stability: not checked (%v)", err)
		return rule
	}
	st, err := sampler.NewStableStep(la.Prec, b.Precond, 0)
	if err != nil {
		b.StepNote = fmt.Sprintf("stability: not checked (%v)", err)
		return rule
	}
	mName := "M = I"
	if b.Precond != nil {
		mName = "M the diagonal Laplace preconditioner"
	}
	if c.StepSet {
		if w := st.Warning(c.Step); w != "" {
			b.StepNote = "warning:  --" + w
		} else {
			b.StepNote = fmt.Sprintf("stability: {step} %.3g: η·λmax(MH) = %.3g ≤ %g (λmax(MH) = %.3g at the MAP, %s; largest stable step %.3g)",
				c.Step, c.Step*st.LambdaMax, st.Budget, st.LambdaMax, mName, st.Limit())
		}
		return rule
	}
	eta := st.Cap(rule)
	if eta < rule {
		b.StepNote = fmt.Sprintf("step:     η = %.3g = κ/λmax(MH), the stability cap η·λmax(MH) ≤ κ = %g (λmax(MH) = %.3g at the MAP, %s; variance inflation ≤ %.1f%%, stable limit %.3g); the noise-fraction rule's %.3g would have η·λmax(MH) = %.3g (variance inflated up to ×%.3g)",
			eta, st.Budget, st.LambdaMax, mName, 100*(st.Inflation(eta)-1), st.Limit(), rule, rule*st.LambdaMax, st.Inflation(rule))
	} else {
		b.StepNote = fmt.Sprintf("step:     η = %.3g by the noise-fraction rule; η·λmax(MH) = %.3g ≤ κ = %g (λmax(MH) = %.3g at the MAP, %s; variance inflation ≤ %.1f%%)",
			eta, eta*st.LambdaMax, st.Budget, st.LambdaMax, mName, 100*(st.Inflation(eta)-1))
	}
	return eta
}

// maxHessianDim is the largest dimension for which stabilityCap builds the
// Hessian when the preconditioner has not already built it (an MLP's is
// large and seldom positive definite).
const maxHessianDim = 200

// netMaxHessianDim is the largest network whose Hessian stabilityCap builds
// to check a user's {step} (2d full-data gradients, d² numbers: a UCI
// network's d ≤ 1,102 takes about a second on the small sets).
const netMaxHessianDim = 1200
