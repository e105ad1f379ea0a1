package fit

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/schedule"
)

// PrintPredictive prints the test-set table of ScoreTest: the
// posterior predictive and the MAP on the test set.
func PrintPredictive(w io.Writer, m langevin.Model, tr *langevin.Trace, mapTheta []float64, test *data.Dataset) {
	sc, err := ScoreTest(m, tr, mapTheta, test)
	if err != nil {
		fmt.Fprintf(w, "test set: %v\n\n", err)
		return
	}
	sc.Format(w)
}

// printScores prints the test-set table of score (NewTestTable).
func printScores(w io.Writer, name string, n int, draws [][]float64, mapTheta []float64, score func([][]float64) (float64, float64, error), note string) {
	sc, err := NewTestTable(name, n, draws, mapTheta, score, note)
	if err != nil {
		fmt.Fprintf(w, "test set: %v\n\n", err)
		return
	}
	sc.Format(w)
}

// predictBudget bounds the row·draw evaluations of the Streamed test-set
// predictions (about 10 s on one core at ≈ 100 ns per row and draw).
const predictBudget = 100_000_000

// PrintPredictiveRows is PrintPredictive on a test set Streamed in blocks
// (a store): the same lines, the same numbers, but from at most
// predictBudget/n evenly thinned draws for n test rows (a note says so).
func PrintPredictiveRows(w io.Writer, m langevin.Model, tr *langevin.Trace, mapTheta []float64, test data.Rows) {
	c, ok := m.(predict.Classifier)
	if !ok {
		fmt.Fprintf(w, "test set: the model gives no class probabilities\n\n")
		return
	}
	d := m.Dim()
	all := tr.Rows()
	// At most predictBudget row·draw evaluations: evenly thinned draws.
	idx := diag.ThinIndex(len(all), max(1, predictBudget/max(1, test.Len())))
	rows := make([][]float64, len(idx))
	for i, k := range idx {
		rows[i] = all[k][:d]
	}
	score := func(draws [][]float64) (float64, float64, error) {
		sc, err := predict.ClassifyBlocks(c, draws, data.Blocks(test, 0), predict.ClassifyOptions{ProbsOnly: true}, 0, nil)
		if err != nil {
			return 0, 0, err
		}
		return sc.Metrics.Accuracy, -sc.Metrics.NLL, nil
	}
	var note string
	if len(rows) < len(all) {
		note = fmt.Sprintf("(test-set predictions from %d of the %d draws, evenly thinned: at most %.0e row·draw evaluations)\n", len(rows), len(all), float64(predictBudget))
	}
	printScores(w, "accuracy", test.Len(), rows, mapTheta, score, note)
}

