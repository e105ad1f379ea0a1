package fit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// Control is how a caller follows and stops a run of a [Problem]: the
// phases as they come (a signal in a hard phase may end the process), work
// that cannot check its context everywhere, the interruption by a signal,
// the time line, the lines to report as the run goes and the progress of
// the chains. The command implements it over its signal handling; a nil
// Control follows nothing.
type Control interface {
	// Enter records the phase the run is in; hard: a signal ends the
	// process at once.
	Enter(phase string, hard bool)
	// Do runs f and returns nil when it is done; if ctx ends first it
	// returns at once with the interruption or ctx's cause.
	Do(ctx context.Context, f func()) error
	// Interrupted returns the run's interruption by a signal, or nil.
	Interrupted() error
	// Done ends a phase of the time line.
	Done(phase string)
	// Warn reports one line while the run goes on (a warning, a note
	// printed before the sampling).
	Warn(line string)
	// Progress returns the chains' progress callback of a run of chains
	// chains of at most iters iterations each (until: the stop rule, "" for
	// none), and the functions that start and stop its display.
	Progress(chains, iters int, until string) (update func(chain, done int), start, stop func())
}

// PostBudget returns the context of the work after the sampling (the
// checks, the test-set predictions): it ends with {max-time}, counted from
// start (never, without one).
func PostBudget(c *Config, start time.Time) (context.Context, context.CancelFunc) {
	if c.MaxTime <= 0 {
		return context.Background(), func() {}
	}
	return context.WithDeadline(context.Background(), start.Add(c.MaxTime))
}

// BeforeChecksHook, when set (by tests), is called with the context of the
// checks' budget (PostBudget) before they begin.
var BeforeChecksHook func(ctx context.Context)

// noControl is the Control of a run nobody follows.
type noControl struct{}

func (noControl) Enter(string, bool) {}
func (noControl) Do(ctx context.Context, f func()) error {
	f()
	return nil
}
func (noControl) Interrupted() error { return nil }
func (noControl) Done(string)        {}
func (noControl) Warn(string)        {}
func (noControl) Progress(int, int, string) (func(int, int), func(), func()) {
	return nil, func() {}, func() {}
}

