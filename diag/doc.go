// Package diag provides convergence diagnostics for Markov chain Monte Carlo
// output: effective sample sizes, R̂, Monte Carlo standard errors and
// quantiles, and parameter summary tables.
//
// The diagnostics are those of Vehtari, Gelman, Simpson, Carpenter and
// Bürkner (2021), "Rank-normalization, folding, and localization: An
// improved R̂ for assessing convergence of MCMC", Bayesian Analysis 16(2),
// as implemented by the R package posterior (version 1.4.0), which Stan and
// ArviZ also follow. The results agree with posterior's to about 1e-14
// relative; the package tests compare them with values that posterior
// computed for fixture draws in testdata.
//
// # Draws
//
// The draws of one scalar quantity are given as chains [][]float64, one
// slice per chain, all of the same length. Warm-up draws must already be
// removed.
//
// Chains of different lengths — chains that diverged at different
// iterations keep different numbers of draws — are cut to the shortest: every
// function uses the first n draws of each chain, n the shortest length, and
// Summarize records the lengths (Summary.ChainLengths) so that Table.Format
// prints a warning. The diagnostics are defined on an iterations × chains
// array, as posterior's draws_array, whose summarise_draws stops with an
// error on such input (its conversion to a draws_array cannot bind chains of
// different lengths); we truncate instead, with the warning, so that the
// draws a diverged run keeps can still be summarised. No function panics on
// ragged chains.
//
// Most diagnostics split every chain into its first and second half (the
// middle draw of an odd-length chain is dropped) so that trends within a
// chain show up as disagreement between chains. Rank normalization replaces
// each draw by Φ⁻¹((r - 3/8)/(S + 1/4)), r its average rank among all S
// draws, which makes ESSBulk and RHat well defined for heavy tails and
// invariant under monotone transformations. Folding replaces x by
// |x - median(x)|, for diagnosing the scale and tails.
//
//   - ESSBulk: ESS of the rank-normalized split chains.
//   - ESSTail: minimum of the ESS of the indicators I(x ≤ q̂₀.₀₅) and
//     I(x ≤ q̂₀.₉₅).
//   - ESSBasic, ESSMean: ESS of the split chains (for the mean).
//   - RHat: maximum of the split R̂ of the rank-normalized draws and of the
//     rank-normalized folded draws.
//   - RHatBasic: classic split R̂.
//   - MCSEMean: sd/√ESSMean.
//   - MCSEQuantile: Monte Carlo standard error of a quantile.
//   - Quantile: type 7 (R's default) quantile of all draws pooled.
//   - Autocorrelation: FFT-based autocorrelation of one series.
//   - Summarize: a Table of Summary rows, printed like posterior's
//     summarise_draws or written as CSV.
//
// As a rule of thumb, R̂ below 1.01 and bulk and tail ESS above 100 per
// chain indicate that the estimates are reliable.
//
// # Missing values
//
// Where posterior returns NA this package returns NaN; Table prints it as
// NA. In detail:
//
//   - A NaN draw makes every diagnostic and quantile NaN.
//   - Infinite draws make ESSTail, ESSBasic, ESSMean, RHatBasic,
//     MCSEMean and MCSEQuantile NaN. ESSBulk and RHat only use ranks and
//     stay finite (RHat is NaN if the median is infinite). Quantile may be
//     infinite, or NaN where it interpolates between -Inf and +Inf.
//   - If all draws are equal (max - min < 2⁻⁵², an absolute tolerance),
//     every ESS, R̂ and MCSE is NaN, as in posterior; Quantile is the value.
//     The same holds whenever the relevant (split, transformed) draws are
//     constant, for example the 5% indicator of a discrete quantity whose
//     5% quantile is its minimum.
//   - Chains that are each constant but differ from each other have a zero
//     within-chain variance: R̂ is +Inf or, as in posterior, a huge value
//     left by rounding.
//   - ESS needs at least three draws per split chain (six per chain) and is
//     NaN below. With three to five draws per split chain posterior does not
//     sum autocorrelations and ESS is half the number of draws used. With
//     two or three draws per chain posterior 1.4.0 splits the draws
//     incorrectly (a dropped matrix dimension makes it compare the first
//     draws of all chains with their last draws); this is reproduced.
//   - R̂ needs two draws per split chain and at least two split chains.
//   - No chains, or chains without draws, give NaN.
package diag
