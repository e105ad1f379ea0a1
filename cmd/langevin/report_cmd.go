package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/report"
	"github.com/langevin-go/langevin/rundir"
)

// cmdReport writes DIR/report.html from the CmdStan CSV files chain-*.csv
// that langevin run --out DIR wrote: the run's settings (the files' comment
// lines), the summary table, warnings and the plots.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "", "write the report to `FILE` (default DIR/report.html)")
	force := fs.Bool("force", false, "replace an existing DIR/report.html (langevin run --report's page is richer)")
	maxParams := fs.Int("params", 8, "draw the first `N` columns (the table lists all)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fit.InputErrorf("expected a directory: usage: langevin report [-o FILE] [--params N] DIR... (the --out DIR of langevin run, or several holding single chains of one analysis, --chain-id)")
	}
	if fs.NArg() > 1 && *out == "" {
		return fit.InputErrorf("-o: with %d directories (their chains combined), say where the report goes: -o FILE", fs.NArg())
	}
	if *maxParams < 1 {
		return fit.InputErrorf("--params %d: expected at least 1", *maxParams)
	}
	dir := fs.Arg(0)
	r, err := readRuns(fs.Args())
	if err != nil {
		return err
	}
	dir = r.Dir
	if r.Spec != nil {
		// model.json and scaler.json are read as predict reads them, so that
		// a scaler that does not fit the model is refused here too, not
		// silently left out of the page's tables on the data's scale.
		if _, _, err := readModelFile(r); err != nil {
			return err
		}
	}
	tr, settings := r.Trace, r.Settings
	path := *out
	if path == "" {
		path = filepath.Join(dir, rundir.ReportFile)
		if _, err := os.Stat(path); err == nil && !*force {
			return fit.InputErrorf("%s exists, perhaps the page of langevin run --report, with sections this command cannot rebuild from the CSV files: give -o FILE to write elsewhere, or --force to replace it", path)
		}
	}
	title, optimiser := report.RunTitle(settings)
	opt := report.Options{Settings: settings, MaxParams: *maxParams, Trajectory: optimiser,
		Intro: fmt.Sprintf("From the CmdStan CSV files in %s.", dir), Pre: runSigma2ReportNote(r) + runDataScaleText(r)}
	kind := settingOf(settings, "model")
	opt.Network = kind == "mlp"
	if (kind == "mlp" || kind == "linear") && !optimiser {
		// The predictions, as the run printed them, from the model and
		// test set rebuilt from the run's saved arguments.
		in, why := predictiveInputs{}, "several directories combined: their test sets are not rebuilt"
		if fs.NArg() == 1 {
			in, why = runDirPredictive(dir)
		}
		if why == "" {
			opt.Sections = predictiveSections(in, tr)
			opt.Warnings = printedWarnings(opt.Sections)
		} else {
			opt.Pre += "predictions: not shown: " + why + "\n"
		}
	}
	flagReport(&opt)
	if err := report.WriteFile(path, title, tr, opt); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report:   %s\n", path)
	return nil
}

// runReport writes DIR/report.html for langevin run --report, from the
// trace in memory; for the linear model sampled at τ = 1 the exact marginal
// densities are drawn over the histograms, and for the logistic model with a
// test set the sorted posterior predictive probabilities with their 90% band
// (report Figure 5). GD and SGD iterates are reported as a trajectory.
//
// pc is the configuration as run (--sampler auto: the sampler it chose, with
// its burn-in, thinning and iterations), so the page names the sampler that
// ran and its settings; notes are the run's account as printed (the plan's
// rules, the draws, the tuning, the checks).
func runReport(j *fit.Problem, dir string, tr *langevin.Trace, pc *fit.Config, notes string) (string, error) {
	c, m, test := pc, j.M, j.Test
	trajectory := c.Def.Kind.Optimiser
	if fm, ok := m.(*formula.Model); ok {
		tr = formulaReportTrace(tr, fm)
	}
	opt := report.Options{Settings: reportSettings(j.SettingsOf(pc), pc), Trajectory: trajectory, Pre: notes}
	if j.Train != nil && fit.NamedTable(c.Data, j.Train.Coding) {
		opt.Pre = fit.DataScaleText(tr, j.Train, j.Scaler) + "\n" + notes
	}
	opt.Pre = fit.Sigma2ReportNote(tr.Names, j.Spec, j.Scaler) + opt.Pre
	if lm, ok := m.(*model.Logistic); ok && test != nil && test.Len() > 0 && !trajectory {
		rows := tr.Rows()
		probs := make([][]float64, len(rows))
		for k, th := range rows {
			probs[k] = lm.Predict(th[:lm.Dim()], test.X, nil)
		}
		sec, err := report.PredictiveSection(probs, test.Y)
		if err != nil {
			return "", err
		}
		opt.Sections = append(opt.Sections, sec)
	}
	_, opt.Network = m.(*model.MLP)
	if !trajectory {
		in := predictiveInputs{m: m, test: test, sc: j.Scaler,
			opts: fit.MLPPredictiveOptions{ChainWeights: c.Mlp.ChainWeights, TargetESS: fit.NetTarget(c), Seed: c.Seed}}
		if j.Env != nil {
			in.glm, in.mapTheta = j.Env.Glm, j.Env.MapTh
		}
		secs := predictiveSections(in, tr)
		opt.Sections = append(opt.Sections, secs...)
		opt.Warnings = append(opt.Warnings, printedWarnings(secs)...)
	}
	if lm, ok := m.(*model.Linear); ok && !trajectory && c.Temperature == 1 {
		post := lm.Posterior()
		opt.Reference = map[string]func(float64) float64{
			"log_sigma2": post.LogSigma2PDF,
			"sigma2":     post.Sigma2PDF,
		}
		for j := 0; j < post.D; j++ {
			opt.Reference[tr.Names[j]] = func(x float64) float64 { return post.BetaPDF(j, x) }
		}
		opt.RefLabel = "exact posterior"
	}
	title := fmt.Sprintf("langevin run: %s regression, %s", c.Model, c.Describe())
	path := filepath.Join(dir, "report.html")
	flagReport(&opt)
	return path, report.WriteFile(path, title, tr, opt)
}

// untimedNotes returns the run's printed account without the lines that
// report times, which differ from run to run.
func untimedNotes(s string) string {
	var sb strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "sampling:") {
			continue
		}
		sb.WriteString(line)
	}
	return sb.String()
}

// sgOnly are the settings an exact sampler (NUTS, MALA, RWM) does not read.
var sgOnly = map[string]bool{"schedule": true, "step_b": true, "decay": true, "batch": true, "replace": true,
	"temperature": true, "clip": true, "clip_value": true, "noise_every": true}

// reportSettings are the settings the report of a run lists: an exact
// sampler's without the stochastic-gradient ones, with its metric.
func reportSettings(all [][2]string, c *fit.Config) [][2]string {
	if !c.Def.Kind.Exact {
		return all
	}
	var out [][2]string
	for _, kv := range all {
		if !sgOnly[kv[0]] {
			out = append(out, kv)
		}
	}
	return append(out, [2]string{"metric", fit.Opt[*fit.ExactFlags](c, "exact").Metric})
}

// settingOf returns the value of key in settings ("" if absent).
func settingOf(settings [][2]string, key string) string {
	for _, kv := range settings {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}
