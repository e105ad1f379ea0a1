package langevin

import (
	"math/rand/v2"
)

// Sampler holds a sampling or optimisation algorithm's settings. It is
// immutable: all per-chain state lives in the Chain it starts, so one Sampler
// can start any number of chains concurrently.
type Sampler interface {
	// NewChain starts a chain of m at theta0 (copied) with the chain's own
	// random stream. It validates the settings against the model.
	NewChain(m Model, theta0 []float64, rng *rand.Rand) (Chain, error)
	// StatNames names the per-draw statistics the chains report, in CmdStan
	// style: the first is "lp__", and names end in "__" (for example
	// "accept_stat__", "stepsize__").
	StatNames() []string
}

// Chain is one Markov chain (or optimisation trajectory): it owns its position,
// buffers and random stream. Step must not allocate.
type Chain interface {
	// Step advances the chain by one iteration.
	Step() error
	// Position returns the current θ. The slice is owned by the chain and
	// changes with the next Step; callers copy what they keep.
	Position() []float64
	// Stats writes the statistics of the last step into dst, in the order of
	// the sampler's StatNames.
	Stats(dst []float64)
}

// WarmupEnder is implemented by chains that adapt during burn-in (step-size
// or metric tuning). Run calls EndWarmup once, after the last burn-in step.
type WarmupEnder interface {
	EndWarmup()
}

// BurnInSetter is implemented by samplers whose warm-up adaptation needs its
// length in advance (the exact samplers' windowed metric schedule). Run
// samples with s.WithBurnIn(Options.BurnIn), which returns a copy whose unset
// (zero) warm-up length is the burn-in, so the two need not be set twice;
// a warm-up length set explicitly is kept.
type BurnInSetter interface {
	WithBurnIn(burnIn int) Sampler
}

// ChainRNG returns the random stream of chain number chain (0-based) of a run
// with the given seed: a PCG generator seeded with (seed, chain+1). Streams of
// different chains are independent of each other and of the worker count.
func ChainRNG(seed uint64, chain int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(chain)+1))
}