// runProblem is Run on a Problem: the MAP, the Laplace approximation, the
// sampler's build (its plan), the run's options, the sampling into the
// run directory, the summary and the account of the run.
func runProblem(ctx context.Context, j *Problem, s Settings) (res *Result, runErr error) {
	c, m := j.C, j.M
	ctl := s.Control
	if ctl == nil {
		ctl = noControl{}
	}
	jobStart := s.Start
	if jobStart.IsZero() {
		jobStart = time.Now()
	}
	rd := s.RunWriter
	if err := CheckRunSize(c, m, c.EarlyOptions()); err != nil {
		return nil, err // before any work; checked again with the plan's options
	}
	ctl.Enter("the MAP", false)
	// The MAP is the baseline, and the start or the preconditioner's centre;
	// lap computes it, and the Hessian, at most once for the whole run.
	lap := NewRunLaplace(c, m)
	if LaplaceHook != nil {
		defer LaplaceHook(lap)
	}
	// The phases before the sampling end at the first signal or at
	// the time budget (MaxTime), whatever they are doing (ctl.Do).
	pre, preCancel := ctx, context.CancelFunc(func() {})
	if c.MaxTime > 0 {
		pre, preCancel = context.WithTimeoutCause(ctx, c.MaxTime-time.Since(jobStart),
			&TimeBudgetError{Limit: c.MaxTime, Phase: "the MAP and the plan"})
	}
	defer preCancel()
	var mapTheta []float64
	var mapErr error
	if e := ctl.Do(pre, func() { mapTheta, mapErr = lap.MAP(pre) }); e != nil {
		return nil, e
	}
	if e := ctl.Interrupted(); e != nil {
		return nil, e
	}
	if w := SeparationWarning(m, mapTheta); w != "" {
		ctl.Warn("warning: " + w)
	}
	usePrecond := c.UsesLaplacePrecondOn(m)
	needMAP := c.Init == "map" || c.Init == "laplace" || usePrecond || c.Cv
	if mapErr != nil && needMAP {
		return nil, &MAPError{Err: mapErr}
	}
	j.Env = &BuildEnv{C: c, M: m, Lap: lap, MapTh: mapTheta, Points: NetPoints(j.Test)}
	var laplace []float64
	var err error
	if c.UsesLaplaceInitOn(m) || usePrecond {
		ctl.Enter("the Laplace approximation", false)
		if e := ctl.Do(pre, func() { laplace, err = lap.Diag(pre) }); e != nil {
			return nil, e
		}
		if err != nil {
			if e := ctl.Interrupted(); e != nil {
				return nil, e
			}
			return nil, err
		}
	}
	if usePrecond {
		j.Env.Precond = laplace
	}
	ctl.Enter("the sampler's set-up", false)
	var smp langevin.Sampler
	if e := ctl.Do(pre, func() { smp, err = c.Def.Build(pre, j.Env) }); e != nil {
		return nil, e
	}
	if e := ctl.Interrupted(); e != nil {
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	ctl.Done("MAP and setup")
	if a := j.Env.Auto; a != nil && a.Net != nil {
		mapTheta = BestMode(a.Net) // the MAP network of the output
	}
	if strings.HasPrefix(j.Env.StepNote, "warning") {
		ctl.Warn(j.Env.StepNote) // also before a run that diverges
	}
	if j.Env.SchedNote != "" {
		ctl.Warn(j.Env.SchedNote)
	}
	init := c.Initializer(mapTheta, laplace)
	if j.Env.Init != nil {
		init = j.Env.Init // the build's own start (NUTS on a degenerate mode)
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
		auto.Adjust(c, m, &opts, jobStart) // the time budget covers the whole job
		if opts.Until != nil {
			until = fmt.Sprintf("until %s, at most %d per chain", NewRHatRule(m, c.TargetESS).ProgressText(), opts.Iters)
			if auto.Net != nil {
				until = fmt.Sprintf("until the predictions converge (function-space ESS ≥ %.0f, R̂ ≤ 1.02 median, 1.1 max), at most %d per chain", NetTarget(c), opts.Iters)
			}
		}
	}
	// The bar counts the run's own cap (a plan's, not the default 10⁷).
	update, startBar, stopBar := ctl.Progress(opts.Chains, opts.Iters, until)
	opts.Progress = update
	if s.Control == nil {
		opts.Progress = s.Progress
	}
	if err := CheckRunSize(c, m, opts); err != nil {
		return nil, err
	}
	if rd != nil {
		names := append(langevin.ParamNames(m), DerivedNames(m)...)
		hc := c // the headers record the run as planned (the auto sampler: its choice)
		if auto != nil {
			hc = auto.Planned(c, opts.Thin, opts.Iters)
		}
		if opts.Resume, err = rd.Open(hc, opts.FirstChain+1, opts.Chains, smp.StatNames(), names); err != nil {
			return nil, err
		}
		opts.Sink = rd.Sink
		if c.Checkpoint > 0 {
			opts.Checkpoint, opts.CheckpointEvery = rd.Checkpoint, c.Checkpoint
		}
	}
	if rd == nil {
		opts.Sink = s.Sink
	}
	ctl.Enter("sampling", false)
	start := time.Now()
	startBar()
	// {max-time} holds in the warm-up too, which the ESS rule does not
	// watch (NUTS's warm-up ran a 5 s budget to 17.4 s): the sampling ends
	// at 9/10 of the budget whatever it is doing.
	sctx, maxTimeErr := ctx, error(nil)
	if c.MaxTime > 0 {
		maxTimeErr = fmt.Errorf("{max-time} %v reached", c.MaxTime)
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadlineCause(ctx, jobStart.Add(c.MaxTime/10*9), maxTimeErr)
		defer cancel()
	}
	tr, runErr := langevin.Run(sctx, m, smp, opts)
	stopBar()
	cutByTime := false // {max-time} ended the sampling, the draws so far kept
	if maxTimeErr != nil && runErr != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), maxTimeErr) {
		if tr == nil || tr.NumDraws() == 0 {
			runErr = fmt.Errorf("%w during the warm-up (burn-in), before a draw was kept: no draws; raise {max-time}", maxTimeErr)
		} else {
			runErr, cutByTime = nil, true
			ctl.Warn(fmt.Sprintf("%v during the sampling: the draws so far are kept", maxTimeErr))
		}
	}
	elapsed := time.Since(start)
	ctl.Done("sampling")
	intr := ctl.Interrupted()
	if intr != nil {
		runErr = intr
	}
	runErr = auto.ExplainError(m, runErr)
	if rd != nil && tr != nil {
		rd.Sampled(tr, intr == nil)
	}
	if tr == nil || (runErr != nil && tr.NumDraws() == 0) {
		if rd != nil {
			if err := rd.Abandon(runErr); err != nil {
				ctl.Warn(fmt.Sprintf("warning: %v", err))
			}
		}
		if tr == nil {
			return nil, InputError{Err: runErr}
		}
		return nil, runErr
	}

	ctl.Enter("writing", false)
	pc := c // the configuration as run (the auto sampler: the sampler it chose)
	if auto != nil {
		pc = auto.Config(c, tr)
	}
	res = &Result{Trace: tr, MAP: mapTheta, MAPErr: mapErr, Config: pc, Elapsed: elapsed, Interrupted: intr}
	if auto != nil {
		res.Plan, res.NetPlan = auto.plan, auto.Net
	}
	params, note := CommonLength(tr)
	params, s2note := Sigma2InTargetUnits(tr.Names, params, j.Spec, j.Scaler)
	res.DrawsNote, res.Sigma2Note = note, s2note
	if (intr != nil || cutByTime) && summaryWork(params) > interruptedSummaryMax {
		// A signal (or the spent {max-time}) asks the run to stop within seconds: a summary of
		// thousands of parameters (ESS and R̂ by FFT, about 1 ms a column)
		// would take longer than the sampling it reports; the draws are
		// kept, and `langevin summary DIR` computes it from them.
		why := "interrupted"
		if intr == nil {
			why = "{max-time} spent"
		}
		res.SummarySkipped = fmt.Sprintf("summary: not computed (%s, and %d parameters × %d draws would take seconds): `summary` of the run directory computes it from the kept draws", why, len(params), summaryWork(params)/max(1, len(params)))
	} else {
		res.Table = diag.Summarize(tr.Names, params)
	}
	checked := res.Table // the table the warnings name
	if j.Relabel != nil {
		checked = j.Relabel(res.Table) // a formula's names, as printed
	}
	// The run directory is complete before the predictions, which a
	// signal may cut short.
	if runErr == nil && intr == nil {
		// a network's chains' weights in its predictive, recorded in model.json
		res.Weights = RunChainWeights(m, j.Env.Glm, tr, c.Mlp.ChainWeights, c.Seed)
	}
	if rd != nil {
		sum := res.Table
		if runErr != nil && intr == nil || res.SummarySkipped != "" {
			sum = nil // a failed run (exit 1) leaves no summary.csv, nor one cut short unsummarised
		}
		if res.Files, err = rd.Finish(tr, runErr, sum, res.Weights); err != nil {
			return nil, err
		}
	}
	if intr == nil {
		intr = ctl.Interrupted() // during the writing
		res.Interrupted = intr
	}
	// The run's account — the plan's rules, where the draws went, the
	// sampler's tuning, the checks — is printed and is the report's.
	var notes bytes.Buffer
	if auto != nil {
		auto.Print(&notes, c, tr)
	}
	PrintWhere(&notes, pc, tr, checked, elapsed, mapTheta, j.Env.Sched)
	if j.Env.StepNote != "" {
		fmt.Fprintln(&notes, j.Env.StepNote)
	}
	if j.Env.SchedNote != "" {
		fmt.Fprintln(&notes, j.Env.SchedNote)
	}
	if intr == nil {
		// The checks come within {max-time} too: skipped, and said so,
		// when it is spent (they ran 3 s past a 3 s budget before).
		ctl.Enter("the KSD check", true)
		post, cancel := PostBudget(c, jobStart)
		defer cancel()
		if BeforeChecksHook != nil {
			BeforeChecksHook(post)
		}
		var checks bytes.Buffer
		if post.Err() != nil || ctl.Do(post, func() {
			k := PrintKSD(post, &checks, pc, m, lap, tr)
			PrintMisfit(post, &checks, pc, m, lap, tr, j.Env.MisfitHint, k)
		}) != nil {
			fmt.Fprintf(&notes, "ksd:      not checked: {max-time} %v reached\n", c.MaxTime)
		} else {
			notes.Write(checks.Bytes())
		}
		ctl.Done("KSD")
	}
	res.Account = notes.String()
	return res, runErr
}

// TimeBudgetError is the time budget of a run (Config.MaxTime) ending
// before the sampling began: there are no draws.
type TimeBudgetError struct {
	Limit time.Duration
	Phase string // what the run was doing
}

func (e *TimeBudgetError) Error() string {
	return fmt.Sprintf("the time budget of %v ended before the sampling began (in %s): no draws", e.Limit, e.Phase)
}

// MAPError is the failure to find a MAP that the run needs: for its
// initial points, its preconditioner or its control variates.
type MAPError struct{ Err error }

func (e *MAPError) Error() string {
	return "finding the MAP (needed for the initial points and the preconditioner): " + e.Err.Error()
}

func (e *MAPError) Unwrap() error { return e.Err }

// interruptedSummaryMax bounds the draws (parameters × draws of all chains)
// an interrupted run summarises before it exits: 10⁶ take about a second.
const interruptedSummaryMax = 1_000_000

// summaryWork returns the number of draws Summarize would read from params
// (params[j][chain][draw]).
func summaryWork(params [][][]float64) int {
	n := 0
	for _, p := range params {
		for _, c := range p {
			n += len(c)
		}
	}
	return n
}
