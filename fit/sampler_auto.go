package fit

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
)

// {sampler} auto (the default): NewPlan chooses NUTS or SGLD (with
// control variates where they pay) by a cost rule, the preconditioner, the
// step and the burn-in, and the run goes on until the smallest bulk-ESS
// reaches {target-ess} or {max-time} has passed. Every choice is printed
// with the rule that made it.

func init() {
	RegisterSampler(&SamplerDef{name: "auto", family: "automatic",
		Kind:    SamplerKind{Minibatch: true, laplace: true},
		Build:   buildAuto,
		summary: "NUTS where it is cheap, else SGLD (control variates where they pay), step/burn-in/length by rule; each choice printed"})
}

// autoRun is what buildAuto decided, for the run options and the output.
type autoRun struct {
	plan    *Plan
	burnin  int
	stopWhy string
	rhat    RHatRule // the R̂ half of the stop

	// A network's plan (then plan is nil), and the last verdict of its
	// function-space rule.
	Net      *NetPlan
	netModel Network
	conv     *FunctionConvergence
}

func buildAuto(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c := b.C
	if net, ok := b.M.(Network); ok {
		return buildNetAuto(ctx, b, net)
	}
	opts := PlanOptions{Seed: c.Seed}
	if c.TargetESS > 0 && c.Chains > 0 {
		opts.ChainESS = c.TargetESS / float64(c.Chains)
	}
	if c.Planned {
		opts.Kind = "sgld"
	}
	if c.PlanKind != "" {
		opts.Kind = c.PlanKind
	}
	if _, isMLP := b.M.(*model.MLP); !isMLP && !BlockPlanned(b.M, &opts) && !DiagPlanned(b.M, &opts) {
		if l, err := b.Lap.Approx(ctx); err == nil {
			opts.MAP, opts.NegHess = l.Mean, l.Prec
		}
	}
	if opts.MAP == nil && b.MapTh != nil {
		opts.MAP = b.MapTh
	}
	if c.Set["batch"] {
		opts.Batch = c.Batch
	}
	opts.Replace = c.Replace
	if c.Cv {
		opts.CV = "on"
	}
	plan, err := NewPlan(ctx, b.M, opts)
	if err != nil {
		return nil, err
	}
	a := &autoRun{plan: plan}
	b.Auto = a
	burnin, step := -1, 0.0
	if c.Set["burnin"] {
		burnin = c.Burnin
	}
	if c.StepSet {
		step = c.Step
	}
	s, burn, eta := plan.Configure(c.Iters, burnin, step, c.NoiseEvery)
	a.burnin = burn
	if plan.Kind == "sgld" {
		b.recordStep(eta)
	}
	return s, nil
}

// adjust sets the run options of {sampler} auto: burn-in, initial points,
// the ESS target and time budget, and the growing thinning.
func (a *autoRun) Adjust(c *Config, m langevin.Model, o *langevin.Options, start time.Time) {
	if a.Net != nil {
		a.adjustNet(c, o)
		return
	}
	o.BurnIn = a.burnin
	if !c.Set["thin"] {
		o.Thin = 1
		o.MaxKeep = MaxKeep(c.TargetESS, c.Chains)
	}
	if in := a.plan.Init(); in != nil && !c.Set["init"] {
		o.Init = in
	}
	o.CheckEvery = a.plan.CheckEvery() // also the rounds of MaxKeep
	if c.ChainID > 0 || c.TargetESS == 0 {
		return // no ESS rule (one chain of an analysis cannot see the others'): to {iters}
	}
	a.rhat = NewRHatRule(m, c.TargetESS)
	c.rhat = a.rhat
	o.Until = UntilRule(m.Dim(), c.TargetESS, a.rhat, start, SamplingBudget(c.MaxTime), &a.stopWhy)
}

// SamplingBudget is the part of a {max-time} budget T the ESS rule may
// sample for: 4T/5, leaving the rest to the test-set predictions and the
// checks (KSD, misfit), which are skipped, and say so, when it runs out.
func SamplingBudget(t time.Duration) time.Duration {
	return t / 5 * 4
}

// Config returns the configuration the run amounts to, for the output: the
// chosen sampler, its batch and the iterations actually run.
func (a *autoRun) Config(c *Config, tr *langevin.Trace) *Config {
	return a.Planned(c, tr.Thin, a.lastIter(tr))
}

