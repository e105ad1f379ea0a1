// Package langevin is the core vocabulary of a library for scalable Bayesian
// learning with stochastic-gradient Markov chain Monte Carlo: models, samplers,
// chains, runs and traces. It imports no concrete model or sampler; those live in
// the sibling packages model, sampler and schedule.
//
// # Target
//
// A Model defines the unnormalised log posterior of parameters θ ∈ ℝᵈ given N
// observations z₁…z_N,
//
//	log p(θ | D) = log p(θ) + Σᵢ log p(zᵢ | θ) + const.
//
// A chain at temperature τ targets p(θ | D)^(1/τ); τ = 1 is the posterior.
//
// # Step-size convention
//
// Every step size η in this module is the coefficient of the gradient in
//
//	θ ← θ + η ĝ(θ) + √(2ητ) ξ,  ξ ~ N(0, I),
//	ĝ(θ) = ∇log p(θ) + (N/|B|) Σ_{i∈B} ∇log p(zᵢ | θ),
//
// (the lecture notes' Algorithm 19). Welling & Teh (2011) write the same update as
// θ ← θ + (ε/2) ĝ + N(0, ε), so their ε is 2η. The minibatch scale N/|B| is applied
// in exactly one place, Estimator.
//
// # Reproducibility
//
// Run derives one random stream per chain from a single seed (ChainRNG), so the
// same seed gives the same draws bit for bit whatever the number of workers.
package langevin
