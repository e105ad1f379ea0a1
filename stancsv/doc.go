// Package stancsv writes and reads MCMC output in the CmdStan CSV format
// ("Stan CSV"), the interchange format read by ArviZ's from_cmdstan, R's
// cmdstanr::read_cmdstan_csv and rstan::read_stan_csv.
//
// A Stan CSV file of the sample method is laid out as
//
//	# key = value comment lines with the run configuration
//	lp__,accept_stat__,...,theta.1,theta.2   (header of column names)
//	warm-up draws, one row each               (only when save_warmup = 1)
//	# Adaptation terminated                   (adaptation block)
//	# Step size = 0.8
//	# Diagonal elements of inverse mass matrix:
//	# 1, 1.2
//	sampling draws, one row each
//	# timing block ("Elapsed Time: ... seconds (Warm-up)" ...)
//
// Columns whose names end in "__" hold sampler diagnostics; the others hold
// the model's parameters, with the elements of containers named with
// 1-based, period-separated indices such as theta.1 or sigma.2.3.
//
// Numbers are written in the shortest form that reads back to the same
// float64 (strconv's 'g' format with precision -1) unless Config.SigFigs asks
// for fewer digits, so a file re-read by Read gives bit-identical draws.
// NaN and ±Inf are written as nan, inf and -inf, as CmdStan does.
package stancsv
