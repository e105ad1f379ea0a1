package fit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// The exact (full-data, Metropolis–Hastings or HMC) samplers of langevin run:
// {sampler} rwm|mala|nuts with {warmup}, {tune}, {target-accept} and
// {max-depth}.

func init() {
	k := SamplerKind{Exact: true, laplace: true}
	for _, e := range []struct{ name, summary string }{
		{"rwm", "random-walk Metropolis, scale tuned to accept 0.234 (default 5000 + 20000 iterations)"},
		{"mala", "Metropolis-adjusted Langevin, step tuned to accept 0.574 (default 2000 + 10000)"},
		{"nuts", "the no-U-turn sampler with Stan's warm-up (default 1000 + 1000)"},
	} {
		RegisterSampler(&SamplerDef{name: e.name, family: "exact", summary: e.summary, Kind: k, flags: []string{"exact"}, Build: buildExact})
	}
	RegisterFlags(FlagGroup{Name: "exact", Title: "Exact-sampler flags", Define: func(fs FlagDefiner) any {
		o := &ExactFlags{}
		fs.IntVar(&o.warmup, "warmup", 0, "warm-up iterations `N` (an alias of {burnin}: the step size and metric adapt during the burn-in)")
		fs.Float64Var(&o.targetAccept, "target-accept", 0, "target mean accept_stat `A` of the step-size tuning (default 0.234 rwm, 0.574 mala, 0.8 nuts)")
		fs.StringVar(&o.tune, "tune", "dual", "step-size tuning during warm-up: none|dual (dual averaging)|grid (grid search, scored by {grid-score})")
		fs.StringVar(&o.gridScore, "grid-score", "accept", "{tune} grid's criterion: accept (the step whose mean accept_stat is closest to {target-accept}, on the grid ε₀·2^k, k = −4…4) or esjd (the largest expected squared jump distance, on the grid ε₀·2^(k/4), k = −8…8, refined by a parabola: lands near 0.234 for rwm and 0.574 for mala without being told)")
		fs.IntVar(&o.maxDepth, "max-depth", 10, "maximum tree depth `D` of nuts")
		fs.StringVar(&o.Metric, "metric", "diag", "metric: diag|dense (nuts adapts it in Stan's windows; rwm and mala use the Laplace approximation's (co)variance with {precond} laplace)")
		return o
	}})
}

// ExactFlags are the settings of the exact samplers (NUTS, MALA, RWM): warm-up,
// tree depth, target acceptance, tuning and metric.
type ExactFlags struct {
	warmup, maxDepth        int
	targetAccept            float64
	tune, Metric, gridScore string
}

// exactDefaults are the exact samplers: their iteration counts when
// {iters}/{burnin}/{warmup}/{thin} are not given (the CLI's SGLD defaults,
// 500000/50000/450, would waste hours on a full-data sampler), and their
// kernel for a step (0: tuned), a diagonal or dense preconditioner and the
// warm-up's adaptation.
var exactDefaults = map[string]struct {
	warmup, draws int
	kernel        func(step float64, precond []float64, cov *mat.SymDense, a sampler.Adapt, o *ExactFlags) langevin.Sampler
}{
	"nuts": {1000, 1000, func(step float64, precond []float64, _ *mat.SymDense, a sampler.Adapt, o *ExactFlags) langevin.Sampler { // Stan's
		return sampler.NUTS{Step: step, MaxDepth: o.maxDepth, Precond: precond, Adapt: a}
	}},
	"mala": {2000, 10000, func(step float64, precond []float64, cov *mat.SymDense, a sampler.Adapt, _ *ExactFlags) langevin.Sampler {
		return sampler.MALA{Step: step, Precond: precond, PrecondFull: cov, Adapt: a}
	}},
	"rwm": {5000, 20000, func(step float64, precond []float64, cov *mat.SymDense, a sampler.Adapt, _ *ExactFlags) langevin.Sampler {
		return sampler.RWM{Step: step, Precond: precond, PrecondFull: cov, Adapt: a}
	}},
}

