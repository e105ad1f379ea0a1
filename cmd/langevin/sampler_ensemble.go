package main

import (
	"context"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// The deep ensemble, a baseline of the UCI benchmark.

func init() {
	registerSampler(&samplerDef{name: "ensemble", family: "approximations", kind: samplerKind{noWarmup: true}, resolve: resolveEnsemble, build: buildEnsemble,
		summary: "deep ensemble (Lakshminarayanan et al. 2017): --chains members (default 5), each Adam from its own random fan-in start (the --map-* settings); predictive = their equal mixture"})
}

// ensembleMembers is the deep ensemble's default size: Lakshminarayanan,
// Pritzel & Blundell (2017) use 5 networks in their UCI results.
const ensembleMembers = 5

// resolveEnsemble: one chain per member, each run for the MAP's Adam
// iterations (--map-iters, or --iters) from a random start; the member is
// the chain's last iterate, the one draw it keeps.
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

// buildEnsemble returns Adam at the MAP's settings: each chain of the run is
// one member.
func buildEnsemble(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	c := b.c
	b.recordStep(c.mlp.mapLR)
	return sampler.Adam{Step: schedule.Constant(c.mlp.mapLR), Batch: sampler.Minibatch{Size: min(c.mlp.mapBatch, b.m.Len())}}, nil
}
