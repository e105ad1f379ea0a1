package fit

import (
	"context"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
)

// --sampler auto on a network (--model mlp): NewNetPlan chooses the
// starts, the modes, the preconditioner, the step, the burn-in and the
// length (until the predictions at held-out points converge); each rule is
// printed on an auto: line.

// netTargetESS is the function-space ESS a network run aims at unless
// --target-ess is given: 100 effective draws put the Monte Carlo error of
// every predictive mean at a tenth of its posterior sd.
const netTargetESS = 100

// buildNetAuto is buildAuto for a network.
func buildNetAuto(ctx context.Context, b *BuildEnv, net Network) (langevin.Sampler, error) {
	c := b.C
	opts := NetPlanOptions{Seed: c.Seed, Starts: c.Chains, Points: b.Points}
	if c.Set["batch"] {
		opts.Batch = c.Batch
	}
	if c.Set["map-iters"] {
		opts.MAPIters = c.Mlp.MapIters
	}
	plan, err := NewNetPlan(ctx, net, opts)
	if err != nil {
		return nil, err
	}
	a := &autoRun{Net: plan, netModel: net, burnin: plan.BurnIn}
	if c.Set["burnin"] {
		a.burnin = c.Burnin
	}
	b.Auto = a
	b.recordStep(plan.Eta)
	return plan.Sampler, nil
}

// netTarget is the function-space ESS target of a network run.
func netTarget(c *Config) float64 {
	if c.Set["target-ess"] {
		return c.TargetESS
	}
	return netTargetESS
}

// adjustNet sets the run options of a network's plan.
func (a *autoRun) adjustNet(c *Config, o *langevin.Options) {
	p := a.Net
	if !c.Set["iters"] {
		o.Iters = p.MaxIters
	}
	o.BurnIn = min(a.burnin, o.Iters/2)
	a.burnin = o.BurnIn
	o.Init = p.Init()
	// The burn-in of a network can be long and wide: its draws are not kept.
	o.SaveWarmup = false
	if !c.Set["thin"] {
		o.Thin = 1
		o.MaxKeep = MaxKeep(netTarget(c), c.Chains)
	}
	o.CheckEvery = max(200, a.burnin/4)
	if c.ChainID > 0 || (c.Set["target-ess"] && c.TargetESS == 0) {
		return
	}
	o.Until = p.Until(a.netModel, netTarget(c), &a.conv)
}

// printNet writes the network plan's auto: lines and why the run stopped.
func (a *autoRun) printNet(w io.Writer, c *Config, tr *langevin.Trace) {
	for _, line := range strings.Split(strings.TrimSpace(a.Net.String()), "\n") {
		fmt.Fprintf(w, "auto:     %s\n", line)
	}
	for _, r := range a.Net.Restarts {
		fmt.Fprintf(w, "auto:     restart: %s\n", r)
	}
	conv := a.conv
	if conv == nil || !conv.Converged {
		conv = a.Net.Convergence(a.netModel, tr, netTarget(c))
	}
	switch {
	case conv.Converged:
		fmt.Fprintf(w, "auto:     length: ran until the predictions converged: %v\n", conv)
	case c.ChainID > 0:
		fmt.Fprintf(w, "auto:     length: --iters %d (one chain of an analysis): %v\n", c.Iters, conv)
	default:
		fmt.Fprintf(w, "auto:     length: stopped at the cap of %d iterations before the predictions converged: %v — it would take more iterations (--iters), or more chains agreeing (the modes differ)\n", a.lastIter(tr), conv)
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
func NetPoints(test *data.Dataset) *mat.Dense {
	if test == nil || test.X == nil || test.Len() == 0 {
		return nil
	}
	n, p := test.X.Dims()
	return mat.DenseCopyOf(test.X.Slice(0, min(n, 100), 0, p))
}

// bestMode is the mode of the plan with the largest log posterior: the MAP
// network of the output.
func BestMode(p *NetPlan) []float64 {
	b := 0
	for k, lp := range p.ModeLP {
		if lp > p.ModeLP[b] {
			b = k
		}
	}
	return p.Modes[b]
}