// resolveExact resolves {warmup} against {burnin} and fills in the exact
// samplers' defaults. {warmup} N is an alias of {burnin} N (the warm-up,
// during which the step size and metric adapt, is the burn-in); giving both
// with different values is an error.
func (c *Config) resolveExact() error {
	o := Opt[*ExactFlags](c, "exact")
	if err := OneOf("tune", o.tune, "none", "dual", "grid"); err != nil {
		return err
	}
	if err := OneOf("metric", o.Metric, "diag", "dense"); err != nil {
		return err
	}
	if err := OneOf("grid-score", o.gridScore, "accept", "esjd"); err != nil {
		return err
	}
	if c.Set["grid-score"] && o.tune != "grid" {
		return InputErrorf("{grid-score} %s: only with {tune} grid", o.gridScore)
	}
	if c.Set["warmup"] {
		if c.Set["burnin"] && c.Burnin != o.warmup {
			return InputErrorf("{warmup} %d and {burnin} %d: {warmup} is an alias of {burnin}; give one", o.warmup, c.Burnin)
		}
		if o.warmup < 0 {
			return InputErrorf("{warmup} %d: expected ≥ 0", o.warmup)
		}
		c.Burnin = o.warmup
		c.Set["burnin"] = true
	}
	if c.Set["target-accept"] && !(o.targetAccept > 0 && o.targetAccept < 1) {
		return InputErrorf("{target-accept} %v: expected a number in (0, 1)", o.targetAccept)
	}
	if c.Set["max-depth"] && (o.maxDepth < 1 || o.maxDepth > 30) {
		return InputErrorf("{max-depth} %d: expected 1 … 30", o.maxDepth)
	}
	def := exactDefaults[c.Sampler]
	switch {
	case !c.Set["burnin"] && !c.Set["iters"]:
		c.Burnin, c.Iters = def.warmup, def.warmup+def.draws
	case !c.Set["iters"]:
		c.Iters = c.Burnin + def.draws
	case !c.Set["burnin"]:
		c.Burnin = min(def.warmup, c.Iters/2)
	}
	if !c.Set["thin"] {
		c.Thin = 1
	}
	if n := map[string]int{"accept": 9, "esjd": 17}[o.gridScore]; o.tune == "grid" && c.Burnin < n {
		return InputErrorf("{tune} grid: the warm-up ({warmup}/{burnin} %d) must have at least %d iterations, one segment per grid step", c.Burnin, n)
	}
	if o.tune == "none" && !c.StepSet {
		return InputErrorf("{tune} none: give the step with {step} (η for mala, σ for rwm, ε for nuts)")
	}
	return nil
}

// buildExact returns the rwm, mala or nuts sampler; b.Precond is the
// diagonal Laplace approximation (nil with {precond} none). With {metric}
// dense, NUTS adapts a dense metric (Stan's dense_e), and RWM and MALA use
// the dense Laplace covariance (or, with {precond} none, adapt a dense one).
func buildExact(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c := b.C
	o := Opt[*ExactFlags](c, "exact")
	a := sampler.Adapt{Warmup: c.Burnin, TargetAccept: o.targetAccept}
	precond := b.Precond
	if c.Sampler == "nuts" && !c.Set["precond"] && o.Metric != "dense" && CostPlanned(b.M) && b.MapTh != nil {
		// A formula model with group terms: the Laplace diagonal at the
		// joint mode only when the mode is not degenerate (newCostPlan);
		// otherwise the plan's start off the mode and its metric.
		p, err := NewPlan(ctx, b.M, PlanOptions{Kind: "nuts", MAP: b.MapTh, Seed: c.Seed})
		if err != nil {
			return nil, err
		}
		var in langevin.Initializer
		if p.Start != nil {
			precond, in = p.Precond, p.Start
			b.StepNote = "nuts:     " + p.Fallback + ": " + p.PrecondWhy
		} else {
			if precond, err = b.Lap.Diag(ctx); err != nil {
				return nil, err
			}
			in = approx.InitLaplace{Mean: b.MapTh, Var: precond}
		}
		if !c.Set["init"] {
			b.Init = in
		}
	}
	var cov *mat.SymDense
	if o.Metric == "dense" {
		if precond != nil && c.Sampler != "nuts" {
			l, err := b.Lap.Approx(ctx)
			if err != nil {
				return nil, err
			}
			cov = l.Cov
		} else {
			a.Metric = sampler.MetricDense
		}
		precond = nil
	}
	switch o.tune {
	case "none":
		a.Tune = sampler.TuneNone
	case "grid":
		a.Tune = sampler.TuneGrid
		if o.gridScore == "esjd" {
			a.Score = sampler.GridESJD
		}
	}
	step := 0.0
	if c.StepSet {
		step = c.Step
	}
	b.StepA = step
	return exactDefaults[c.Sampler].kernel(step, precond, cov, a, o), nil
}

