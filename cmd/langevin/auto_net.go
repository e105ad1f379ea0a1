package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
)

// --sampler auto on a network (--model mlp): fit.NewNetPlan chooses the
// starts, the modes, the preconditioner, the step, the burn-in and the
// length (until the predictions at held-out points converge); each rule is
// printed on an auto: line.

// netTargetESS is the function-space ESS a network run aims at unless
// --target-ess is given: 100 effective draws put the Monte Carlo error of
// every predictive mean at a tenth of its posterior sd.
const netTargetESS = 100

// buildNetAuto is buildAuto for a network.
func buildNetAuto(ctx context.Context, b *buildEnv, net fit.Network) (langevin.Sampler, error) {
	c := b.c
	opts := fit.NetPlanOptions{Seed: c.seed, Starts: c.chains, Points: b.points}
	if c.set["batch"] {
		opts.Batch = c.batch
	}
	if c.set["map-iters"] {
		opts.MAPIters = c.mlp.mapIters
	}
	plan, err := fit.NewNetPlan(ctx, net, opts)
	if err != nil {
		return nil, err
	}
	a := &autoRun{net: plan, netModel: net, burnin: plan.BurnIn}
	if c.set["burnin"] {
		a.burnin = c.burnin
	}
	b.auto = a
	b.recordStep(plan.Eta)
	return plan.Sampler, nil
}

// netTarget is the function-space ESS target of a network run.
func netTarget(c *runConfig) float64 {
	if c.set["target-ess"] {
		return c.targetESS
	}
	return netTargetESS
}

// adjustNet sets the run options of a network's plan.
func (a *autoRun) adjustNet(c *runConfig, o *langevin.Options) {
	p := a.net
	if !c.set["iters"] {
		o.Iters = p.MaxIters
	}
	o.BurnIn = min(a.burnin, o.Iters/2)
	a.burnin = o.BurnIn
	o.Init = p.Init()
	// The burn-in of a network can be long and wide: its draws are not kept.
	o.SaveWarmup = false
	if !c.set["thin"] {
		o.Thin = 1
		o.MaxKeep = fit.MaxKeep(netTarget(c), c.chains)
	}
	o.CheckEvery = max(200, a.burnin/4)
	if c.chainID > 0 || (c.set["target-ess"] && c.targetESS == 0) {
		return
	}
	o.Until = p.Until(a.netModel, netTarget(c), &a.conv)
}

// printNet writes the network plan's auto: lines and why the run stopped.
func (a *autoRun) printNet(w io.Writer, c *runConfig, tr *langevin.Trace) {
	for _, line := range strings.Split(strings.TrimSpace(a.net.String()), "\n") {
		fmt.Fprintf(w, "auto:     %s\n", line)
	}
	for _, r := range a.net.Restarts {
		fmt.Fprintf(w, "auto:     restart: %s\n", r)
	}
	conv := a.conv
	if conv == nil || !conv.Converged {
		conv = a.net.Convergence(a.netModel, tr, netTarget(c))
	}
	switch {
	case conv.Converged:
		fmt.Fprintf(w, "auto:     length: ran until the predictions converged: %v\n", conv)
	case c.chainID > 0:
		fmt.Fprintf(w, "auto:     length: --iters %d (one chain of an analysis): %v\n", c.iters, conv)
	default:
		fmt.Fprintf(w, "auto:     length: stopped at the cap of %d iterations before the predictions converged: %v; it would take: %s\n", a.lastIter(tr), conv, conv.Needs(a.burnin, a.lastIter(tr)))
	}
}

func (a *autoRun) lastIter(tr *langevin.Trace) int {
	last := a.burnin
	for _, it := range tr.Iters {
		if len(it) > 0 {
			last = max(last, it[len(it)-1])
		}
	}
	return last
}

// netPoints are the held-out points at which a network's convergence is
// judged: the first 100 test rows (nil without a test set: the plan draws
// training rows).
func netPoints(j *job) *mat.Dense {
	if j.test == nil || j.test.X == nil || j.test.Len() == 0 {
		return nil
	}
	n, p := j.test.X.Dims()
	return mat.DenseCopyOf(j.test.X.Slice(0, min(n, 100), 0, p))
}

// bestMode is the mode of the plan with the largest log posterior: the MAP
// network of the output.
func bestMode(p *fit.NetPlan) []float64 {
	b := 0
	for k, lp := range p.ModeLP {
		if lp > p.ModeLP[b] {
			b = k
		}
	}
	return p.Modes[b]
}
