package main

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// stabilityStep applies the stability cap (sampler.StableStep) to SGLD's
// and cSGLD's step on a data model with a MAP: without --step it sets the
// step to min(rule, κ/λmax(MH)), the rule being defaultStep's; with --step it
// warns when η·λmax(MH) exceeds the budget κ = 0.1 or the stability limit 2.
// It returns the line that says so (empty when it does not apply).
func stabilityStep(ctx context.Context, f *runFlags, m langevin.Model, lap *approx.RunLaplace, precond, mapTheta []float64) (string, error) {
	if (f.sampler != "sgld" && f.sampler != "csgld") || toyModel(f.model) || mapTheta == nil {
		return "", nil
	}
	la, err := lap.Approx(ctx)
	if err != nil {
		return fmt.Sprintf("stability: not checked (%v)", err), nil
	}
	st, err := sampler.NewStableStep(la.Prec, precond, 0)
	if err != nil {
		return fmt.Sprintf("stability: not checked (%v)", err), nil
	}
	mName := "M = I"
	if precond != nil {
		mName = "M the diagonal Laplace preconditioner"
	}
	if f.set["step"] {
		if w := st.Warning(f.step); w != "" {
			return "warning:  --" + w, nil
		}
		return fmt.Sprintf("stability: --step %.3g: η·λmax(MH) = %.3g ≤ %g (λmax(MH) = %.3g at the MAP, %s; largest stable step %.3g)",
			f.step, f.step*st.LambdaMax, st.Budget, st.LambdaMax, mName, st.Limit()), nil
	}
	rule := defaultStep(f, m.Len())
	f.step, f.set["step"] = st.Cap(rule), true
	if f.step < rule {
		return fmt.Sprintf("step:     η = %.3g = κ/λmax(MH), the stability cap η·λmax(MH) ≤ κ = %g (λmax(MH) = %.3g at the MAP, %s; variance inflation ≤ %.1f%%, stable limit %.3g); the noise-fraction rule's %.3g would have η·λmax(MH) = %.3g (variance inflated up to ×%.3g)",
			f.step, st.Budget, st.LambdaMax, mName, 100*(st.Inflation(f.step)-1), st.Limit(), rule, rule*st.LambdaMax, st.Inflation(rule)), nil
	}
	return fmt.Sprintf("step:     η = %.3g by the noise-fraction rule; η·λmax(MH) = %.3g ≤ κ = %g (λmax(MH) = %.3g at the MAP, %s; variance inflation ≤ %.1f%%)",
		f.step, f.step*st.LambdaMax, st.Budget, st.LambdaMax, mName, 100*(st.Inflation(f.step)-1)), nil
}
