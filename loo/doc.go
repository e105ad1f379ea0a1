// Package loo estimates out-of-sample predictive accuracy from posterior
// draws by Pareto-smoothed importance-sampling leave-one-out
// cross-validation (PSIS-LOO), compares models by it and weights them by
// stacking.
//
// The methods are those of Vehtari, Gelman and Gabry (2017), "Practical
// Bayesian model evaluation using leave-one-out cross-validation and WAIC",
// Statistics and Computing 27; Vehtari, Simpson, Gelman, Yao and Gabry
// (2024), "Pareto smoothed importance sampling", JMLR 25; and Yao, Vehtari,
// Simpson and Gelman (2018), "Using stacking to average Bayesian predictive
// distributions", Bayesian Analysis 13. They are computed as the R package
// loo, version 2.5.1, computes them: on the fixtures in testdata, which loo
// computed (testdata/make_fixtures.R), every number of LOO and Compare
// agrees with loo's to about 1e-12 relative and PIT with rstantools'
// loo_pit to 1e-14; Stacking maximises loo's objective where loo's
// optimiser stops close to the maximum (weights within 5e-5, or 4e-4 where
// a weight of the maximum is 0), and PseudoBMAPlus draws its bootstrap from
// Go's generator, so that it agrees with loo in distribution; Subsample
// agrees with loo_subsample to about 1e-13.
//
// # Input
//
// The input is the pointwise log-likelihood log p(yᵢ|θₛ) of N rows under S
// posterior draws, given a block of rows at a time (Blocks): each block is a
// rows × S matrix whose row i holds the S draws of one observation, the
// draws ordered chain after chain, every chain of the same length. Nothing
// needs the whole S × N matrix at once; the memory is that of one block and
// of the N pointwise results.
//
// # Outputs
//
// For each row, PSIS smooths the importance ratios rₛ = 1/p(yᵢ|θₛ) and
// returns the leave-one-out predictive density
//
//	elpdᵢ = log Σₛ wₛ p(yᵢ|θₛ) / Σₛ wₛ,
//
// the effective number of parameters p_looᵢ = lpdᵢ − elpdᵢ with
// lpdᵢ = log (1/S) Σₛ p(yᵢ|θₛ), and the Pareto shape k̂ᵢ of the ratios'
// tail. The sums over rows, their standard errors √N·sd, looic = −2·elpd_loo
// and the counts of k̂ in loo's bands make a Result.
//
// k̂ says whether the estimate of a row can be trusted: below 0.5 (good) and
// up to 0.7 (ok) the importance-sampling estimate has finite variance and
// converges at a useful rate; above 0.7 (bad) the variance is so large that
// the estimate is unreliable, and above 1 (very bad) the mean of the ratios
// need not exist. KThreshold gives the sample-size-dependent threshold
// min(1 − 1/log₁₀ S, 0.7) of Vehtari et al. (2024), which is 0.7 from
// S = 2154 draws on.
package loo