// PrintExact prints the exact samplers' per-chain statistics: tuned step,
// mean acceptance statistic, divergences and tree depths (NUTS).
func PrintExact(w io.Writer, c *Config, tr *langevin.Trace) {
	acc, _ := tr.Stat("accept_stat__")
	step, _ := tr.Stat("stepsize__")
	div, hasDiv := tr.Stat("divergent__")
	depth, _ := tr.Stat("treedepth__")
	leap, _ := tr.Stat("n_leapfrog__")
	o := Opt[*ExactFlags](c, "exact")
	target := o.targetAccept
	if target == 0 {
		target = map[string]float64{"rwm": 0.234, "mala": 0.574, "nuts": 0.8}[c.Sampler]
	}
	name := map[string]string{"rwm": "σ", "mala": "η", "nuts": "ε"}[c.Sampler]
	tune := o.tune
	if tune == "grid" {
		tune += " scored by " + o.gridScore
	}
	if o.tune == "grid" && o.gridScore == "esjd" {
		fmt.Fprintf(w, "tuning:   %s (largest expected squared jump; target accept_stat not used), warm-up %d iterations, %s metric\n", tune, c.Burnin, o.Metric)
	} else {
		fmt.Fprintf(w, "tuning:   %s, target accept_stat %.3g, warm-up %d iterations, %s metric\n", tune, target, c.Burnin, o.Metric)
	}
	var totalDiv float64
	saturated, kept, leapSum := 0, 0, 0.0
	for k := range tr.Draws {
		if len(acc[k]) == 0 {
			continue
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "chain %d:  %s = %.3g, mean accept_stat %.3f", k+1, name, step[k][0], stat.Mean(acc[k], nil))
		if hasDiv {
			n := floats.Sum(div[k])
			totalDiv += n
			fmt.Fprintf(&sb, ", %.0f divergences, mean tree depth %.2f, mean n_leapfrog %.1f", n, stat.Mean(depth[k], nil), stat.Mean(leap[k], nil))
			if mx := floats.Max(depth[k]); o.maxDepth > 0 && mx >= float64(o.maxDepth) {
				fmt.Fprintf(&sb, " (max depth %d reached)", o.maxDepth)
			}
			for i, d := range depth[k] {
				if o.maxDepth > 0 && d >= float64(o.maxDepth) {
					saturated++
				}
				leapSum += leap[k][i]
			}
			kept += len(depth[k])
		}
		fmt.Fprintln(w, sb.String())
	}
	if totalDiv > 0 {
		fmt.Fprintf(w, "warning:  %.0f divergent transitions after warm-up: the draws may be biased (raise {target-accept})\n", totalDiv)
	}
	if l := TreeDepthWarning(saturated, kept, o.maxDepth, leapSum/float64(max(kept, 1))); l != "" {
		fmt.Fprintln(w, l)
		if e0, e1, k := initialStepDrop(tr, step); e0 > 0 {
			fmt.Fprintf(w, "warning:  chain %d's step fell from ε = %.3g in the first tenth of warm-up, on the initial metric, to ε = %.3g after warm-up adapted it: the metric warm-up estimated is what does not fit (each update is regularised towards 10⁻³·I, Stan's rule, far from a posterior whose sds are far from 1): scale the parameters to order 1\n", k+1, e0, e1)
		}
	}
	for _, s := range diag.StuckWarnings(tr.Draws, acc, tr.Dim) {
		fmt.Fprintf(w, "warning:  %s\n", s)
	}
}

// TreeDepthWarning returns the warning of a NUTS run whose trajectories
// hit the maximum tree depth — saturated of kept iterations at depth
// maxDepth, meanLeap leapfrog steps an iteration on average — or "" when
// none did. Stan prints it as "N of M iterations saturated the maximum
// tree depth of 10". A trajectory stopped by the depth limit has not
// turned: each draw costs 2^maxDepth gradients and moves less far than
// NUTS would take it, because the metric does not match the posterior's
// scales — with a metric M that makes MH ≈ I, NUTS takes 3–7 leapfrog
// steps (tree depth 2–3), so the saturation says the preconditioner's
// MH ≈ I does not hold.
func TreeDepthWarning(saturated, kept, maxDepth int, meanLeap float64) string {
	if saturated == 0 || kept == 0 {
		return ""
	}
	return fmt.Sprintf("warning:  %d of %d iterations saturated the maximum tree depth of %d (%.0f%%; mean n_leapfrog %.0f): the trajectories stopped before they turned (up to %d gradients each; with a metric that makes MH ≈ I NUTS needs 3–7), so the draws explore slowly; either the metric does not fit the posterior's scales (MH ≈ I does not hold: rescale the predictors, or scale() them in a formula, or reparameterise) or {max-depth} is too low",
		saturated, kept, maxDepth, 100*float64(saturated)/float64(kept), meanLeap, 1<<maxDepth-1)
}

// initialStepDrop returns, for the chain whose step fell most, the median
// NUTS step over the first tenth of its warm-up (at least 5 iterations:
// before the first metric update, on the initial metric) and its step after
// warm-up, when the latter is more than 30 times smaller; e0 = 0 otherwise
// or when the warm-up draws were not kept.
func initialStepDrop(tr *langevin.Trace, step [][]float64) (e0, e1 float64, chain int) {
	si := tr.StatIndex("stepsize__")
	if si < 0 {
		return 0, 0, 0
	}
	worst := 30.0
	for k, wd := range tr.Warmup {
		n := len(wd.Stats) / 10
		if n < 5 || k >= len(step) || len(step[k]) == 0 {
			continue
		}
		first := make([]float64, n)
		for i := range first {
			first[i] = wd.Stats[i][si]
		}
		slices.Sort(first)
		med, last := first[n/2], step[k][len(step[k])-1]
		if last > 0 && med/last > worst {
			worst, e0, e1, chain = med/last, med, last, k
		}
	}
	return e0, e1, chain
}
