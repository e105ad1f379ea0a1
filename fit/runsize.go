package fit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
)

// SettingsOf lists the settings of the configuration c: the run's, or the
// configuration as run ({sampler} auto's choice). The model is {model}'s,
// or the one the run built when j.ModelSettings names it ({formula}). On a
// network run by {sampler} auto, precond and init are the plan's
// (fisher-groups: its per-group Fisher preconditioner; modes: each chain at
// its own Adam mode) and modes is their number.
func (j *Problem) SettingsOf(c *Config) [][2]string {
	b := j.Env
	step := ""
	if b.Sched != nil {
		step = FmtF(b.Sched.At(1))
	}
	all := [][2]string{{"model", c.Model}}
	if j.ModelSettings != nil {
		all = slices.Clone(j.ModelSettings)
	}
	all = append(all, [][2]string{
		{"data", c.Data}, {"test", c.Test}, {"target", c.Target},
		{"algorithm", c.Sampler}, {"schedule", c.Schedule},
		{"step", step}, {"step_a", FmtF(b.StepA)},
		{"step_b", FmtF(c.StepB)}, {"decay", FmtF(c.Decay)},
		{"batch", strconv.Itoa(c.Batch)}, {"replace", strconv.FormatBool(c.Replace)},
		{"temperature", FmtF(c.Temperature)}, {"precond", c.Precond},
		{"clip", FmtF(c.Clip)}, {"clip_value", FmtF(c.ClipValue)},
		{"chains", strconv.Itoa(c.Chains)}, {"iters", strconv.Itoa(c.Iters)},
		{"burnin", strconv.Itoa(c.Burnin)}, {"thin", strconv.Itoa(c.Thin)},
		{"seed", strconv.FormatUint(c.Seed, 10)}, {"init", c.Init},
		{"standardize", strconv.FormatBool(c.Standardize)}, {"intercept", strconv.FormatBool(c.Intercept)},
		{"noise_every", strconv.Itoa(c.NoiseEvery)},
	}...)
	if b != nil && b.Auto != nil && b.Auto.Net != nil {
		// {sampler} auto on a network: the plan's starts and preconditioner,
		// not the flags' (unused) values, so that the chain files say what ran.
		net := b.Auto.Net
		for i, kv := range all {
			switch kv[0] {
			case "precond":
				all[i][1] = "fisher-groups"
			case "init":
				all[i][1] = "modes"
			}
		}
		all = append(all, [2]string{"modes", strconv.Itoa(len(net.Modes))})
	}
	var out [][2]string
	for _, kv := range all {
		if c.Formula.Text != "" && (kv[0] == "standardize" || kv[0] == "intercept") {
			continue // the formula says whether it has an intercept; nothing is standardised
		}
		if kv[1] != "" {
			out = append(out, kv)
		}
	}
	return out
}

// FmtF formats v in the shortest form that reads back exactly.
func FmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rowBytes is the memory of one kept draw of m in a trace: the model's
// columns (derived quantities included) and about 8 sampler statistics as
// float64s, two slice headers and the iteration.
func rowBytes(m langevin.Model) int64 {
	cols := int64(m.Dim()+len(DerivedNames(m))) + 8
	return cols*8 + 56
}

// CheckRunSize refuses, before the sampling, a run whose draws held in
// memory (warm-up included: run keeps them for the report) would not fit:
// the rows langevin.Options.KeptRows counts (auto's growing thinning, MaxKeep,
// included), each of the model's columns and about 8 statistics, and the
// d×d matrices of the dense curvature the run forms (DenseCurvatureNeed).
// The arithmetic saturates: {iters} near 2^63 is refused, not wrapped round.
func CheckRunSize(c *Config, m langevin.Model, o langevin.Options) error {
	warm, post := o.KeptRows()
	keep := budget.SatAdd(warm, post)
	cols := int64(m.Dim()+len(DerivedNames(m))) + 8 // + the sampler's statistics, about 8
	perRow := rowBytes(m)
	draws := budget.SatMul(budget.SatMul(int64(max(o.Chains, 1)), keep), perRow)
	curv, what := DenseCurvatureNeed(c, m)
	need := budget.SatAdd(draws, curv)
	limit := budget.Memory()
	if need <= limit {
		return nil
	}
	why := ""
	if warm > post {
		why = fmt.Sprintf(" (%d of them warm-up draws, kept for the report)", warm)
	}
	if curv > 0 && draws <= limit { // the curvature tips it: say so, and what to change
		return InputErrorf("%s: %s (%s) and the %d × %d kept draws%s of %d columns (%s) would take %s in memory, more than %s (half this machine's memory, or a quarter of ulimit -v): %s",
			runSizeSettings(c, o), what, budget.FmtBytes(curv), max(o.Chains, 1), keep, why, cols, budget.FmtBytes(draws), budget.FmtBytes(need), budget.FmtBytes(limit), curvatureAdvice(c))
	}
	return InputErrorf("%s: the %d × %d kept draws%s of %d columns would take %s in memory, more than %s (half this machine's memory, or a quarter of ulimit -v): raise {thin}, or lower {iters} or {chains}",
		runSizeSettings(c, o), max(o.Chains, 1), keep, why, cols, budget.FmtBytes(need), budget.FmtBytes(limit))
}