// PrintWhere says where the draws went: counts, time, ESS per second, step
// sizes, the noise crossover, clipping and warnings. sched is the step
// schedule the sampler ran on (BuildEnv.Sched; nil: none, or not known).
func PrintWhere(w io.Writer, c *Config, tr *langevin.Trace, table diag.Table, elapsed time.Duration, mapTheta []float64, sched schedule.Schedule) {
	kept, last, early := chainCounts(tr, c.Iters, c.Burnin, c.Thin)
	total := 0
	for _, l := range last {
		total += l
	}
	if early {
		fmt.Fprintf(w, "draws:    %d chains × %s kept (a chain stopped early: last kept iterations %s of %d; thin %d); %d burn-in iterations per chain discarded\n",
			tr.NumChains(), JoinInts(kept), JoinInts(last), c.Iters, c.Thin, c.Burnin)
	} else {
		fmt.Fprintf(w, "draws:    %d chains × %d kept (iterations %d–%d, thin %d); %d burn-in iterations per chain discarded\n",
			tr.NumChains(), kept[0], c.Burnin+1, c.Iters, c.Thin, c.Burnin)
	}
	minESS := math.Inf(1)
	for _, s := range table {
		if !math.IsNaN(s.ESSBulk) {
			minESS = math.Min(minESS, s.ESSBulk)
		}
	}
	secs := elapsed.Seconds()
	ess := "min bulk-ESS n/a (too few draws)"
	if !math.IsInf(minESS, 1) {
		ess = fmt.Sprintf("min bulk-ESS %.0f, %.0f per second", minESS, minESS/secs)
	}
	perIter := "no iteration"
	if total > 0 {
		perIter = fmt.Sprintf("%.0f ns/iteration", secs*1e9/float64(total))
	}
	fmt.Fprintf(w, "sampling: %.2f s for %d iterations (%s, %d workers); %s\n",
		secs, total, perIter, min(c.Chains, runtime.GOMAXPROCS(0)), ess)

	if c.Def.Kind.Exact {
		PrintExact(w, c, tr)
	} else if steps, ok := tr.Stat("stepsize__"); ok && len(steps[0]) > 0 {
		// Iteration 1's step: the first warm-up draw's, or the schedule's
		// (with no burn-in, or draws not kept in a cycle's exploration, the
		// first kept draw is later: mid-cycle of a cyclic schedule, whose
		// step is η₀/2 there).
		first, at := steps[0][0], "the first kept draw"
		switch {
		case len(tr.Warmup[0].Stats) > 0:
			first, at = tr.Warmup[0].Stats[0][tr.StatIndex("stepsize__")], "iteration 1"
		case sched != nil:
			first, at = sched.At(1), "iteration 1"
		}
		// The step-weighted means are worth printing only when the steps of
		// the recorded draws differ (not, say, an ensemble's members, each
		// the last iterate of its own decaying Adam run).
		recFirst := steps[0][0]
		if len(tr.Warmup[0].Stats) > 0 {
			recFirst = first
		}
		last := steps[0][len(steps[0])-1]
		sym, schedText := "η", c.Schedule+" schedule"
		if p, ok := sched.(schedule.Polynomial); ok && c.Schedule == "const" {
			// a builder's own schedule (the network MAP rule's Adam decay)
			schedText = fmt.Sprintf("schedule %.3g·(%.3g + t)^-%g", p.A, p.B, p.Gamma)
		}
		if c.Sampler == "vi" { // VI's step is ρₜ of its natural-gradient updates
			sym = "ρ"
			if !c.StepSet {
				schedText = "VI's default schedule 0.1(100+t)^-0.6"
			}
		}
		fmt.Fprintf(w, "steps:    %s from %.3g (%s) to %.3g (iteration %d), %s\n", sym, first, at, last, c.Iters, schedText)
		if recFirst != last && !c.Def.Kind.Optimiser && c.Sampler != "vi" {
			printStepWeighted(w, tr, steps)
		}
	}
	if c.PrecondWhy != "" {
		fmt.Fprintf(w, "auto:     precond: none (%s; {precond} laplace to override)\n", c.PrecondWhy)
	}
	printCrossover(w, c, tr)
	if c.Clip > 0 || c.ClipValue > 0 {
		if cl, ok := tr.Stat("clipped__"); ok {
			var n float64
			for _, ch := range cl {
				if len(ch) > 0 {
					n += ch[len(ch)-1]
				}
			}
			frac := n / float64(total)
			fmt.Fprintf(w, "clipping: fired in %.0f of %d steps (%.1f%%)", n, total, 100*frac)
			if frac > 0.05 {
				fmt.Fprint(w, " — frequent clipping biases the result: raise {clip} or lower {step}")
			}
			fmt.Fprintln(w)
		}
	}
	if c.Def.Kind.Optimiser {
		// Optimisers: the draws are a trajectory, not posterior samples.
		fmt.Fprintf(w, "optimiser: %s iterates are a trajectory, not posterior draws: ESS and R-hat do not apply\n", strings.ToUpper(c.Sampler))
		if mapTheta != nil {
			var worst float64
			for _, ch := range tr.Draws {
				if len(ch) == 0 {
					continue
				}
				last := ch[len(ch)-1]
				for j := 0; j < tr.Dim; j++ {
					worst = math.Max(worst, math.Abs(last[j]-mapTheta[j]))
				}
			}
			fmt.Fprintf(w, "          final iterates: max |θ − MAP| = %.3g over chains and parameters (MAP by L-BFGS)\n", worst)
		}
		return
	}
	if c.Model == "mlp" {
		table = netWeightWarnings(w, table, tr.NumChains())
	}
	warn := table.WarningsLimit(tr.NumChains(), c.rhat.Limits(tr.Names[:tr.Dim], tr.NumChains()))
	if len(warn) > 0 {
		if len(warn) > 6 {
			warn = append(warn[:6], fmt.Sprintf("and %d more", len(warn)-6))
		}
		fmt.Fprintf(w, "warnings: %s\n", strings.Join(warn, "; "))
	}
}

