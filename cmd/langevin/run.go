package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/internal/runctl"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/stan"
)

// netTable prints, for a network, one line in place of its weights' rows
// (their R̂ and ESS say nothing of convergence: hidden units permute and
// flip sign; the function-space check below is the test), and returns the
// rows of t that are not weights or biases (a noise scale).
func netTable(w io.Writer, t diag.Table, inDir bool) diag.Table {
	var rest diag.Table
	var weights []string
	for _, s := range t {
		if strings.HasPrefix(s.Name, "w.") || strings.HasPrefix(s.Name, "b.") {
			weights = append(weights, s.Name)
		} else {
			rest = append(rest, s)
		}
	}
	if len(weights) == 0 {
		return t
	}
	where := "in summary.csv"
	if !inDir {
		where = "in the chain files"
	}
	fmt.Fprintf(w, "network:  %d weights and biases (%s … %s), %s, not listed: their R̂ and ESS say nothing of convergence (hidden units permute and flip sign); the predictions are checked in function space below\n",
		len(weights), weights[0], weights[len(weights)-1], where)
	if len(rest) > 0 {
		fmt.Fprintln(w)
	}
	return rest
}

// beforePredictions, when set (by tests), is called with the context of
// the predictions' and checks' budget before they begin.
var beforePredictions func(ctx context.Context)

