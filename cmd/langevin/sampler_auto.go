package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// --sampler auto (the default): fit.NewPlan chooses NUTS or SGLD (with
// control variates where they pay) by a cost rule, the preconditioner, the
// step and the burn-in, and the run goes on until the smallest bulk-ESS
// reaches --target-ess or --max-time has passed. Every choice is printed
// with the rule that made it.

func init() {
	registerSampler(&samplerDef{name: "auto", family: "automatic",
		kind:    samplerKind{minibatch: true, laplace: true},
		build:   buildAuto,
		summary: "NUTS where it is cheap, else SGLD (control variates where they pay), step/burn-in/length by rule; each choice printed"})
}

// autoRun is what buildAuto decided, for the run options and the output.
type autoRun struct {
	plan    *fit.Plan
	burnin  int
	stopWhy string

	// A network's plan (then plan is nil), and the last verdict of its
	// function-space rule.
	net      *fit.NetPlan
	netModel fit.Network
	conv     *fit.FunctionConvergence
}

func buildAuto(ctx context.Context, b *buildEnv) (langevin.Sampler, error) {
	c := b.c
	if net, ok := b.m.(fit.Network); ok {
		return buildNetAuto(ctx, b, net)
	}
	opts := fit.PlanOptions{Seed: c.seed}
	if c.planned {
		opts.Kind = "sgld"
	}
	if _, isMLP := b.m.(*model.MLP); !isMLP && !fit.BlockPlanned(b.m, &opts) {
		if l, err := b.lap.Approx(ctx); err == nil {
			opts.MAP, opts.NegHess = l.Mean, l.Prec
		}
	}
	if opts.MAP == nil && b.mapTh != nil {
		opts.MAP = b.mapTh
	}
	if c.set["batch"] {
		opts.Batch = c.batch
	}
	opts.Replace = c.replace
	if c.cv {
		opts.CV = "on"
	}
	plan, err := fit.NewPlan(ctx, b.m, opts)
	if err != nil {
		return nil, err
	}
	a := &autoRun{plan: plan}
	b.auto = a
	burnin, step := -1, 0.0
	if c.set["burnin"] {
		burnin = c.burnin
	}
	if c.stepSet {
		step = c.step
	}
	s, burn, eta := plan.Configure(c.iters, burnin, step, c.noiseEvery)
	a.burnin = burn
	if plan.Kind == "sgld" {
		b.recordStep(eta)
	}
	return s, nil
}

// adjust sets the run options of --sampler auto: burn-in, initial points,
// the ESS target and time budget, and the growing thinning.
func (a *autoRun) adjust(c *runConfig, m langevin.Model, o *langevin.Options, start time.Time) {
	if a.net != nil {
		a.adjustNet(c, o)
		return
	}
	o.BurnIn = a.burnin
	if !c.set["thin"] {
		o.Thin = 1
		o.MaxKeep = fit.MaxKeep(c.targetESS, c.chains)
	}
	if in := a.plan.Init(); in != nil && !c.set["init"] {
		o.Init = in
	}
	o.CheckEvery = a.plan.CheckEvery() // also the rounds of MaxKeep
	if c.chainID > 0 || c.targetESS == 0 {
		return // no ESS rule (one chain of an analysis cannot see the others'): to --iters
	}
	o.Until = fit.UntilESS(m.Dim(), c.targetESS, start, c.maxTime, &a.stopWhy)
}

// config returns the configuration the run amounts to, for the output: the
// chosen sampler, its batch and the iterations actually run.
func (a *autoRun) config(c *runConfig, tr *langevin.Trace) *runConfig {
	cc := *c
	cc.burnin = a.burnin
	cc.thin = tr.Thin
	cc.iters = a.lastIter(tr)
	cc.schedule = "const"
	if a.net != nil {
		cc.sampler = a.net.Kind
		cc.def = samplerTable[a.net.Kind]
		cc.batch = a.net.Batch.Size
		return &cc
	}
	cc.sampler = a.plan.Kind
	cc.def = samplerTable[a.plan.Kind]
	if a.plan.Kind == "nuts" {
		// The tuning line names the metric the plan gave NUTS.
		o := *opt[*exactFlags](c, "exact")
		o.metric = "diag"
		if a.plan.Dense {
			o.metric = "dense"
		}
		cc.opts = maps.Clone(c.opts)
		cc.opts["exact"] = &o
	}
	if a.plan.Kind == "sgld" {
		cc.batch = a.plan.Batch.Size
		cc.cv = a.plan.Batch.CV != nil
	}
	return &cc
}

// print writes the plan, one "auto:" line per rule, and why the run stopped.
func (a *autoRun) print(w io.Writer, c *runConfig, tr *langevin.Trace) {
	if a.net != nil {
		a.printNet(w, c, tr)
		return
	}
	for _, n := range a.plan.Notes() {
		fmt.Fprintln(w, n)
	}
	why := a.stopWhy
	switch {
	case why != "":
	case c.chainID > 0:
		why = fmt.Sprintf("--iters %d: one chain of an analysis runs to --iters, its draws those of chain %d of --chains %d --iters %d --target-ess 0", c.iters, c.chainID, c.chains, c.iters)
	case c.targetESS == 0:
		why = fmt.Sprintf("--iters %d (no ESS rule)", c.iters)
	default:
		why = fmt.Sprintf("--iters %d reached before min bulk-ESS %.0f", c.iters, c.targetESS)
	}
	fmt.Fprintln(w, fit.LengthNote(why, c.targetESS, c.maxTime))
	if a.plan.Kind == "sgld" && c.stepSet {
		for _, msg := range a.plan.Step.Check(c.step) {
			fmt.Fprintf(w, "warning:  --step: %s\n", msg)
		}
	}
}

// printKSD prints fit.KSDNotes: the kernel Stein discrepancy of the draws
// next to that of as many draws from the Laplace approximation, and a
// warning when the run is clearly worse. Not for optimisers.
func printKSD(ctx context.Context, w io.Writer, c *runConfig, m langevin.Model, lap *approx.RunLaplace, tr *langevin.Trace) {
	if c.def.kind.optimiser {
		return
	}
	for _, n := range fit.KSDNotes(ctx, lap, m, tr, c.seed) {
		fmt.Fprintln(w, n)
	}
}
