# gen.R regenerates the fixtures used by the diag package tests.
#
# The draws are generated deterministically (set.seed) and written with
# %.17g so that R and Go read bit-identical numbers; the expected values are
# then computed by the R package posterior on the draws read back from disk.
# R is needed only to regenerate the fixtures, never to run the Go tests.
#
# Usage (Debian: apt-get install --no-install-recommends r-cran-posterior):
#
#   cd diag/testdata && Rscript gen.R
#
# The committed fixtures were made with R 4.2.2 and posterior 1.4.0.
suppressPackageStartupMessages(library(posterior))

ar1 <- function(n, phi, mu = 0, sigma = 1) {
  x <- numeric(n)
  x[1] <- rnorm(1, 0, sigma / sqrt(1 - phi^2))
  for (i in seq_len(n)[-1]) x[i] <- phi * x[i - 1] + rnorm(1, 0, sigma)
  mu + x
}
ar1_chains <- function(n, phis, mus = rep(0, length(phis))) {
  sapply(seq_along(phis), function(j) ar1(n, phis[j], mus[j]))
}

set.seed(20240601)
cases <- list()
cases$ar1_phi09 <- ar1_chains(1000, rep(0.9, 4))
cases$ar1_mixed_phi <- ar1_chains(1000, c(0.3, 0.6, 0.9, 0.97), c(0, 0.1, -0.1, 0.2))
cases$student_t_df1_5 <- matrix(rt(4 * 1000, df = 1.5), 1000, 4)
cases$cauchy <- matrix(rcauchy(4 * 1000), 1000, 4)
cases$student_t_df2_ar <- sapply(1:4, function(j) {
  # autocorrelated heavy tails: t(2) innovations in an AR(1)
  x <- numeric(1000); x[1] <- rt(1, 2)
  for (i in 2:1000) x[i] <- 0.7 * x[i - 1] + rt(1, 2)
  x
})
cases$constant <- matrix(0.1, 100, 4)
cases$constant_per_chain <- matrix(rep(c(0.1, 0.2, 0.3, 0.4), each = 50), 50, 4)
cases$bad_mixing <- ar1_chains(1000, rep(0.9, 4), c(0, 0, 3, 3))
cases$bad_mixing_scale <- sapply(c(1, 1, 1, 5), function(s) rnorm(1000, 0, s))
cases$odd_501 <- ar1_chains(501, rep(0.8, 4))
cases$single_chain <- ar1_chains(1000, 0.9)
cases$single_chain_odd <- ar1_chains(333, 0.5)
cases$short_4x10 <- ar1_chains(10, rep(0.5, 4))
cases$short_4x2 <- matrix(rnorm(8), 2, 4)
cases$short_4x3 <- matrix(rnorm(12), 3, 4)
cases$short_4x4 <- matrix(rnorm(16), 4, 4)
cases$short_4x5 <- matrix(rnorm(20), 5, 4)
cases$short_4x6 <- matrix(rnorm(24), 6, 4)
cases$short_4x7 <- matrix(rnorm(28), 7, 4)
cases$short_1x6 <- matrix(rnorm(6), 6, 1)
cases$short_1x1 <- matrix(rnorm(1), 1, 1)
cases$short_3x1 <- matrix(rnorm(3), 1, 3)
cases$antithetic <- ar1_chains(1000, rep(-0.7, 4))
cases$iid_normal_8x250 <- matrix(rnorm(8 * 250), 250, 8)
cases$poisson_ties <- matrix(rpois(4 * 200, 3), 200, 4)
cases$binary <- matrix(rbinom(4 * 300, 1, 0.2), 300, 4)
cases$big_offset <- ar1_chains(1000, rep(0.5, 4), rep(1e6, 4))
cases$tiny_scale <- matrix(1e-20 * rnorm(400), 100, 4)
x <- matrix(rnorm(4 * 200), 200, 4); x[c(5, 333, 700)] <- Inf; x[20] <- -Inf
cases$with_inf <- x
x <- matrix(rnorm(4 * 200), 200, 4); x[77] <- NaN
cases$with_nan <- x
x <- matrix(rnorm(4 * 200), 200, 4); x[c(3, 500)] <- Inf; x[c(4, 501)] <- -Inf
cases$with_pm_inf <- x

dir.create("draws", showWarnings = FALSE)
fmt <- function(v) ifelse(is.na(v) & !is.nan(v), "NA", sprintf("%.17g", v))

na_safe <- function(f) function(x) tryCatch(suppressWarnings(f(x)), error = function(e) NA_real_)
measures <- list(
  mean = function(x) mean(x),
  sd = function(x) sd(x),
  mcse_mean = function(x) mcse_mean(x),
  q5 = function(x) unname(quantile2(x, 0.05)),
  q50 = function(x) unname(quantile2(x, 0.5)),
  q95 = function(x) unname(quantile2(x, 0.95)),
  ess_bulk = function(x) ess_bulk(x),
  ess_tail = function(x) ess_tail(x),
  ess_basic = function(x) ess_basic(x),
  ess_mean = function(x) ess_mean(x),
  rhat = function(x) rhat(x),
  rhat_basic = function(x) rhat_basic(x),
  mcse_q5 = function(x) unname(mcse_quantile(x, 0.05)),
  mcse_q50 = function(x) unname(mcse_quantile(x, 0.5)),
  mcse_q95 = function(x) unname(mcse_quantile(x, 0.95)),
  mcse_q100 = function(x) unname(mcse_quantile(x, 1)),
  q0 = function(x) unname(quantile2(x, 0)),
  q100 = function(x) unname(quantile2(x, 1)),
  q33 = function(x) unname(quantile2(x, 1/3))
)

rows <- character()
for (name in names(cases)) {
  x <- cases[[name]]
  file <- file.path("draws", paste0(name, ".csv"))
  lines <- c(paste0("chain_", seq_len(ncol(x)), collapse = ","),
             apply(x, 1, function(r) paste(fmt(r), collapse = ",")))
  writeLines(lines, file)
  # Read back so that the expected values are computed on exactly the
  # numbers the Go test reads.
  y <- as.matrix(read.csv(file, colClasses = "numeric"))
  dimnames(y) <- NULL
  stopifnot(identical(dim(x), dim(y)), isTRUE(all.equal(x, y, tolerance = 0)))
  vals <- vapply(measures, function(f) na_safe(f)(y), numeric(1))
  rows <- c(rows, paste(c(name, fmt(vals)), collapse = ","))
}
writeLines(c(paste(c("case", names(measures)), collapse = ","), rows), "expected.csv")

# Autocorrelation of the first chain of some cases.
acf_rows <- character()
for (name in c("ar1_phi09", "antithetic", "odd_501", "short_4x10", "constant")) {
  ac <- suppressWarnings(posterior:::autocorrelation(cases[[name]][, 1]))
  acf_rows <- c(acf_rows, paste(c(name, fmt(ac)), collapse = ","))
}
writeLines(acf_rows, "acf.csv")

# Standard normal quantiles as computed by R's qnorm, for the internal
# inverse-CDF implementation.
p <- c(1e-300, 1e-100, 1e-20, 1e-12, 1.3e-11, 1e-8, 1e-5, 0.001, 0.01, 0.05, 0.074,
       0.075, 0.076, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.924, 0.925, 0.926,
       0.95, 0.99, 0.999, 1 - 1e-5, 1 - 1e-8, 1 - 1e-12)
writeLines(paste(fmt(p), fmt(qnorm(p)), sep = ","), "qnorm.csv")