// printCrossover reports the iteration from which the injected noise
// dominates the stochastic-gradient noise (Welling & Teh §4: where sampling
// takes over from optimisation), as the median over chains of diag.Crossover
// (windows of 1/50 of a chain's saved draws), and both noises over the last
// window.
func printCrossover(w io.Writer, c *Config, tr *langevin.Trace) {
	ki, kg := tr.StatIndex("noise_inj__"), tr.StatIndex("noise_grad__")
	if ki < 0 || kg < 0 || c.NoiseEvery == 0 || c.Batch == 0 {
		return
	}
	var cross []int
	var lastInj, lastGrad float64
	measured := 0 // chains with a gradient-noise estimate among their draws
	for k := range tr.Draws {
		var iters, inj, grad []float64
		for _, d := range []langevin.Draws{tr.Warmup[k], {Stats: tr.Stats[k], Iters: tr.Iters[k]}} {
			for t, st := range d.Stats {
				iters, inj, grad = append(iters, float64(d.Iters[t])), append(inj, st[ki]), append(grad, st[kg])
			}
		}
		if !slices.ContainsFunc(grad, func(v float64) bool { return !math.IsNaN(v) }) {
			continue // not measured in this chain's draws: no verdict
		}
		measured++
		if at, ok := diag.Crossover(iters, inj, grad); ok {
			cross = append(cross, int(at))
		}
		// The last window (of 1/50 of the draws) with a gradient-noise estimate.
		n := len(iters)
		win := max(1, n/50)
		for lo := (n - 1) / win * win; lo >= 0; lo -= win {
			var si, sg float64
			cnt := 0
			for t := lo; t < min(n, lo+win); t++ {
				if !math.IsNaN(grad[t]) {
					si, sg, cnt = si+inj[t], sg+grad[t], cnt+1
				}
			}
			if cnt > 0 {
				lastInj += si / float64(cnt) / float64(len(tr.Draws))
				lastGrad += sg / float64(cnt) / float64(len(tr.Draws))
				break
			}
		}
	}
	if measured == 0 {
		// The block plan measures the gradient noise every 5d steps (its
		// cost is |B| per-observation gradients): a shorter run has no
		// measurement, which says nothing either way.
		fmt.Fprintln(w, "noise:    the stochastic-gradient noise was not measured in the draws kept (the run ended before its first measurement), so no verdict on it")
		return
	}
	if measured < len(tr.Draws) { // the mean over the chains measured
		lastInj *= float64(len(tr.Draws)) / float64(measured)
		lastGrad *= float64(len(tr.Draws)) / float64(measured)
	}
	fmt.Fprintf(w, "noise:    over the last draws, injected noise variance %.3g vs stochastic-gradient noise %.3g per coordinate\n", lastInj, lastGrad)
	if len(cross) < measured {
		fmt.Fprintf(w, "          in %d of %d chains the gradient noise still exceeds the injected noise at the end: those draws are not posterior samples (lower {step}, raise {batch} or {iters})\n", measured-len(cross), measured)
		return
	}
	sort.Ints(cross)
	med := cross[len(cross)/2]
	fmt.Fprintf(w, "          injected noise dominates from iteration %d (median over chains)", med)
	if med > c.Burnin {
		fmt.Fprint(w, " — after burn-in: early draws are still optimisation, raise {burnin}")
	}
	fmt.Fprintln(w)
}

// chainCounts returns each chain's number of kept draws and the iterations it
// ran, and whether a chain stopped early (a divergence). A chain ran all
// iters iterations unless its last kept draw is at least thin iterations
// before the end, or it kept none; then it ran (at least) to the iteration
// of its last kept draw, or of its last saved warm-up draw.
func chainCounts(tr *langevin.Trace, iters, burnin, thin int) (kept, last []int, early bool) {
	kept, last = make([]int, tr.NumChains()), make([]int, tr.NumChains())
	for c, d := range tr.Draws {
		kept[c], last[c] = len(d), iters
		switch {
		case len(d) > 0 && tr.Iters[c][len(d)-1]+thin <= iters:
			last[c] = tr.Iters[c][len(d)-1]
		case len(d) == 0 && iters > burnin:
			last[c] = 0
			if c < len(tr.Warmup) && len(tr.Warmup[c].Iters) > 0 {
				last[c] = tr.Warmup[c].Iters[len(tr.Warmup[c].Iters)-1]
			}
		}
		early = early || last[c] < iters
	}
	return kept, last, early
}

// JoinInts joins v with ", ", as the draw accounting prints iteration lists.
func JoinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// LogOffsets returns the offsets of the column values v: log v for an
// exposure column, v itself otherwise (nil for none).
func LogOffsets(s model.Spec, v []float64) []float64 {
	if v == nil || !s.Exposure {
		return v
	}
	out := make([]float64, len(v))
	for i, u := range v {
		out[i] = math.Log(u)
	}
	return out
}

