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
		summary: "deep ensemble (Lakshminarayanan et al. 2017): {chains} members (default 5), each a MAP network by the network plan's rule (Adam from its own random start, 300 epochs, learning rate 10⁻² decaying to 10⁻³); predictive = their equal mixture"})
}

// ensembleMembers is the deep ensemble's default size: Lakshminarayanan,
// Pritzel & Blundell (2017) use 5 networks in their UCI results.
const ensembleMembers = 5

// resolveEnsemble: one chain per member, each run for the MAP's Adam
// iterations from a random start; the member is the chain's last iterate,
// the one draw it keeps. The iterations are set in buildEnsemble when they
// follow the rule (it needs N).
func resolveEnsemble(c *Config) error {
	if c.Model != "mlp" {
		return InputErrorf("{sampler} ensemble: only for {model} mlp (a deep ensemble of networks; other models have one mode: {sampler} auto)")
	}
	for _, f := range []string{"burnin", "thin"} {
		if c.Set[f] {
			return InputErrorf("{%s}: {sampler} ensemble keeps each member's last iterate ({iters} sets the Adam iterations)", f)
		}
	}
	if c.Set["init"] && c.Init != "random" {
		return InputErrorf("{init} %s: the members of {sampler} ensemble start at random ({init} random)", c.Init)
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

// netMAPIters is the Adam iterations of a network's MAP on n rows:
// {map-iters} when given, else the network plan's rule (NetMAPIters).
func netMAPIters(c *Config, n int) int {
	if c.Set["map-iters"] {
		return c.Mlp.MapIters
	}
	return NetMAPIters(n, c.Mlp.MapBatch)
}

// buildEnsemble returns Adam at the MAP's settings: each chain of the run is
// one member. Without {map-lr} the members are MAP networks by the network
// plan's rule (NetMAPSchedule over NetMAPIters), the optimisation of
// the default's MAP network: a long run at a constant rate lets a small data
// set's members interpolate their training rows (yacht split 0: σ² 6·10⁻⁵ of
// var y after 20,000 iterations at 10⁻³, test log-likelihood −5.3).
func buildEnsemble(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c := b.C
	batch := sampler.Minibatch{Size: min(c.Mlp.MapBatch, b.M.Len())}
	if c.Set["map-lr"] {
		b.recordStep(c.Mlp.MapLR)
		return sampler.Adam{Step: schedule.Constant(c.Mlp.MapLR), Batch: batch}, nil
	}
	if !c.Set["iters"] {
		c.Iters = netMAPIters(c, b.M.Len())
		c.Burnin = c.Iters - 1
	}
	sched := NetMAPSchedule(c.Iters)
	b.Sched, b.StepA = sched, sched.At(0)
	return sampler.Adam{Step: sched, Batch: batch}, nil
}
