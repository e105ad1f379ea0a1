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
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/runctl"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// job is one langevin run: its configuration and what the run made of it.
type job struct {
	c           *fit.Config
	stderr      io.Writer // warnings about the data
	train, test *data.Dataset
	scaler      *data.Scaler // the standardisation applied, if any
	spec        model.Spec   // resolved against the training labels
	m           langevin.Model
	// offTrain and offTest are the --offset/--exposure column's values, as
	// read (nil without one).
	offTrain, offTest []float64
	env               *fit.BuildEnv // the sampler's build: its schedule and step
	rows              *streamed     // --data a store, streamed (train and test are stubs)
	split             *savedSplit   // the seeded train/test split of --data, if the run made one
	uci               *data.UCI     // --data a UCI benchmark folder
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	c, err := parseRun(args, stdout)
	if err != nil {
		return err
	}
	jobStart := time.Now() // --max-time counts from here
	st := runctl.NewStopper(stderr)
	defer st.Stop()
	ctx := st.Ctx
	// The output directory is checked, and locked, before any work.
	out := c.Out
	if c.Report && out == "" {
		out = fit.DefaultReportDir
	}
	var rd *runDir // the draws stream into DIR as they come
	if out != "" {
		if rd, err = createRunDir(out, c.Overwrite); err != nil {
			return err
		}
		st.SetCloser(func(err error) { rd.w.Close(err) })
		defer rd.w.Close(errors.New("the run failed before sampling"))
	}
	j := &job{c: c, stderr: stderr}
	ph := runctl.NewPhases(stderr, true) // the time line; st reports the phases as they come
	st.Enter("loading", true)
	if c.Toy() {
		j.train = &data.Dataset{Source: "no data (toy target " + c.Model + ")"}
	} else if c.Formula.Text != "" {
		// read with the model, by package formula
	} else if err := j.loadData(); err != nil {
		j.rows.close()
		return err
	}
	defer func() {
		if !st.Left() { // a phase left running still reads the data
			j.rows.close()
		}
	}()
	if j.rows != nil && !c.Quiet {
		fmt.Fprintln(stderr, "langevin run: "+j.describeRows())
	}
	if err := j.buildModel(); err != nil {
		return err
	}
	ph.Done("load", "")
	m := j.m
	if err := checkRunSize(c, m, c.EarlyOptions()); err != nil {
		return err // before any work; checked again with the plan's options
	}
	st.Enter("the MAP", false)
	// The MAP is the baseline, and the start or the preconditioner's centre;
	// lap computes it, and the Hessian, at most once for the whole run.
	lap := newRunLaplace(c, m)
	if laplaceHook != nil {
		defer laplaceHook(lap)
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
	if w := separationWarning(m, mapTheta); w != "" {
		fmt.Fprintln(stderr, "langevin run: warning: "+w)
	}
	usePrecond := c.UsesLaplacePrecond()
	needMAP := c.Init == "map" || c.Init == "laplace" || usePrecond || c.Cv
	if mapErr != nil && needMAP {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", mapErr)
	}
	j.env = &fit.BuildEnv{C: c, M: m, Lap: lap, MapTh: mapTheta, Points: fit.NetPoints(j.test)}
	var laplace []float64
	if c.Init == "laplace" || usePrecond {
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
		j.env.Precond = laplace
	}
	st.Enter("the sampler's set-up", false)
	var s langevin.Sampler
	if e := st.Do(pre, func() { s, err = c.Def.Build(pre, j.env) }); e != nil {
		return e
	}
	if e := st.Interrupted(); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	ph.Done("MAP and setup", "")
	if a := j.env.Auto; a != nil && a.Net != nil {
		mapTheta = fit.BestMode(a.Net) // the MAP network of the output
	}
	if strings.HasPrefix(j.env.StepNote, "warning") {
		fmt.Fprintln(stderr, "langevin run: "+j.env.StepNote) // also before a run that diverges
	}
	if j.env.SchedNote != "" {
		fmt.Fprintln(stderr, "langevin run: "+j.env.SchedNote)
	}
	var init langevin.Initializer
	switch c.Init {
	case "zero":
		init = langevin.InitZero{}
	case "prior":
		init = langevin.InitPrior{}
	case "random":
		init = model.InitGlorot{} // a network's random fan-in start
	case "map":
		init = langevin.InitAt{Points: [][]float64{mapTheta}}
	case "laplace":
		init = approx.InitLaplace{Mean: mapTheta, Var: laplace}
	}
	opts := langevin.Options{
		Chains: c.Chains, Iters: c.Iters, BurnIn: c.Burnin, Thin: c.Thin, Seed: c.Seed,
		Init: init, SaveWarmup: !c.Def.Kind.NoWarmup,
	}
	if c.ChainID > 0 { // one chain of the analysis: the same draws as in the run of all
		opts.Chains, opts.FirstChain = 1, c.ChainID-1
	}
	prog := runctl.NewProgress(stderr, c.Quiet, opts.Chains, c.Iters)
	opts.Progress = prog.Update
	auto := j.env.Auto
	if auto != nil {
		auto.Adjust(c, m, &opts, jobStart) // --max-time covers the whole job
		if opts.Until != nil {
			prog.Until = fmt.Sprintf("until min bulk-ESS ≥ %.0f and R̂ ≤ 1.01, at most %d per chain", c.TargetESS, c.Iters)
		}
	}
	if err := checkRunSize(c, m, opts); err != nil {
		return err
	}
	if rd != nil {
		names := append(langevin.ParamNames(m), derivedNames(m)...)
		if err := rd.openChains(j.chainConfig(), opts.FirstChain+1, opts.Chains, s.StatNames(), names); err != nil {
			return err
		}
		opts.Sink = rd.sink
	}
	st.Enter("sampling", false)
	start := time.Now()
	prog.Start()
	tr, runErr := langevin.Run(ctx, m, s, opts)
	prog.Stop()
	elapsed := time.Since(start)
	ph.Done("sampling", "")
	intr := st.Interrupted()
	if intr != nil {
		runErr = intr
	}
	if tr == nil || (runErr != nil && tr.NumDraws() == 0) {
		if rd != nil {
			rd.w.Close(runErr)
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
	table := diag.Summarize(tr.Names, params)
	if c.Formula.Text != "" {
		printFormulaHeader(stdout, j, pc)
	} else if c.Toy() {
		fmt.Fprintf(stdout, "toy target %s (d = %d, no data, gradient noise sd %g), %s, %s\n\n",
			c.Model, m.Dim(), c.GradNoise, pc.Describe(), c.ChainsText())
	} else {
		fmt.Fprintf(stdout, "%s on %s (N = %d train, %d test, d = %d), %s, %s\n\n",
			modelTitle(c.Model, m), j.train.Source, j.trainLen(), j.testLen(), m.Dim(), pc.Describe(), c.ChainsText())
	}
	printCoding(stdout, j.train)
	if err := table.Format(stdout); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintln(stdout)
	if j.train != nil && namedTable(c.Data, j.train.Coding) {
		if err := printDataScale(stdout, tr, j.train.Names, j.scaler); err != nil {
			return err
		}
	}
	// The run directory is complete before the predictions, which a
	// signal may cut short.
	var files string
	if rd != nil {
		var sc *data.Scaler
		if j.scaler != nil {
			sc = j.scaler
		}
		rd.keep(tr)
		if files, err = rd.finish(runErr, table, j.modelFile(), sc); err != nil {
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
	test := j.test
	if intr != nil {
		// Interrupted: no predictions.
	} else if mlp, ok := m.(*model.MLP); ok && test != nil && test.Len() > 0 {
		fit.PrintMLPPredictive(stdout, mlp, tr, mapTheta, test, j.scaler)
	} else if g, ok := m.(*model.GLM); ok && test != nil && test.Len() > 0 {
		printGLMPredictive(stdout, g, tr, mapTheta, test, logOffsets(j.spec, j.offTest))
	} else if test != nil && test.Len() > 0 {
		printPredictive(stdout, m, tr, mapTheta, test)
	} else if j.testLen() > 0 {
		printPredictiveRows(stdout, m, tr, mapTheta, j.rows.test)
	}
	ph.Done("prediction", "")
	// The run's account — the plan's rules, where the draws went, the
	// sampler's tuning, the checks — is printed and is the report's.
	var notes bytes.Buffer
	if auto != nil {
		auto.Print(&notes, c, tr)
	}
	printWhere(&notes, pc, tr, table, elapsed, mapTheta)
	if j.env.StepNote != "" {
		fmt.Fprintln(&notes, j.env.StepNote)
	}
	if j.env.SchedNote != "" {
		fmt.Fprintln(&notes, j.env.SchedNote)
	}
	if intr == nil {
		fit.PrintKSD(ctx, &notes, pc, m, lap, tr)
		ph.Done("KSD", "")
	}
	stdout.Write(notes.Bytes())
	ph.Print(stdout)
	if files != "" {
		fmt.Fprintf(stdout, "written:  %s\n", files)
	}
	if c.Report && intr == nil {
		st.Enter("the report", true)
		path, err := j.runReport(out, tr, pc, untimedNotes(notes.String()))
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

func testLen(d *data.Dataset) int {
	if d == nil {
		return 0
	}
	return d.Len()
}

// buildModel builds the model of the configuration on the training data,
// with its spec resolved against the training labels.
func (j *job) buildModel() error {
	c := j.c
	if c.Formula.Text != "" {
		return j.buildFormulaModel()
	}
	s := c.Spec()
	s.Classes = max(s.Classes, j.classes())
	if j.rows != nil {
		return j.buildRowsModel()
	}
	if !s.NeedsData() {
		m, err := s.Build(nil, nil)
		if err != nil {
			return fit.InputErrorf("--rho: %v", err)
		}
		j.m, j.spec = m, s
		return nil
	}
	if j.uci != nil && s.Kind == "mlp" && s.Likelihood == "" {
		// A regression benchmark: integer targets (wine's quality 3…8) are
		// responses, not class labels.
		s.Likelihood = "gaussian"
	}
	s.Resolve(j.train.Y)
	if j.uci != nil && s.Kind == "mlp" && !c.Set["hidden"] {
		s.Hidden = []int{j.uci.Hidden} // the benchmark's protocol (n_hidden.txt)
	}
	j.standardizeTarget(s)
	m, err := s.BuildOffset(j.train.X, j.train.Y, j.offTrain)
	if err != nil {
		if c.Model == "mlp" {
			return fit.InputErrorf("--data %s: %v", c.Data, err)
		}
		return fit.InputError{Err: err}
	}
	j.m, j.spec = m, s
	return nil
}

// laplaceHook, when set (by tests), sees the run's Laplace approximation
// after the run, to count its MAPs and Hessians.
var laplaceHook func(*approx.RunLaplace)

// newRunLaplace returns the run's one MAP and Laplace approximation
// (fit.NewLaplace); an MLP's MAP is Adam's from a
// Glorot start (--map-iters, --map-batch, --map-lr), and only with --init map.
func newRunLaplace(c *fit.Config, m langevin.Model) *approx.RunLaplace {
	lap := fit.NewLaplace(m)
	if mlp, ok := m.(*model.MLP); ok {
		lap.FindMAP = func(ctx context.Context, _ langevin.Model) ([]float64, error) {
			if c.Init != "map" {
				return nil, nil
			}
			theta := make([]float64, mlp.Dim())
			rng := langevin.ChainRNG(c.Seed, 1000)
			mlp.GlorotInit(theta, rng)
			return sampler.FitAdam(ctx, mlp, theta, sampler.AdamFit{Iters: c.Mlp.MapIters, Batch: c.Mlp.MapBatch, LR: c.Mlp.MapLR}, rng)
		}
	}
	return lap
}

// derivedNames are the names of the model's derived quantities (σ² of the
// linear model), which follow the parameters in the draws.
func derivedNames(m langevin.Model) []string {
	if d, ok := m.(langevin.Deriver); ok {
		return d.DerivedNames()
	}
	return nil
}

// modelTitle names the model of a run in its first line: "logistic
// regression", and for a network its likelihood ("mlp, bernoulli
// likelihood"), since a classifier is no regression.
func modelTitle(name string, m langevin.Model) string {
	if n, ok := m.(*model.MLP); ok {
		return fmt.Sprintf("%s, %s likelihood", name, n.Likelihood())
	}
	return name + " regression"
}