// PrintGLMPredictive prints the test-set scores of a GLM: accuracy (probit)
// or the RMSE of the posterior predictive mean, and the mean log predictive
// density, for the posterior and the MAP.
func PrintGLMPredictive(w io.Writer, g *model.GLM, tr *langevin.Trace, mapTheta []float64, test *data.Dataset, offset []float64) {
	d := g.Dim()
	rows := tr.Rows()
	for i := range rows {
		rows[i] = rows[i][:d]
	}
	name := "RMSE of predictive mean"
	if g.Kind() == model.Probit {
		name = "accuracy"
	}
	score := func(draws [][]float64) (float64, float64) {
		mean := predict.OffsetMean(g, draws, test.X, offset, nil)
		var first float64
		for i, m := range mean {
			if g.Kind() == model.Probit {
				if (m >= 0.5) == (test.Y[i] == 1) {
					first++
				}
			} else {
				first += (m - test.Y[i]) * (m - test.Y[i])
			}
		}
		first /= float64(len(mean))
		if g.Kind() != model.Probit {
			first = math.Sqrt(first)
		}
		return first, predict.OffsetLogPredictiveDensity(g, draws, test.X, offset, test.Y)
	}
	p1, p2 := score(rows)
	fmt.Fprintf(w, "test set (%d rows)        posterior predictive   MAP (optimisation)\n", test.Len())
	var m1, m2 float64
	if mapTheta != nil {
		m1, m2 = score([][]float64{mapTheta})
	}
	for _, row := range []struct {
		name       string
		post, mapv float64
	}{{name, p1, m1}, {"mean log pred. density", p2, m2}} {
		fmt.Fprintf(w, "  %-24s %-22s", row.name, FormatMetric(row.post))
		if mapTheta != nil {
			fmt.Fprintf(w, " %s", FormatMetric(row.mapv))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// printStepWeighted prints, for a run whose step changed, the step-weighted
// means Σηₜθₜ/Σηₜ of the first parameters beside their plain means
// (diag.StepWeightedMean; lecture notes (3.8)).
func printStepWeighted(w io.Writer, tr *langevin.Trace, steps [][]float64) {
	const show = 6
	var parts []string
	for j := 0; j < tr.Dim && j < show; j++ {
		chains := tr.Param(j)
		var sum float64
		var n int
		for _, ch := range chains {
			for _, v := range ch {
				sum += v
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%s %.3g (mean %.3g)", tr.Names[j], diag.StepWeightedMean(chains, steps), sum/float64(n)))
	}
	more := ""
	if tr.Dim > show {
		more = fmt.Sprintf(", and %d more", tr.Dim-show)
	}
	fmt.Fprintf(w, "weighted: step-weighted means Σηₜθₜ/Σηₜ of the kept draws (lecture notes (3.8)): %s%s\n", strings.Join(parts, ", "), more)
}

// netWeightWarnings prints one line for the weights and biases of a
// network that fail the per-parameter R̂/ESS rules, and returns the rest of
// the table (the noise, which is identified). A network's weights are not
// identified: permuting hidden units (and, for odd activations, flipping
// signs) gives the same function, so chains at different modes disagree on
// every weight while agreeing on the predictions; the convergence check of a
// network is its function-space line.
func netWeightWarnings(w io.Writer, table diag.Table, chains int) diag.Table {
	var rest, weights diag.Table
	for _, s := range table {
		if strings.HasPrefix(s.Name, "w.") || strings.HasPrefix(s.Name, "b.") {
			weights = append(weights, s)
		} else {
			rest = append(rest, s)
		}
	}
	bad := map[string]bool{}
	for _, s := range weights {
		if s.RHat > diag.RHatWarn || s.ESSBulk < float64(diag.ESSWarnPerChain*chains) {
			bad[s.Name] = true
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "weights:  %d of the %d weights and biases fail R̂ ≤ %g or bulk-ESS ≥ %d: expected, a network's weights are not identified (permuting hidden units gives the same function); its convergence check is the function-space line\n",
			len(bad), len(weights), diag.RHatWarn, diag.ESSWarnPerChain*chains)
	}
	return rest
}

// PrintClassScores prints a classifier's metrics, mean entropies and
// confusion matrix, and the Brier score's convention (predict.Metrics.Brier:
// the sum over the classes, Brier's own, twice scikit-learn's binary
// brier_score_loss).
func PrintClassScores(w io.Writer, met *predict.Metrics, h, e, mi float64) {
	fmt.Fprintf(w, "accuracy %.4f   NLL %.4f   Brier %.4f   ECE %.4f (%d bins)\n", met.Accuracy, met.NLL, met.Brier, met.ECE, met.Bins)
	// The Brier score's convention, which differs between tools.
	fmt.Fprintf(w, "Brier: (1/n) Σᵢ Σₖ (pᵢₖ − 1[yᵢ = k])², summed over the %d classes (Brier 1950; in [0, 2]); scikit-learn's brier_score_loss of the positive class is half of it for 2 classes\n", len(met.Confusion))
	fmt.Fprintf(w, "mean predictive entropy %.4f = expected entropy %.4f + mutual information %.4f (nats)\n\n", h, e, mi)
	fmt.Fprintln(w, "confusion matrix (rows: true class, columns: predicted)")
	for t, row := range met.Confusion {
		fmt.Fprintf(w, "%4d:", t)
		for _, v := range row {
			fmt.Fprintf(w, " %6d", v)
		}
		fmt.Fprintln(w)
	}
}
