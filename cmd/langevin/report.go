package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/predict"
)

// printPredictive scores the posterior predictive (the mean over all draws)
// and the MAP on the test set: accuracy or RMSE, and the mean log predictive
// density (package predict).
func printPredictive(w io.Writer, m langevin.Model, tr *langevin.Trace, mapTheta []float64, test *data.Dataset) {
	d := m.Dim()
	rows := tr.Rows()
	for i := range rows {
		rows[i] = rows[i][:d]
	}
	// score returns the accuracy (or RMSE) and the mean log predictive density.
	score := func(draws [][]float64) (float64, float64, error) {
		if c, ok := m.(predict.Classifier); ok {
			res, err := predict.Classify(c, draws, test.X, predict.ClassifyOptions{})
			if err != nil {
				return 0, 0, err
			}
			met, err := predict.Evaluate(res.Probs, test.Y, 0)
			if err != nil {
				return 0, 0, err
			}
			return met.Accuracy, -met.NLL, nil
		}
		r, ok := m.(predict.Regressor)
		if !ok {
			return 0, 0, fmt.Errorf("the model gives no predictions")
		}
		sc, err := predict.ScoreRegression(r, draws, test.X, test.Y)
		if err != nil {
			return 0, 0, err
		}
		return sc.RMSE, sc.LPD, nil
	}
	post1, post2, err := score(rows)
	if err != nil {
		fmt.Fprintf(w, "test set: %v\n\n", err)
		return
	}
	name := "RMSE"
	if _, ok := m.(predict.Classifier); ok {
		name = "accuracy"
	}
	fmt.Fprintf(w, "test set (%d rows)        posterior predictive   MAP (optimisation)\n", test.Len())
	var map1, map2 float64
	hasMAP := mapTheta != nil
	if hasMAP {
		if map1, map2, err = score([][]float64{mapTheta}); err != nil {
			hasMAP = false
		}
	}
	for _, row := range []struct {
		name       string
		post, mapv float64
	}{{name, post1, map1}, {"mean log pred. density", post2, map2}} {
		fmt.Fprintf(w, "  %-24s %-22s", row.name, fmtMetric(row.post))
		if hasMAP {
			fmt.Fprintf(w, " %s", fmtMetric(row.mapv))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func fmtMetric(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// printWhere says where the draws went: counts, time, ESS per second, step
// sizes, the noise crossover, clipping and warnings.
func printWhere(w io.Writer, c *runConfig, tr *langevin.Trace, table diag.Table, elapsed time.Duration, mapTheta []float64) {
	kept, last, early := chainCounts(tr, c.iters, c.burnin, c.thin)
	total := 0
	for _, l := range last {
		total += l
	}
	if early {
		fmt.Fprintf(w, "draws:    %d chains × %s kept (a chain stopped early: last kept iterations %s of %d; thin %d); %d burn-in iterations per chain discarded\n",
			tr.NumChains(), joinInts(kept), joinInts(last), c.iters, c.thin, c.burnin)
	} else {
		fmt.Fprintf(w, "draws:    %d chains × %d kept (iterations %d–%d, thin %d); %d burn-in iterations per chain discarded\n",
			tr.NumChains(), kept[0], c.burnin+1, c.iters, c.thin, c.burnin)
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
	fmt.Fprintf(w, "time:     %.2f s for %d iterations (%s, %d workers); %s\n",
		secs, total, perIter, min(c.chains, runtimeWorkers()), ess)

	if c.def.kind.exact {
		printExact(w, c, tr)
	} else if steps, ok := tr.Stat("stepsize__"); ok && len(steps[0]) > 0 {
		first := steps[0][0]
		if len(tr.Warmup[0].Stats) > 0 {
			first = tr.Warmup[0].Stats[0][tr.StatIndex("stepsize__")]
		}
		last := steps[0][len(steps[0])-1]
		sym, sched := "η", c.schedule+" schedule"
		if c.sampler == "vi" { // VI's step is ρₜ of its natural-gradient updates
			sym = "ρ"
			if !c.stepSet {
				sched = "VI's default schedule 0.1(100+t)^-0.6"
			}
		}
		fmt.Fprintf(w, "steps:    %s from %.3g (iteration 1) to %.3g (iteration %d), %s\n", sym, first, last, c.iters, sched)
	}
	printCrossover(w, c, tr)
	if c.clip > 0 || c.clipValue > 0 {
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
				fmt.Fprint(w, " — frequent clipping biases the result: raise --clip or lower --step")
			}
			fmt.Fprintln(w)
		}
	}
	if c.def.kind.optimiser {
		// Optimisers: the draws are a trajectory, not posterior samples.
		fmt.Fprintf(w, "optimiser: %s iterates are a trajectory, not posterior draws: ESS and R-hat do not apply\n", strings.ToUpper(c.sampler))
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
	var warn []string
	for _, s := range table {
		if s.RHat > 1.01 {
			warn = append(warn, fmt.Sprintf("%s R-hat %.3f > 1.01", s.Name, s.RHat))
		}
		if s.ESSBulk < 100*float64(tr.NumChains()) {
			warn = append(warn, fmt.Sprintf("%s bulk-ESS %.0f < %d (100 per chain)", s.Name, s.ESSBulk, 100*tr.NumChains()))
		}
	}
	if len(warn) > 0 {
		if len(warn) > 6 {
			warn = append(warn[:6], fmt.Sprintf("and %d more", len(warn)-6))
		}
		fmt.Fprintf(w, "warnings: %s\n", strings.Join(warn, "; "))
	}
}

// printCrossover reports the iteration from which the injected noise
// dominates the stochastic-gradient noise (Welling & Teh §4: where sampling
// takes over from optimisation), as the median over chains. Single estimates
// of the gradient noise are noisy, so both are averaged over windows of 1/50
// of a chain's saved draws; the crossover is the start of the window after
// the last one in which the gradient noise exceeds the injected noise.
func printCrossover(w io.Writer, c *runConfig, tr *langevin.Trace) {
	ki, kg := tr.StatIndex("noise_inj__"), tr.StatIndex("noise_grad__")
	if ki < 0 || kg < 0 || c.noiseEvery == 0 || c.batch == 0 {
		return
	}
	var cross []int
	var lastInj, lastGrad float64
	for k := range tr.Draws {
		stats := append(append([][]float64(nil), tr.Warmup[k].Stats...), tr.Stats[k]...)
		iters := append(append([]int(nil), tr.Warmup[k].Iters...), tr.Iters[k]...)
		n := len(stats)
		if n == 0 {
			continue
		}
		win := max(1, n/50)
		at := iters[0]
		var inj, grad float64
		for lo := 0; lo < n; lo += win {
			hi := min(n, lo+win)
			var si, sg float64
			cnt := 0
			for _, st := range stats[lo:hi] {
				if !math.IsNaN(st[kg]) { // not estimated yet
					si += st[ki]
					sg += st[kg]
					cnt++
				}
			}
			if cnt == 0 {
				continue
			}
			inj, grad = si/float64(cnt), sg/float64(cnt)
			if grad > inj {
				at = -1
				if hi < n {
					at = iters[hi]
				}
			}
		}
		if at > 0 {
			cross = append(cross, at)
		}
		lastInj += inj / float64(len(tr.Draws))
		lastGrad += grad / float64(len(tr.Draws))
	}
	fmt.Fprintf(w, "noise:    over the last draws, injected noise variance %.3g vs stochastic-gradient noise %.3g per coordinate\n", lastInj, lastGrad)
	if len(cross) < len(tr.Draws) {
		fmt.Fprintf(w, "          in %d of %d chains the gradient noise still exceeds the injected noise at the end: those draws are not posterior samples (lower --step, raise --batch or --iters)\n", len(tr.Draws)-len(cross), len(tr.Draws))
		return
	}
	sort.Ints(cross)
	med := cross[len(cross)/2]
	fmt.Fprintf(w, "          injected noise dominates from iteration %d (median over chains)", med)
	if med > c.burnin {
		fmt.Fprint(w, " — after burn-in: early draws are still optimisation, raise --burnin")
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

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
