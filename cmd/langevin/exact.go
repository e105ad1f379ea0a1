package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// The exact (full-data, Metropolis–Hastings or HMC) samplers of langevin run:
// --sampler rwm|mala|nuts with --warmup, --tune, --target-accept and
// --max-depth.

// isExact reports whether name is one of the exact samplers.
func isExact(name string) bool { return name == "rwm" || name == "mala" || name == "nuts" }

// exactDefaults are the iteration counts of the exact samplers when
// --iters/--burnin/--warmup/--thin are not given: the CLI's SGLD defaults
// (500000/50000/450) would waste hours on a full-data sampler.
var exactDefaults = map[string]struct{ warmup, draws int }{
	"nuts": {1000, 1000}, // Stan's
	"mala": {2000, 10000},
	"rwm":  {5000, 20000},
}

// applyExactDefaults resolves --warmup against --burnin and fills in the
// exact samplers' defaults. --warmup N is an alias of --burnin N (the
// warm-up, during which the step size and metric adapt, is the burn-in);
// giving both with different values is an error.
func (f *runFlags) applyExactDefaults() error {
	if f.set["warmup"] {
		if f.set["burnin"] && f.burnin != f.warmup {
			return inputErrorf("--warmup %d and --burnin %d: --warmup is an alias of --burnin; give one", f.warmup, f.burnin)
		}
		if f.warmup < 0 {
			return inputErrorf("--warmup %d: expected ≥ 0", f.warmup)
		}
		f.burnin = f.warmup
		f.set["burnin"] = true
	}
	if f.set["target-accept"] && !(f.targetAccept > 0 && f.targetAccept < 1) {
		return inputErrorf("--target-accept %v: expected a number in (0, 1)", f.targetAccept)
	}
	if f.set["max-depth"] && (f.maxDepth < 1 || f.maxDepth > 30) {
		return inputErrorf("--max-depth %d: expected 1 … 30", f.maxDepth)
	}
	if !isExact(f.sampler) {
		return nil
	}
	def := exactDefaults[f.sampler]
	switch {
	case !f.set["burnin"] && !f.set["iters"]:
		f.burnin, f.iters = def.warmup, def.warmup+def.draws
	case !f.set["iters"]:
		f.iters = f.burnin + def.draws
	case !f.set["burnin"]:
		f.burnin = min(def.warmup, f.iters/2)
	}
	if !f.set["thin"] {
		f.thin = 1
	}
	f.warmup = f.burnin
	if f.tune == "grid" && f.burnin < 9 {
		return inputErrorf("--tune grid: the warm-up (--warmup/--burnin %d) must have at least 9 iterations, one segment per grid step", f.burnin)
	}
	return nil
}

// buildExactSampler returns the rwm, mala or nuts sampler of the flags;
// precond is the diagonal Laplace approximation (nil with --precond none).
// With --metric dense, NUTS adapts a dense metric (Stan's dense_e), and RWM
// and MALA use the dense Laplace covariance (or, with --precond none, adapt a
// dense one).
func buildExactSampler(ctx context.Context, f *runFlags, lap *approx.RunLaplace, precond []float64) (langevin.Sampler, error) {
	a := sampler.Adapt{Warmup: f.burnin, TargetAccept: f.targetAccept}
	var cov *mat.SymDense
	if f.metric == "dense" {
		if precond != nil && f.sampler != "nuts" {
			l, err := lap.Approx(ctx)
			if err != nil {
				return nil, err
			}
			cov, precond = l.Cov, nil
		} else {
			a.Metric = sampler.MetricDense
			precond = nil
		}
	}
	switch f.tune {
	case "none":
		a.Tune = sampler.TuneNone
		if !f.set["step"] {
			return nil, inputErrorf("--tune none: give the step with --step (η for mala, σ for rwm, ε for nuts)")
		}
	case "grid":
		a.Tune = sampler.TuneGrid
	}
	step := 0.0
	if f.set["step"] {
		step = f.step
	}
	switch f.sampler {
	case "rwm":
		return sampler.RWM{Step: step, Scale: precond, ScaleDense: cov, Adapt: a}, nil
	case "mala":
		return sampler.MALA{Step: step, Precond: precond, PrecondDense: cov, Adapt: a}, nil
	default:
		return sampler.NUTS{Step: step, MaxDepth: f.maxDepth, InvMetric: precond, Adapt: a}, nil
	}
}

// printExact prints the exact samplers' per-chain statistics: tuned step,
// mean acceptance statistic, divergences and tree depths (NUTS).
func printExact(w io.Writer, f *runFlags, tr *langevin.Trace) {
	acc, _ := tr.Stat("accept_stat__")
	step, _ := tr.Stat("stepsize__")
	div, hasDiv := tr.Stat("divergent__")
	depth, _ := tr.Stat("treedepth__")
	leap, _ := tr.Stat("n_leapfrog__")
	target := f.targetAccept
	if target == 0 {
		target = map[string]float64{"rwm": 0.234, "mala": 0.574, "nuts": 0.8}[f.sampler]
	}
	name := map[string]string{"rwm": "σ", "mala": "η", "nuts": "ε"}[f.sampler]
	fmt.Fprintf(w, "tuning:   %s, target accept_stat %.3g, warm-up %d iterations, %s metric\n", f.tune, target, f.burnin, f.metric)
	var totalDiv float64
	for c := range tr.Draws {
		if len(acc[c]) == 0 {
			continue
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "chain %d:  %s = %.3g, mean accept_stat %.3f", c+1, name, step[c][0], statMean(acc[c]))
		if hasDiv {
			n := statSum(div[c])
			totalDiv += n
			fmt.Fprintf(&sb, ", %.0f divergences, mean tree depth %.2f, mean n_leapfrog %.1f", n, statMean(depth[c]), statMean(leap[c]))
			if mx := statMax(depth[c]); f.maxDepth > 0 && mx >= float64(f.maxDepth) {
				fmt.Fprintf(&sb, " (max depth %d reached)", f.maxDepth)
			}
		}
		fmt.Fprintln(w, sb.String())
	}
	if totalDiv > 0 {
		fmt.Fprintf(w, "warning:  %.0f divergent transitions after warm-up: the draws may be biased (raise --target-accept)\n", totalDiv)
	}
}

func statMean(x []float64) float64 { return statSum(x) / float64(len(x)) }

func statSum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

func statMax(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