// Planned returns the configuration the plan sets before the run, for the
// chain files' headers (written as the draws come): the chosen sampler, its
// batch and burn-in, with the given thinning and iteration cap.
func (a *autoRun) Planned(c *Config, thin, iters int) *Config {
	cc := *c
	cc.Burnin = a.burnin
	cc.Thin = thin
	cc.Iters = iters
	cc.Schedule = "const"
	if a.Net != nil {
		cc.Sampler = a.Net.Kind
		cc.Def = SamplerTable[a.Net.Kind]
		cc.Batch = a.Net.Batch.Size
		return &cc
	}
	cc.Sampler = a.plan.Kind
	cc.Def = SamplerTable[a.plan.Kind]
	if a.plan.Kind == "nuts" {
		cc.Batch = 0 // full data
		// The tuning line names the metric the plan gave NUTS.
		o := *Opt[*ExactFlags](c, "exact")
		o.Metric = "diag"
		if a.plan.Dense {
			o.Metric = "dense"
		}
		cc.Opts = maps.Clone(c.Opts)
		cc.Opts["exact"] = &o
	}
	if a.plan.Kind == "sgld" {
		cc.Batch = a.plan.Batch.Size
		cc.Cv = a.plan.Batch.CV != nil
	}
	return &cc
}

// ExplainError says what a run error means under the plan (see
// Plan.ExplainDivergence); other errors are returned unchanged.
func (a *autoRun) ExplainError(m langevin.Model, err error) error {
	if a == nil || a.Net != nil || err == nil {
		return err
	}
	return a.plan.ExplainDivergence(m, err)
}

// print writes the plan, one "auto:" line per rule, and why the run stopped.
func (a *autoRun) Print(w io.Writer, c *Config, tr *langevin.Trace) {
	if a.Net != nil {
		a.printNet(w, c, tr)
		return
	}
	for _, n := range a.plan.Notes() {
		fmt.Fprintln(w, n)
	}
	why := a.stopWhy
	switch {
	case why != "":
	case c.ChainID > 0:
		why = fmt.Sprintf("{iters} %d: one chain of an analysis runs to {iters}, its draws those of chain %d of {chains} %d {iters} %d {target-ess} 0", c.Iters, c.ChainID, c.Chains, c.Iters)
	case c.TargetESS == 0:
		why = fmt.Sprintf("{iters} %d (no ESS rule)", c.Iters)
	default:
		why = autoCutWhy(c, tr)
	}
	if a.rhat.Group != nil && tr.Dim > 0 {
		fmt.Fprintln(w, Note{"auto", "stop: " + a.rhat.Text(tr.Names[:tr.Dim], tr.NumChains())})
	}
	fmt.Fprintln(w, LengthNote(why, c.TargetESS, c.MaxTime))
	if a.plan.Kind == "sgld" && c.StepSet {
		for _, msg := range a.plan.Step.Check(c.Step) {
			fmt.Fprintf(w, "warning:  {step}: %s\n", msg)
		}
	}
}

// PrintKSD prints KSDNotes: the kernel Stein discrepancy of the draws
// next to that of as many draws from the Laplace approximation, and a
// warning when the run is clearly worse. Not for optimisers. It returns the
// check (nil when none was made), for PrintMisfit.
func PrintKSD(ctx context.Context, w io.Writer, c *Config, m langevin.Model, lap *approx.RunLaplace, tr *langevin.Trace) *diag.KSDCheck {
	if c.Def.Kind.Optimiser {
		return nil
	}
	notes, k := ksdChecked(ctx, lap, m, tr, c.Seed)
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return k
}

// autoCutWhy says why an auto run without a recorded stop ended: its
// maximum {iters}, or, when a chain's last iteration is short of it, a cut
// (a signal or an error) before the ESS rule was met.
func autoCutWhy(c *Config, tr *langevin.Trace) string {
	if _, last, early := chainCounts(tr, c.Iters, c.Burnin, c.Thin); early {
		return fmt.Sprintf("the run was cut short (a signal or an error) at iteration %s of at most %d, before min bulk-ESS %.0f", JoinInts(last), c.Iters, c.TargetESS)
	}
	return fmt.Sprintf("{iters} %d reached before min bulk-ESS %.0f", c.Iters, c.TargetESS)
}
