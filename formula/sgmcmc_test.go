package formula

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/transform"
)

// The two cases of issue 22 where SGLD through NewPlan was wrong with no
// warning (hierarchical logistic: R̂ 1.20, ESS 15; horseshoe: R̂ 2.41):
// run as the command runs SGLD (NewPlan's step, preconditioner, burn-in;
// until min bulk-ESS 400 and R̂ ≤ 1.01, or a budget of iterations), the
// summary must either pass or carry a warning naming the failure; a run
// that diverges stops with an error naming it (the horseshoe's, at seed 1).

// runPlanSGLD runs SGLD as NewPlan sets it up, for at most iters
// iterations per chain, and returns the summary warnings of θ and the
// derived quantities.
func runPlanSGLD(t *testing.T, m langevin.Model, iters int) []string {
	t.Helper()
	ctx := context.Background()
	plan, err := fit.NewPlan(ctx, m, fit.PlanOptions{Kind: "sgld", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan:\n%v", plan)
	var why string
	tr, err := langevin.Run(ctx, m, plan.Sampler, langevin.Options{
		Chains: 4, Iters: plan.BurnIn + iters, BurnIn: plan.BurnIn, Thin: 1, MaxKeep: 250, Seed: 1,
		Init:       fit.InitGaussian{Mean: plan.MAP, Cov: plan.Cov},
		CheckEvery: 200, Until: fit.UntilESS(m.Dim(), 400, time.Now(), 0, &why),
	})
	var div *langevin.DivergenceError
	if errors.As(err, &div) {
		// The run stops with an error naming the failure (the command
		// prints it and keeps the draws before it).
		t.Logf("run error: %v", err)
		return []string{err.Error()}
	}
	if err != nil {
		t.Fatal(err)
	}
	names := append(langevin.ParamNames(m), m.(langevin.Deriver).DerivedNames()...)
	table := diag.Summarize(names, tr.Params())
	w := table.Warnings(tr.NumChains())
	t.Logf("%d draws a chain, stop: %q; %d warnings, first %v", tr.NumDraws(), why, len(w), w[:min(3, len(w))])
	return w
}

func TestSGLDHierarchicalWarns(t *testing.T) {
	if testing.Short() && os.Getenv("LANGEVIN_LONG") == "" {
		t.Skip("SGLD run")
	}
	fr := simFrame(2000, 20, "bernoulli", 5)
	f, _ := Parse("y ~ x + (1 + x | g)")
	m, err := New(f, fr, Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	if w := runPlanSGLD(t, m, 20000); len(w) == 0 {
		t.Error("SGLD on the correlated varying intercepts and slopes passed with no warning")
	}
}

// horseshoe is the regularised horseshoe (Piironen and Vehtari 2017) on
// p = 30 coefficients of a linear regression, 3 of them non-zero:
// β_j = z_j τ λ̃_j, λ̃_j² = c²λ_j²/(c² + τ²λ_j²), z ~ N(0, 1),
// λ ~ C⁺(0, 1), τ ~ C⁺(0, τ₀), c² ~ InvGamma(2, 8), σ ~ N⁺(0, 1).
func horseshoe(n, p int) *ad.Model {
	fr := simFrame(n, 5, "gaussian", 9)
	x, _ := fr.Column("x")
	w, _ := fr.Column("w")
	X := make([]float64, n*p)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			v := x.Num[(i*7+j*13)%n]*float64(j%3+1)/2 + w.Num[(i*11+j*5)%n]
			X[i*p+j] = v
		}
		y[i] = 1.5*X[i*p] - 1*X[i*p+1] + 0.5*X[i*p+2] + 0.8*x.Num[(i*3)%n]
	}
	Xm := ad.NewMatrix(denseOf(n, p, X))
	var l transform.Layout
	z := l.Add("z", transform.Identity(p))
	lam := l.Add("lambda", transform.Positive(p))
	tau := l.Add("tau", transform.Positive(1))
	c2 := l.Add("c2", transform.Positive(1))
	sig := l.Add("sigma", transform.Positive(1))
	a := l.Add("alpha", transform.Identity(1))
	tau0 := 3.0 / float64(p-3) / 10
	beta := func(t *ad.Tape) ad.Vec {
		tl := t.Mul(t.Param(tau), t.Param(lam))
		lt := t.Sqrt(t.Div(t.Mul(t.Param(c2), t.Square(t.Param(lam))), t.Add(t.Param(c2), t.Square(tl))))
		return t.Mul(t.Param(z), t.Mul(t.Param(tau), lt))
	}
	return ad.New(&l, n, func(t *ad.Tape) ad.Vec {
		return t.Total(t.Normal(t.Param(z), t.Const(0), t.Const(1)), t.HalfCauchy(t.Param(lam), t.Const(1)),
			t.HalfCauchy(t.Param(tau), t.Const(tau0)), t.InvGamma(t.Param(c2), t.Const(2), t.Const(8)),
			t.HalfNormal(t.Param(sig), t.Const(1)), t.Normal(t.Param(a), t.Const(0), t.Const(5)))
	}, func(t *ad.Tape, batch []int) ad.Vec {
		return t.NormalIDGLM(y, Xm, batch, t.Param(a), beta(t), t.Param(sig))
	})
}

func TestSGLDHorseshoeWarns(t *testing.T) {
	if testing.Short() && os.Getenv("LANGEVIN_LONG") == "" {
		t.Skip("SGLD run")
	}
	if w := runPlanSGLD(t, horseshoe(500, 30), 20000); len(w) == 0 {
		t.Error("SGLD on the regularised horseshoe passed with no warning")
	}
}
