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
	rd, err := openRunDir(c, resume, out, args, stderr) // the draws stream into DIR as they come
	if err != nil {
		return err
	}
	if rd != nil {
		st.SetCloser(func(err error) { rd.W.Close(flagErr(err)) })
		defer func() {
			// A run that failed on its input or its set-up, before its
			// first draw, leaves no directory to refuse the corrected
			// command; one stopped by a signal keeps its own for --resume.
			var intr *runctl.Interrupted
			if !rd.Sampling && !errors.As(runErr, &intr) {
				rd.W.Discard(flagErr(runErr))
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
	var formulaTest *formula.Frame // --formula --test: the held-out rows
	if c.Formula.Text != "" {
		build = func() (err error) { formulaTest, err = buildFormulaModel(j); return err }
	}
	if c.Stan != "" {
		build = func() error { return buildStanModel(j) }
	}
	if err := build(); err != nil {
		return err
	}
	ph.Done("load", "")
	m := j.M
	if fm, ok := m.(*formula.Model); ok {
		j.Relabel = func(t diag.Table) diag.Table { return formulaTable(t, fm) } // brms's names, as printed
	}
	ctl := runControl{st: st, ph: ph, stderr: stderr, quiet: c.Quiet}
	set := fit.Settings{Control: ctl, Start: jobStart}
	if rd != nil {
		set.RunWriter = rd.Writer(j)
	}
	res, runErr := fit.Run(ctx, fit.Job{Problem: j}, set, nil)
	if res == nil {
		return runError(runErr)
	}

	tr, pc, intr := res.Trace, res.Config, res.Interrupted
	if err := printSummary(stdout, j, res, rd != nil); err != nil {
		return err
	}
	if res.MAPErr != nil {
		fmt.Fprintf(stdout, "MAP baseline: %v\n", res.MAPErr)
	}
	st.Enter("the test-set predictions", true)
	// --max-time covers the predictions: when it is spent they are
	// skipped, and the output says so (they ran past it before: 3 s → 11.4 s).
	post, cancel := fit.PostBudget(c, jobStart)
	defer cancel()
	if beforePredictions != nil {
		beforePredictions(post)
	}
	if intr == nil { // interrupted: no predictions
		var pred bytes.Buffer
		if post.Err() != nil || st.Do(post, func() { printPredictions(&pred, j, res, formulaTest) }) != nil {
			if j.TestLen() > 0 || formulaTest != nil {
				fmt.Fprintf(stdout, "test set: not scored: --max-time %v reached (langevin predict --samples DIR --data FILE scores held-out rows)\n\n", c.MaxTime)
			}
		} else {
			stdout.Write(pred.Bytes())
		}
	}
	ph.Done("prediction", "")
	io.WriteString(stdout, res.Account)
	ph.Print(stdout)
	if res.Files != "" {
		fmt.Fprintf(stdout, "written:  %s\n", res.Files)
	}
	if c.Report && intr == nil {
		st.Enter("the report", true)
		pre := res.Account
		if res.Weights != nil {
			// the weights of the predictive, as predict applies them
			pre = fmt.Sprintf("auto:     %v\n", res.Weights) + pre
		}
		path, err := runReport(j, out, tr, pc, untimedNotes(pre))
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
// the predictions' budget before they begin.
var beforePredictions func(ctx context.Context)

// runControl is the run's fit.Control: the signals' phases (st), the time
// line (ph), the lines on stderr and the progress bar.
type runControl struct {
	st     *runctl.Stopper
	ph     *runctl.Phases
	stderr io.Writer
	quiet  bool
}

func (r runControl) Enter(phase string, hard bool)          { r.st.Enter(phase, hard) }
func (r runControl) Do(ctx context.Context, f func()) error { return r.st.Do(ctx, f) }
func (r runControl) Done(phase string)                      { r.ph.Done(phase, "") }
func (r runControl) Warn(line string)                       { fmt.Fprintln(r.stderr, "langevin run: "+line) }

func (r runControl) Interrupted() error {
	if e := r.st.Interrupted(); e != nil {
		return e
	}
	return nil
}

func (r runControl) Progress(chains, iters int, until string) (func(int, int), func(), func()) {
	p := runctl.NewProgress(r.stderr, r.quiet, chains, iters)
	p.Until = until
	return p.Update, p.Start, p.Stop
}

// openRunDir checks and locks the run's directory before any work: the
// directory of --resume, or --out's (nil without one).
func openRunDir(c *fit.Config, resume *resumeState, out string, args []string, stderr io.Writer) (*runDir, error) {
	if resume != nil {
		rd, err := reopenRunDir(resume)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(stderr, "langevin run: "+resume.Describe()) // even with --quiet
		return rd, nil
	}
	if out == "" {
		return nil, nil
	}
	rd, err := createRunDir(out, c.Overwrite)
	if err != nil {
		return nil, err
	}
	if err := rd.SaveResumeInfo(c, args); err != nil {
		rd.W.Discard(err)
		return nil, err
	}
	return rd, nil
}

// printSummary prints what the run fitted, its summary table and the notes
// under it, and the table in the data's units where the data were scaled.
func printSummary(stdout io.Writer, j *fit.Problem, res *fit.Result, inDir bool) error {
	c, m, pc, table := j.C, j.M, res.Config, res.Table
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
	printed := table
	if j.Relabel != nil {
		printed = j.Relabel(table)
	}
	if sm, ok := m.(*stan.Model); ok {
		printed = stanTable(table, sm)
	}
	if _, ok := m.(*model.MLP); ok {
		printed = netTable(stdout, table, inDir)
	}
	if len(printed) > 0 {
		if err := printed.Format(stdout); err != nil {
			return err
		}
	}
	for _, n := range []string{res.SummarySkipped, res.DrawsNote, res.Sigma2Note} {
		if n != "" {
			fmt.Fprintln(stdout, n)
		}
	}
	fmt.Fprintln(stdout)
	if j.Train != nil && fit.NamedTable(c.Data, j.Train.Coding) {
		if err := fit.PrintDataScale(stdout, res.Trace, j.Train.Names, j.Scaler); err != nil {
			return err
		}
	}
	return nil
}

// printPredictions prints the test-set scores of the posterior predictive
// and of the MAP.
func printPredictions(stdout io.Writer, j *fit.Problem, res *fit.Result, formulaTest *formula.Frame) {
	c, m, tr, mapTheta, test := j.C, j.M, res.Trace, res.MAP, j.Test
	if fm, ok := m.(*formula.Model); ok && formulaTest != nil {
		printFormulaTest(stdout, fm, tr, mapTheta, formulaTest)
	} else if mlp, ok := m.(*model.MLP); ok && test != nil && test.Len() > 0 {
		fit.PrintMLPPredictive(stdout, mlp, j.Env.Glm, tr, mapTheta, test, j.Scaler,
			fit.MLPPredictiveOptions{ChainWeights: c.Mlp.ChainWeights, TargetESS: fit.NetTarget(c), Seed: c.Seed, Weights: res.Weights})
	} else if g, ok := m.(*model.GLM); ok && test != nil && test.Len() > 0 {
		fit.PrintGLMPredictive(stdout, g, tr, mapTheta, test, fit.LogOffsets(j.Spec, j.OffTest))
	} else if test != nil && test.Len() > 0 {
		fit.PrintPredictive(stdout, m, tr, mapTheta, test)
	} else if j.TestLen() > 0 {
		fit.PrintPredictiveRows(stdout, m, tr, mapTheta, j.Rows.Test)
	}
}

// runError phrases the errors of fit.Run that the command's flags set.
func runError(err error) error {
	var tb *fit.TimeBudgetError
	if errors.As(err, &tb) {
		return fmt.Errorf("--max-time %v reached before the sampling began (in %s): no draws; raise --max-time", tb.Limit, tb.Phase)
	}
	var me *fit.MAPError
	if errors.As(err, &me) {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", me.Err)
	}
	return err
}
