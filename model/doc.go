// Package model provides Bayesian models for the langevin samplers: normal
// linear regression with its exact Normal–Inverse-Gamma posterior ([Linear],
// [LinearPosterior]), logistic regression ([Logistic]) and toy targets: a
// Gaussian ([Gaussian], [NewGauss2]), a mixture of Gaussians ([Mixture],
// [NewMixture25]) and injected gradient noise ([NoisyGradient]).
//
// Every model implements [langevin.Model]: LogPrior(θ, grad) returns log p(θ)
// and LogLik(θ, batch, grad) returns Σ_{i∈batch} log p(zᵢ|θ), both as
// normalised log densities (all constants kept, so that lp__ in a trace is a
// true log joint density), and both add their gradients into grad. A nil grad
// asks for the value only; a nil batch means all N observations; batch
// indices are 0-based and may repeat. With a non-nil grad the methods do not
// allocate, and no model holds mutable state, so a model may be shared by
// concurrent chains.
//
// # Data
//
// Constructors take an n×p feature matrix X (one observation per row, p input
// features) and n responses y. X is copied into a flat row-major slice; the
// intercept, on by default, is handled explicitly rather than as a column of
// ones. Non-finite values in X or y are errors that name the 1-based row and
// column.
//
// # Parameter order and names
//
// Regression coefficients are ordered as intercept (when present) followed by
// the p feature coefficients in input column order, and named "intercept",
// "beta.1", …, "beta.p". [Linear] appends "log_sigma2". Names are the CmdStan
// CSV column names of a trace.
//
// # Prediction
//
// Prediction methods take feature matrices with the same p columns as the
// training X (no intercept column) and posterior draws as rows whose first
// Dim entries are the parameters in the order above; longer rows, for example
// draws followed by derived quantities, are fine. Shape mismatches are
// programming errors and panic, following gonum.
package model