// DenseCurvatureNeed returns the memory of the d×d matrices a run of c on m
// forms, and what they are: the dense Laplace approximation (the Hessian,
// its Cholesky factor, the precision and the covariance) under
// {precond} laplace or {init} laplace, and {sampler} auto's dense plan (the
// Laplace approximation and the step rule's matrices) at most
// DenseCurvatureMax parameters; 0 when the run forms none (auto's
// diagonal, block-arrow, cost and network plans; the samplers that need no
// Laplace approximation).
func DenseCurvatureNeed(c *Config, m langevin.Model) (int64, string) {
	d := m.Dim()
	if c.Sampler == "auto" {
		_, isNet := m.(Network)
		_, isMLP := m.(*model.MLP)
		if !isNet && !isMLP && !BlockPlanned(m, nil) && !CostPlanned(m) && !DiagPlanned(m, c.planKind()) {
			return DenseCurvatureBytes(d, DenseCurvatureMatrices), fmt.Sprintf("the plan's dense curvature at d = %d (%d d×d matrices: the Hessian, the Laplace covariance and the step rule's)", d, DenseCurvatureMatrices)
		}
	}
	if c.UsesLaplacePrecondOn(m) || c.UsesLaplaceInitOn(m) {
		return DenseCurvatureBytes(d, LaplaceMatrices), fmt.Sprintf("the dense Laplace approximation at d = %d (%d d×d matrices: the Hessian, the precision, its Cholesky factor and the covariance)", d, LaplaceMatrices)
	}
	return 0, ""
}

// curvatureAdvice is what to change when the dense curvature does not fit.
func curvatureAdvice(c *Config) string {
	switch {
	case c.Sampler == "auto" && c.Init == "laplace" && c.Set["init"]:
		return "drop {init} laplace (the plan starts the chains itself), or lower {chains}"
	case c.Sampler == "auto":
		return "lower {chains} or {target-ess}"
	case c.Set["precond"] || c.Set["init"]:
		return "drop {precond} laplace / {init} laplace, or use {sampler} auto (diagonal above d = 2500)"
	}
	return "use {precond} none and {init} map, or {sampler} auto (diagonal above d = 2500)"
}

// runSizeSettings names what set the draws a run keeps: the flags given,
// and the values the plan chose (or the defaults) for those not given, by
// what they are ("burn-in 481848") — never as a flag the user did not give
// ("{iters} 10000000", auto's cap, which its bound on kept draws makes moot).
func runSizeSettings(c *Config, o langevin.Options) string {
	var given, chosen []string
	for _, s := range []struct {
		flag, what string
		set, used  int
		counts     bool // the value enters the count (iterations: not under a bound on kept draws)
	}{
		{"chains", "chains", c.Chains, o.Chains, true},
		{"iters", "iterations", c.Iters, o.Iters, o.MaxKeep == 0},
		{"burnin", "burn-in", c.Burnin, o.BurnIn, o.SaveWarmup || o.MaxKeep == 0},
		{"thin", "thin", c.Thin, o.Thin, true},
	} {
		switch {
		case c.Set[s.flag] && s.flag == "chains" && c.ChainID > 0:
			given = append(given, fmt.Sprintf("{chains} %d {chain-id} %d", s.set, c.ChainID))
		case c.Set[s.flag]:
			given = append(given, fmt.Sprintf("{%s} %d", s.flag, s.set))
		case !s.counts:
		case s.flag == "chains":
			chosen = append(chosen, fmt.Sprintf("%d chains", s.used))
		default: // the plan's or the default: named by what it is, not as a flag
			chosen = append(chosen, fmt.Sprintf("%s %d", s.what, s.used))
		}
	}
	if _, post := o.KeptRows(); o.MaxKeep > 0 && post > 2*int64(o.MaxKeep) {
		chosen = append(chosen, fmt.Sprintf("the plan's rounds of %d iterations (a chain holds a round's draws before its bound of %d kept draws thins them)", o.CheckEvery, o.MaxKeep))
	}
	return strings.Join(append(given, chosen...), ", ")
}
