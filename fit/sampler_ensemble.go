package fit

import (
	"context"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// The deep ensemble, a baseline of the UCI benchmark.

func init() {
	RegisterSampler(&SamplerDef{name: "ensemble", family: "approximations", Kind: SamplerKind{NoWarmup: true}, resolve: resolveEnsemble, Build: buildEnsemble,
		summary: "deep ensemble (Lakshminarayanan et al. 2017): --chains members (default 5), each Adam from its own random fan-in start (the --map-* settings); predictive = their equal mixture"})
}

// ensembleMembers is the deep ensemble's default size: Lakshminarayanan,
// Pritzel & Blundell (2017) use 5 networks in their UCI results.
const ensembleMembers = 5

// resolveEnsemble: one chain per member, each run for the MAP's Adam
// iterations (--map-iters, or --iters) from a random start; the member is
// the chain's last iterate, the one draw it keeps.
func resolveEnsemble(c *Config) error {
	if c.Model != "mlp" {
		return InputErrorf("--sampler ensemble: only for --model mlp (a deep ensemble of networks; other models have one mode: --sampler auto)")
	}
	for _, f := range []string{"burnin", "thin"} {
		if c.Set[f] {
			return InputErrorf("--%s: --sampler ensemble keeps each member's last iterate (--iters sets the Adam iterations)", f)
		}
	}
	if c.Set["init"] && c.Init != "random" {
		return InputErrorf("--init %s: the members of --sampler ensemble start at random (--init random)", c.Init)
	}
	if !c.Set["chains"] {
		c.Chains = ensembleMembers
	}
	if !c.Set["iters"] {
		c.Iters = c.Mlp.MapIters
	}
	c.Burnin, c.Thin, c.Init = c.Iters-1, 1, "random"
	return nil
}

// buildEnsemble returns Adam at the MAP's settings: each chain of the run is
// one member.
func buildEnsemble(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c := b.C
	b.recordStep(c.Mlp.MapLR)
	return sampler.Adam{Step: schedule.Constant(c.Mlp.MapLR), Batch: sampler.Minibatch{Size: min(c.Mlp.MapBatch, b.M.Len())}}, nil
}
