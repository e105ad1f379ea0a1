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
	c             *runConfig
	stderr        io.Writer // warnings about the data
	train, test   *data.Dataset
	scaler        *data.Scaler // the standardisation applied, if any
	spec          model.Spec   // resolved against the training labels
	formulaRecord []byte       // --formula: model.json's record (formula.Record)
	m             langevin.Model
	// offTrain and offTest are the --offset/--exposure column's values, as
	// read (nil without one).
	offTrain, offTest []float64
	env               *buildEnv   // the sampler's build: its schedule and step
	rows              *streamed   // --data a store, streamed (train and test are stubs)
	split             *savedSplit // the seeded train/test split of --data, if the run made one
	uci               *data.UCI   // --data a UCI benchmark folder
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
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
	if c.maxTime > 0 { // --max-time covers the loading too, which ends at once
		t := time.AfterFunc(c.maxTime, func() {
			st.ExpireIn("loading", fmt.Errorf("--max-time %v reached while the data were read (before the sampling): no draws; raise --max-time", c.maxTime))
		})
		defer t.Stop()
	}
	// The output directory is checked, and locked, before any work.
	out := c.out
	if c.report && out == "" {
		out = defaultReportDir
	}
	var rd *runDir // the draws stream into DIR as they come
	if resume != nil {
		if rd, err = reopenRunDir(resume); err != nil {
			return err
		}
		rd.info = resume.info
		fmt.Fprintln(stderr, "langevin run: "+resume.describe()) // even with --quiet
	} else if out != "" {
		if rd, err = createRunDir(out, c.overwrite); err != nil {
			return err
		}
		if err := rd.saveResumeInfo(c, args); err != nil {
			rd.w.Close(err)
			return err
		}
	}
	if rd != nil {
		st.SetCloser(func(err error) { rd.w.Close(err) })
		defer rd.w.Close(errors.New("the run failed before sampling"))
	}
	j := &job{c: c, stderr: stderr}
	ph := runctl.NewPhases(stderr, true) // the time line; st reports the phases as they come
	if c.toy() {
		j.train = &data.Dataset{Source: "no data (toy target " + c.model + ")"}
	} else if c.formula.text != "" {
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
	if j.rows != nil && !c.quiet {
		fmt.Fprintln(stderr, "langevin run: "+j.describeRows())
	}
	if err := j.buildModel(); err != nil {
		return err
	}
	ph.Done("load", "")
	m := j.m
	if err := checkRunSize(c, m, c.earlyOptions()); err != nil {
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
	if c.maxTime > 0 {
		pre, preCancel = context.WithTimeoutCause(ctx, c.maxTime-time.Since(jobStart),
			fmt.Errorf("--max-time %v reached before the sampling began (in %s): no draws; raise --max-time", c.maxTime, "the MAP and the plan"))
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
	usePrecond := c.usesLaplacePrecond()
	if c.sampler == "auto" && fit.BlockPlanned(m, nil) {
		usePrecond = false // the plan's block-arrow Hessian replaces the dense one
	}
	needMAP := c.init == "map" || c.init == "laplace" || usePrecond || c.cv
	if mapErr != nil && needMAP {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", mapErr)
	}
	j.env = &buildEnv{c: c, m: m, lap: lap, mapTh: mapTheta, points: netPoints(j)}
	var laplace []float64
	if c.init == "laplace" || usePrecond {
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
		j.env.precond = laplace
	}
	st.Enter("the sampler's set-up", false)
	var s langevin.Sampler
	if e := st.Do(pre, func() { s, err = c.def.build(pre, j.env) }); e != nil {
		return e
	}
	if e := st.Interrupted(); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	ph.Done("MAP and setup", "")
	if a := j.env.auto; a != nil && a.net != nil {
		mapTheta = bestMode(a.net) // the MAP network of the output
	}
	if strings.HasPrefix(j.env.stepNote, "warning") {
		fmt.Fprintln(stderr, "langevin run: "+j.env.stepNote) // also before a run that diverges
	}
	if j.env.schedNote != "" {
		fmt.Fprintln(stderr, "langevin run: "+j.env.schedNote)
	}
	var init langevin.Initializer
	switch c.init {
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
		Chains: c.chains, Iters: c.iters, BurnIn: c.burnin, Thin: c.thin, Seed: c.seed,
		Init: init, SaveWarmup: !c.def.kind.noWarmup,
	}
	if c.chainID > 0 { // one chain of the analysis: the same draws as in the run of all
		opts.Chains, opts.FirstChain = 1, c.chainID-1
	}
	auto := j.env.auto
	until := ""
	if auto != nil {
		auto.adjust(c, m, &opts, jobStart) // --max-time covers the whole job
		if opts.Until != nil {
			until = fmt.Sprintf("until min bulk-ESS ≥ %.0f and R̂ ≤ 1.01, at most %d per chain", c.targetESS, opts.Iters)
			if auto.net != nil {
				until = fmt.Sprintf("until the predictions converge (function-space ESS ≥ %.0f, R̂ ≤ 1.02 median, 1.1 max), at most %d per chain", netTarget(c), opts.Iters)
			}
		}
	}
	// The bar counts the run's own cap (a plan's, not --iters' 10⁷).
	prog := runctl.NewProgress(stderr, c.quiet, opts.Chains, opts.Iters)
	prog.Until = until
	opts.Progress = prog.Update
	if err := checkRunSize(c, m, opts); err != nil {
		return err
	}
	if rd != nil {
		names := append(langevin.ParamNames(m), derivedNames(m)...)
		if rd.resume != nil {
			if opts.Resume, err = rd.resumeChains(j.chainConfig(), opts.FirstChain+1, opts.Chains, s.StatNames(), names); err != nil {
				return err
			}
		} else if err := rd.openChains(j.chainConfig(), opts.FirstChain+1, opts.Chains, s.StatNames(), names); err != nil {
			return err
		}
		opts.Sink = rd.sink
		if c.checkpoint > 0 {
			opts.Checkpoint, opts.CheckpointEvery = rd.checkpoint, c.checkpoint
		}
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
	if rd != nil && tr != nil {
		rd.sampled(tr, intr == nil, stderr)
	}
	if tr == nil || (runErr != nil && tr.NumDraws() == 0) {
		if rd != nil {
			rd.w.Close(runErr)
		}
		if tr == nil {
			return inputError{runErr}
		}
		return runErr
	}

	st.Enter("writing", false)
	pc := c // the configuration as run (--sampler auto: the sampler it chose)
	if auto != nil {
		pc = auto.config(c, tr)
	}
	params, note := fit.CommonLength(tr)
	table := diag.Summarize(tr.Names, params)
	if c.formula.text != "" {
		printFormulaHeader(stdout, j, pc)
	} else if c.toy() {
		fmt.Fprintf(stdout, "toy target %s (d = %d, no data, gradient noise sd %g), %s, %s\n\n",
			c.model, m.Dim(), c.gradNoise, pc.describe(), c.chainsText())
	} else {
		fmt.Fprintf(stdout, "%s on %s (N = %d train, %d test, d = %d), %s, %s\n\n",
			modelTitle(c.model, m), j.train.Source, j.trainLen(), j.testLen(), m.Dim(), pc.describe(), c.chainsText())
	}
	printCoding(stdout, j.train)
	if err := table.Format(stdout); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintln(stdout)
	if j.train != nil && namedTable(c.data, j.train.Coding) {
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
		printMLPPredictive(stdout, mlp, j.env.glm, tr, mapTheta, test, j.scaler)
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
		auto.print(&notes, c, tr)
	}
	printWhere(&notes, pc, tr, table, elapsed, mapTheta)
	if j.env.stepNote != "" {
		fmt.Fprintln(&notes, j.env.stepNote)
	}
	if j.env.schedNote != "" {
		fmt.Fprintln(&notes, j.env.schedNote)
	}
	if intr == nil {
		printKSD(ctx, &notes, pc, m, lap, tr)
		ph.Done("KSD", "")
	}
	stdout.Write(notes.Bytes())
	ph.Print(stdout)
	if files != "" {
		fmt.Fprintf(stdout, "written:  %s\n", files)
	}
	if c.report && intr == nil {
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
	if c.formula.text != "" {
		return j.buildFormulaModel()
	}
	s := c.spec()
	s.Classes = max(s.Classes, j.classes())
	if j.rows != nil {
		return j.buildRowsModel()
	}
	if !s.NeedsData() {
		m, err := s.Build(nil, nil)
		if err != nil {
			return inputErrorf("--rho: %v", err)
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
	if j.uci != nil && s.Kind == "mlp" && !c.set["hidden"] {
		s.Hidden = []int{j.uci.Hidden} // the benchmark's protocol (n_hidden.txt)
	}
	j.standardizeTarget(s)
	m, err := s.BuildOffset(j.train.X, j.train.Y, j.offTrain)
	if err != nil {
		if c.model == "mlp" {
			return inputErrorf("--data %s: %v", c.data, err)
		}
		return inputError{err}
	}
	j.m, j.spec = m, s
	return nil
}

// laplaceHook, when set (by tests), sees the run's Laplace approximation
// after the run, to count its MAPs and Hessians.
var laplaceHook func(*approx.RunLaplace)

// newRunLaplace returns the run's one MAP and Laplace approximation
// (fit.NewLaplace); an MLP's MAP is Adam's from a
// Glorot start, and only with --init map: by the network plan's rule
// (fit.NetMAP: 300 epochs, learning rate 10⁻² decaying to 10⁻³) unless
// --map-lr asks for a constant learning rate (--map-iters, --map-batch).
func newRunLaplace(c *runConfig, m langevin.Model) *approx.RunLaplace {
	lap := fit.NewLaplace(m)
	if mlp, ok := m.(*model.MLP); ok {
		lap.FindMAP = func(ctx context.Context, _ langevin.Model) ([]float64, error) {
			if c.init != "map" {
				return nil, nil
			}
			theta := make([]float64, mlp.Dim())
			rng := langevin.ChainRNG(c.seed, 1000)
			mlp.GlorotInit(theta, rng)
			if !c.set["map-lr"] {
				return fit.NetMAP(ctx, mlp, theta, netMAPIters(c, mlp.Len()), c.mlp.mapBatch, rng)
			}
			return sampler.FitAdam(ctx, mlp, theta, sampler.AdamFit{Iters: c.mlp.mapIters, Batch: c.mlp.mapBatch, LR: c.mlp.mapLR}, rng)
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

// earlyOptions are the run options as far as they are known before the
// MAP and the plan, for the memory check: --sampler auto's burn-in and
// rounds are the plan's, so its count is a lower bound until then.
func (c *runConfig) earlyOptions() langevin.Options {
	o := langevin.Options{Chains: c.chains, Iters: c.iters, BurnIn: c.burnin, Thin: c.thin, SaveWarmup: true}
	if c.chainID > 0 {
		o.Chains = 1
	}
	if (c.sampler == "auto" || c.planned) && !c.set["thin"] {
		o.Thin, o.MaxKeep, o.CheckEvery = 1, fit.MaxKeep(c.targetESS, c.chains), 100
	}
	return o
}

// chainsText says which chains ran: "4 chains", or "chain 2 of 4".
func (c *runConfig) chainsText() string {
	if c.chainID > 0 {
		return fmt.Sprintf("chain %d of %d", c.chainID, c.chains)
	}
	return fmt.Sprintf("%d chains", c.chains)
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
