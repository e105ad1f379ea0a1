package main

import (
	"context"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// The deep ensemble, a baseline of the UCI benchmark.

func init() {
	registerSampler(&samplerDef{name: "ensemble", family: "approximations", kind: samplerKind{noWarmup: true}, resolve: resolveEnsemble, build: buildEnsemble,
		summary: "deep ensemble (Lakshminarayanan et al. 2017): --chains members (default 5), each a MAP network by the network plan's rule (Adam from its own random start, 300 epochs, learning rate 10⁻² decaying to 10⁻³); predictive = their equal mixture"})
}

// ensembleMembers is the deep ensemble's default size: Lakshminarayanan,
// Pritzel & Blundell (2017) use 5 networks in their UCI results.
const ensembleMembers = 5

// resolveEnsemble: one chain per member, each run for the MAP's Adam
// iterations from a random start; the member is the chain's last iterate,
// the one draw it keeps. The iterations are set in buildEnsemble when they
// follow the rule (it needs N).
func resolveEnsemble(c *runConfig) error {
	if c.model != "mlp" {
		return inputErrorf("--sampler ensemble: only for --model mlp (a deep ensemble of networks; other models have one mode: --sampler auto)")
	}
	for _, f := range []string{"burnin", "thin"} {
		if c.set[f] {
			return inputErrorf("--%s: --sampler ensemble keeps each member's last iterate (--iters sets the Adam iterations)", f)
		}
	}
	if c.set["init"] && c.init != "random" {
		return inputErrorf("--init %s: the members of --sampler ensemble start at random (--init random)", c.init)
	}
	if !c.set["chains"] {
		c.chains = ensembleMembers
	}
	if !c.set["iters"] {
		c.iters = c.mlp.mapIters
	}
	c.burnin, c.thin, c.init = c.iters-1, 1, "random"
	return nil
}

// netMAPIters is the Adam iterations of a network's MAP on n rows:
// --map-iters when given, else the network plan's rule (fit.NetMAPIters).
func netMAPIters(c *runConfig, n int) int {
	if c.set["map-iters"] {
		return c.mlp.mapIters
	}
	return fit.NetMAPIters(n, c.mlp.mapBatch)
}

// buildEnsemble returns Adam at the MAP's settings: each chain of the run is
// one member. Without --map-lr the members are MAP networks by the network
// plan's rule (fit.NetMAPSchedule over fit.NetMAPIters), the optimisation of
// the default's MAP network: a long run at a constant rate lets a small data
// set's members interpolate their training rows (yacht split 0: σ² 6·10⁻⁵ of
// var y after 20,000 iterations at 10⁻³, test log-likelihood −5.3).
func buildEnsemble(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	c := b.c
	batch := sampler.Minibatch{Size: min(c.mlp.mapBatch, b.m.Len())}
	if c.set["map-lr"] {
		b.recordStep(c.mlp.mapLR)
		return sampler.Adam{Step: schedule.Constant(c.mlp.mapLR), Batch: batch}, nil
	}
	if !c.set["iters"] {
		c.iters = netMAPIters(c, b.m.Len())
		c.burnin = c.iters - 1
	}
	sched := fit.NetMAPSchedule(c.iters)
	b.sched, b.stepA = sched, sched.At(0)
	return sampler.Adam{Step: sched, Batch: batch}, nil
}