func cmdRun(args []string, stdout, stderr io.Writer) (runErr error) {
	args, resume, err := resumeArgs(args) // --resume DIR: the run's own arguments
	if err != nil {
		return err
	}
	c, err := parseRun(args, stdout)
	if err != nil {
		return err
	}
	jobStart := time.Now() // --max-time counts from here
	st := runctl.NewStopper(stderr)
	defer st.Stop()
	ctx := st.Ctx
	st.Enter("loading", true)
	if c.MaxTime > 0 { // --max-time covers the loading too, which ends at once
		t := time.AfterFunc(c.MaxTime, func() {
			st.ExpireIn("loading", fmt.Errorf("--max-time %v reached while the data were read (before the sampling): no draws; raise --max-time", c.MaxTime))
		})
		defer t.Stop()
	}
	// The output directory is checked, and locked, before any work.
	out := c.Out
	if c.Report && out == "" {
		out = fit.DefaultReportDir
	}
	var rd *fit.RunDir // the draws stream into DIR as they come
	if resume != nil {
		if rd, err = fit.ReopenRunDir(resume); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "langevin run: "+resume.Describe()) // even with --quiet
	} else if out != "" {
		if rd, err = fit.CreateRunDir(out, c.Overwrite); err != nil {
			return err
		}
		if err := rd.SaveResumeInfo(c, args); err != nil {
			rd.W.Discard(err)
			return err
		}
	}
	sampling := false // langevin.Run has begun: from here the directory holds the run
	if rd != nil {
		st.SetCloser(func(err error) { rd.W.Close(err) })
		defer func() {
			// A run that failed on its input or its set-up, before its
			// first draw, leaves no directory to refuse the corrected
			// command; one stopped by a signal keeps its own for --resume.
			var intr *runctl.Interrupted
			if !sampling && !errors.As(runErr, &intr) {
				rd.W.Discard(runErr)
			}
			rd.W.Close(errors.New("the run failed before sampling"))
		}()
	}
	j := &fit.Problem{C: c, Stderr: stderr}
	ph := runctl.NewPhases(stderr, true) // the time line; st reports the phases as they come
	if c.Toy() {
		j.Train = &data.Dataset{Source: "no data (toy target " + c.Model + ")"}
	} else if c.Formula.Text != "" || c.Stan != "" {
		// read with the model, by package formula or stan
	} else if err := j.LoadData(); err != nil {
		j.Rows.Close()
		return err
	}
	defer func() {
		if !st.Left() { // a phase left running still reads the data
			j.Rows.Close()
		}
	}()
	if j.Rows != nil && !c.Quiet {
		fmt.Fprintln(stderr, "langevin run: "+j.DescribeRows())
	}
	build := j.BuildModel
	if c.Formula.Text != "" {
		build = func() error { return buildFormulaModel(j) }
	}
	if c.Stan != "" {
		build = func() error { return buildStanModel(j) }
	}
	if err := build(); err != nil {
		return err
	}
	ph.Done("load", "")
	m := j.M
	if err := fit.CheckRunSize(c, m, c.EarlyOptions()); err != nil {
		return err // before any work; checked again with the plan's options
	}
	st.Enter("the MAP", false)
	// The MAP is the baseline, and the start or the preconditioner's centre;
	// lap computes it, and the Hessian, at most once for the whole run.
	lap := fit.NewRunLaplace(c, m)
	if fit.LaplaceHook != nil {
		defer fit.LaplaceHook(lap)
	}
	// The phases before the sampling end at the first signal or at
	// --max-time, whatever they are doing (st.do).
	pre, preCancel := ctx, context.CancelFunc(func() {})
	if c.MaxTime > 0 {
		pre, preCancel = context.WithTimeoutCause(ctx, c.MaxTime-time.Since(jobStart),
			fmt.Errorf("--max-time %v reached before the sampling began (in %s): no draws; raise --max-time", c.MaxTime, "the MAP and the plan"))
	}
	defer preCancel()
	var mapTheta []float64
	var mapErr error
	if e := st.Do(pre, func() { mapTheta, mapErr = lap.MAP(pre) }); e != nil {
		return e
	}
	if e := st.Interrupted(); e != nil {
		return e
	}
	if w := fit.SeparationWarning(m, mapTheta); w != "" {
		fmt.Fprintln(stderr, "langevin run: warning: "+w)
	}
	usePrecond := c.UsesLaplacePrecondOn(m)
	needMAP := c.Init == "map" || c.Init == "laplace" || usePrecond || c.Cv
	if mapErr != nil && needMAP {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", mapErr)
	}
	j.Env = &fit.BuildEnv{C: c, M: m, Lap: lap, MapTh: mapTheta, Points: fit.NetPoints(j.Test)}
	var laplace []float64
	if c.UsesLaplaceInitOn(m) || usePrecond {
		st.Enter("the Laplace approximation", false)
		if e := st.Do(pre, func() { laplace, err = lap.Diag(pre) }); e != nil {
			return e
		}
		if err != nil {
			if e := st.Interrupted(); e != nil {
				return e
			}
			return err
		}
	}
	if usePrecond {
		j.Env.Precond = laplace
	}
	st.Enter("the sampler's set-up", false)
	var s langevin.Sampler
	if e := st.Do(pre, func() { s, err = c.Def.Build(pre, j.Env) }); e != nil {
		return e
	}
	if e := st.Interrupted(); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	ph.Done("MAP and setup", "")
	if a := j.Env.Auto; a != nil && a.Net != nil {
		mapTheta = fit.BestMode(a.Net) // the MAP network of the output
	}
	if strings.HasPrefix(j.Env.StepNote, "warning") {
		fmt.Fprintln(stderr, "langevin run: "+j.Env.StepNote) // also before a run that diverges
	}
	if j.Env.SchedNote != "" {
		fmt.Fprintln(stderr, "langevin run: "+j.Env.SchedNote)
	}
	init := c.Initializer(mapTheta, laplace)
	if j.Env.Init != nil {
		init = j.Env.Init // the build's own start (--sampler nuts on a degenerate mode)
	}
	opts := langevin.Options{
		Chains: c.Chains, Iters: c.Iters, BurnIn: c.Burnin, Thin: c.Thin, Seed: c.Seed,
		Init: init, SaveWarmup: !c.Def.Kind.NoWarmup,
	}
	if c.ChainID > 0 { // one chain of the analysis: the same draws as in the run of all
		opts.Chains, opts.FirstChain = 1, c.ChainID-1
	}
	auto := j.Env.Auto
	until := ""
	if auto != nil {
		auto.Adjust(c, m, &opts, jobStart) // --max-time covers the whole fit.Problem
		if opts.Until != nil {
			until = fmt.Sprintf("until %s, at most %d per chain", fit.NewRHatRule(m, c.TargetESS).ProgressText(), opts.Iters)
			if auto.Net != nil {
				until = fmt.Sprintf("until the predictions converge (function-space ESS ≥ %.0f, R̂ ≤ 1.02 median, 1.1 max), at most %d per chain", fit.NetTarget(c), opts.Iters)
			}
		}
	}
	// The bar counts the run's own cap (a plan's, not --iters' 10⁷).
	prog := runctl.NewProgress(stderr, c.Quiet, opts.Chains, opts.Iters)
	prog.Until = until
	opts.Progress = prog.Update
	if err := fit.CheckRunSize(c, m, opts); err != nil {
		return err
	}
	if rd != nil {
		names := append(langevin.ParamNames(m), fit.DerivedNames(m)...)
		hc := c // the headers record the run as planned (--sampler auto: its choice)
		if auto != nil {
			hc = auto.Planned(c, opts.Thin, opts.Iters)
		}
		if rd.Resuming() {
			if opts.Resume, err = rd.ResumeChains(j.ChainConfig(hc), opts.FirstChain+1, opts.Chains, s.StatNames(), names); err != nil {
				return err
			}
		} else if err := rd.OpenChains(j.ChainConfig(hc), opts.FirstChain+1, opts.Chains, s.StatNames(), names); err != nil {
			return err
		}
		opts.Sink = rd.Sink
		if c.Checkpoint > 0 {
			opts.Checkpoint, opts.CheckpointEvery = rd.Checkpoint, c.Checkpoint
		}
	}
	st.Enter("sampling", false)
	sampling = true
	start := time.Now()
	prog.Start()
	// --max-time holds in the warm-up too, which the ESS rule does not
	// watch (NUTS's warm-up overran a 5 s budget to 17.4 s): the sampling
	// ends at 9/10 of the budget whatever it is doing.
	sctx, maxTimeErr := ctx, error(nil)
	if c.MaxTime > 0 {
		maxTimeErr = fmt.Errorf("--max-time %v reached", c.MaxTime)
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadlineCause(ctx, jobStart.Add(c.MaxTime/10*9), maxTimeErr)
		defer cancel()
	}
	tr, runErr := langevin.Run(sctx, m, s, opts)
	prog.Stop()
	if maxTimeErr != nil && runErr != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), maxTimeErr) {
		if tr == nil || tr.NumDraws() == 0 {
			runErr = fmt.Errorf("%w during the warm-up (burn-in), before a draw was kept: no draws; raise --max-time", maxTimeErr)
		} else {
			runErr = nil
			fmt.Fprintf(stderr, "langevin run: %v during the sampling: the draws so far are kept\n", maxTimeErr)
		}
	}
	elapsed := time.Since(start)
	ph.Done("sampling", "")
	intr := st.Interrupted()
	if intr != nil {
		runErr = intr
	}
	runErr = auto.ExplainError(m, runErr)
	if rd != nil && tr != nil {
		rd.Sampled(tr, intr == nil, stderr)
	}
	if tr == nil || (runErr != nil && tr.NumDraws() == 0) {
		if rd != nil {
			if err := rd.MarkFinished(); err != nil {
				fmt.Fprintf(stderr, "langevin run: warning: %v\n", err)
			}
			rd.W.Close(runErr)
		}
		if tr == nil {
			return fit.InputError{Err: runErr}
		}
		return runErr
	}

	st.Enter("writing", false)
	pc := c // the configuration as run (--sampler auto: the sampler it chose)
	if auto != nil {
		pc = auto.Config(c, tr)
	}
	params, note := fit.CommonLength(tr)
	params, s2note := fit.Sigma2InTargetUnits(tr.Names, params, j.Spec, j.Scaler)
	table := diag.Summarize(tr.Names, params)
	if c.Formula.Text != "" {
		printFormulaHeader(stdout, j, pc)
	} else if c.Stan != "" {
		fmt.Fprintf(stdout, "Stan program %s on %s (d = %d), %s, %s\n\n", c.Stan, j.Train.Source, m.Dim(), pc.Describe(), c.ChainsText())
	} else if c.Toy() {
		fmt.Fprintf(stdout, "toy target %s (d = %d, no data, gradient noise sd %g), %s, %s\n\n",
			c.Model, m.Dim(), c.GradNoise, pc.Describe(), c.ChainsText())
	} else {
		fmt.Fprintf(stdout, "%s on %s (N = %d train, %d test, d = %d), %s, %s\n\n",
			fit.ModelTitle(c.Model, m), j.Train.Source, j.TrainLen(), j.TestLen(), m.Dim(), pc.Describe(), c.ChainsText())
	}
	fit.PrintCoding(stdout, j.Train)
	if l := fit.LabelsNote(c, j.Train.Target); l != "" {
		fmt.Fprintln(stdout, l)
	}
	if j.NoiseNote != "" {
		fmt.Fprintln(stdout, j.NoiseNote)
	}
	printed, checked := table, table // checked: the table the warnings name
	if fm, ok := m.(*formula.Model); ok {
		printed = formulaTable(table, fm)
		checked = printed // brms's names, as printed
	}
	if sm, ok := m.(*stan.Model); ok {
		printed = stanTable(table, sm)
	}
	if _, ok := m.(*model.MLP); ok {
		printed = netTable(stdout, table, rd != nil)
	}
	if len(printed) > 0 {
		if err := printed.Format(stdout); err != nil {
			return err
		}
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	if s2note != "" {
		fmt.Fprintln(stdout, s2note)
	}
	fmt.Fprintln(stdout)
	if j.Train != nil && fit.NamedTable(c.Data, j.Train.Coding) {
		if err := fit.PrintDataScale(stdout, tr, j.Train.Names, j.Scaler); err != nil {
			return err
		}
	}
	// The run directory is complete before the predictions, which a
	// signal may cut short.
	var files string
	if rd != nil {
		var sc *data.Scaler
		if j.Scaler != nil {
			sc = j.Scaler
		}
		rd.Keep(tr)
		sum := table
		if runErr != nil && intr == nil {
			sum = nil // a failed run (exit 1) leaves no summary.csv
		}
		if files, err = rd.Finish(runErr, sum, j.ModelFile(), sc); err != nil {
			return err
		}
	}
	if intr == nil {
		intr = st.Interrupted() // during the writing
	}

	if mapErr != nil {
		fmt.Fprintf(stdout, "MAP baseline: %v\n", mapErr)
	}
	st.Enter("the test-set predictions", true)
	// --max-time covers the predictions and the checks: what does not fit
	// in what is left of it is skipped, and the output says so (they ran
	// past it before: 3 s → 11.4 s).
	post := context.Background()
	if c.MaxTime > 0 {
		var cancel context.CancelFunc
		post, cancel = context.WithDeadline(post, jobStart.Add(c.MaxTime))
		defer cancel()
	}
	if beforePredictions != nil {
		beforePredictions(post)
	}
	test := j.Test
	var pred bytes.Buffer
	predict := func() {
		if mlp, ok := m.(*model.MLP); ok && test != nil && test.Len() > 0 {
			fit.PrintMLPPredictive(&pred, mlp, j.Env.Glm, tr, mapTheta, test, j.Scaler,
				fit.MLPPredictiveOptions{ChainWeights: c.Mlp.ChainWeights, TargetESS: fit.NetTarget(c), Seed: c.Seed})
		} else if g, ok := m.(*model.GLM); ok && test != nil && test.Len() > 0 {
			fit.PrintGLMPredictive(&pred, g, tr, mapTheta, test, fit.LogOffsets(j.Spec, j.OffTest))
		} else if test != nil && test.Len() > 0 {
			fit.PrintPredictive(&pred, m, tr, mapTheta, test)
		} else if j.TestLen() > 0 {
			fit.PrintPredictiveRows(&pred, m, tr, mapTheta, j.Rows.Test)
		}
	}
	if intr == nil && j.TestLen() > 0 {
		if st.Do(post, predict) != nil {
			pred.Reset() // left running: its output is not used
			fmt.Fprintf(stdout, "test set: not scored: --max-time %v reached (langevin predict --samples DIR --data FILE scores held-out rows)\n\n", c.MaxTime)
		} else {
			stdout.Write(pred.Bytes())
		}
	}
	ph.Done("prediction", "")
	// The run's account — the plan's rules, where the draws went, the
	// sampler's tuning, the checks — is printed and is the report's.
	var notes bytes.Buffer
	if auto != nil {
		auto.Print(&notes, c, tr)
	}
	fit.PrintWhere(&notes, pc, tr, checked, elapsed, mapTheta, j.Env.Sched)
	if j.Env.StepNote != "" {
		fmt.Fprintln(&notes, j.Env.StepNote)
	}
	if j.Env.SchedNote != "" {
		fmt.Fprintln(&notes, j.Env.SchedNote)
	}
	if intr == nil {
		var checks bytes.Buffer
		if post.Err() != nil || st.Do(post, func() {
			k := fit.PrintKSD(ctx, &checks, pc, m, lap, tr)
			fit.PrintMisfit(ctx, &checks, pc, m, lap, tr, j.Env.MisfitHint, k)
		}) != nil {
			fmt.Fprintf(&notes, "ksd:      not checked: --max-time %v reached\n", c.MaxTime)
		} else {
			notes.Write(checks.Bytes())
		}
		ph.Done("KSD", "")
	}
	stdout.Write(notes.Bytes())
	ph.Print(stdout)
	if files != "" {
		fmt.Fprintf(stdout, "written:  %s\n", files)
	}
	if c.Report && intr == nil {
		st.Enter("the report", true)
		path, err := runReport(j, out, tr, pc, untimedNotes(notes.String()))
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		fmt.Fprintf(stdout, "report:   %s\n", path)
	}
	if intr != nil {
		return intr
	}
	if e := st.Interrupted(); e != nil {
		return e
	}
	if runErr != nil {
		var de *langevin.DivergenceError
		if errors.As(runErr, &de) {
			return fmt.Errorf("%w; the draws before it are kept", runErr)
		}
		return runErr
	}
	return nil
}
