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

// {sampler} auto on a network ({model} mlp): NewNetPlan chooses the
// starts, the modes, the preconditioner, the step, the burn-in and the
// length (until the predictions at held-out points converge); each rule is
// printed on an auto: line.

// netTargetESS is the function-space ESS a network run aims at unless
// {target-ess} is given: 100 effective draws put the Monte Carlo error of
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

// NetTarget is the function-space ESS target of a network run.
func NetTarget(c *Config) float64 {
	if c.Set["target-ess"] {
		return c.TargetESS
	}
	return netTargetESS
}

// netRoundBytes bounds the memory of one round of a network's run: the draws
// of a round are kept at the round's thinning until its end, when MaxKeep
// thins them, so a round of CheckEvery iterations at thin 1 holds
// chains × CheckEvery draws of the whole network.
const netRoundBytes = 1 << 30

// netCheckEvery is the length of a network run's rounds (the function-space
// check of Until and MaxKeep's thinning): a quarter of the burn-in, at least
// 200 iterations, and at most what keeps one round's draws of all chains at
// thin 1 within netRoundBytes (1 GiB). The bound is a fixed size, not the
// machine's memory, so that the draws do not depend on the machine; it
// binds only for wide networks (Fashion-MNIST's 784-50-10, d = 39,760:
// 843 iterations a round instead of 7,892, whose 4 × 16,036 draws would
// need 19 GiB), never on the UCI sets (d ≤ 1,102: ≥ 30,000).
func netCheckEvery(burnin, chains int, m langevin.Model) int {
	rows := netRoundBytes / (int64(max(chains, 1)) * rowBytes(m))
	return int(max(1, min(int64(max(200, burnin/4)), rows)))
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
		o.MaxKeep = MaxKeep(NetTarget(c), c.Chains)
	}
	o.CheckEvery = netCheckEvery(a.burnin, o.Chains, a.netModel)
	if c.ChainID > 0 || (c.Set["target-ess"] && c.TargetESS == 0) {
		return
	}
	o.Until = p.Until(a.netModel, NetTarget(c), &a.conv)
}

// printNet writes the network plan's auto: lines and why the run stopped.
func (a *autoRun) printNet(w io.Writer, c *Config, tr *langevin.Trace) {
	for _, n := range a.netNotes(tr, NetTarget(c), c.ChainID, c.Iters) {
		fmt.Fprintln(w, n)
	}
}

// netNotes are the network plan's rules, its restarts and why the run
// stopped, as "auto" notes; target is the function-space ESS target, and
// chainID > 0 says the run was one chain of an analysis (run to iters).
func (a *autoRun) netNotes(tr *langevin.Trace, target float64, chainID, iters int) []Note {
	var out []Note
	for _, line := range strings.Split(strings.TrimSpace(a.Net.String()), "\n") {
		out = append(out, Note{"auto", line})
	}
	for _, r := range a.Net.Restarts {
		out = append(out, Note{"auto", "restart: " + r})
	}
	conv := a.conv
	if conv == nil || !conv.Converged {
		conv = a.Net.Convergence(a.netModel, tr, target)
	}
	switch {
	case conv.Converged:
		out = append(out, Note{"auto", fmt.Sprintf("length: ran until the predictions converged: %v", conv)})
	case chainID > 0:
		out = append(out, Note{"auto", fmt.Sprintf("length: {iters} %d (one chain of an analysis): %v", iters, conv)})
	default:
		out = append(out, Note{"auto", fmt.Sprintf("length: stopped at the cap of %d iterations before the predictions converged: %v; it would take: %s", a.lastIter(tr), conv, conv.Needs(a.burnin, a.lastIter(tr)))})
	}
	return out
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

// NetPoints are the held-out points at which a network's convergence is
// judged: the first 100 test rows (nil without a test set: the plan draws
// training rows).
func NetPoints(test *data.Dataset) *mat.Dense {
	if test == nil || test.X == nil || test.Len() == 0 {
		return nil
	}
	n, p := test.X.Dims()
	return mat.DenseCopyOf(test.X.Slice(0, min(n, 100), 0, p))
}

// BestMode is the mode of the plan with the largest log posterior: the MAP
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
