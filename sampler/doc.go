// Package sampler holds optimisers and samplers that run on a langevin.Model:
// gradient descent (GD, SGD) for the MAP and the stochastic-gradient MCMC
// family: Langevin dynamics (SGLD), preconditioned SGLD (PSGLD), Hamiltonian
// Monte Carlo with friction (SGHMC), their cyclical variants (CSGLD, CSGHMC),
// control-variate gradients (Minibatch.CV) and tempering (TemperatureStart).
//
// All of them use langevin's step-size convention: the update of θ is
//
//	θ ← θ + η ĝ(θ) [+ √(2ητ) ξ for Langevin samplers],
//
// with ĝ the minibatch estimate of ∇log p(θ|D) (langevin.Estimator). Welling &
// Teh's ε is 2η. Settings types (SGD, SGLD) are immutable values; NewChain
// returns a chain that owns its buffers and random stream and whose Step does
// not allocate.
package sampler
