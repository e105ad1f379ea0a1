package sampler

import "math/rand/v2"

// Conditional is a block of a model's parameters whose law given the other
// parameters and the data is known and drawn exactly: a Gibbs block that a
// stochastic-gradient chain composes with its steps ([SGHMC]'s Gibbs
// field). model.OutputConditional, the output layer of a homoscedastic
// Gaussian network, is one.
type Conditional interface {
	// Draw overwrites the block's entries of theta with a draw from their
	// conditional law given the others at temperature tau (the target
	// p(θ|D)^{1/τ}; tau = 0: the conditional mode), with rng's normals. It
	// allocates nothing; on an error theta is unchanged.
	Draw(theta []float64, tau float64, rng *rand.Rand) error
}
