# Fixture for loo's Subsample at N = 1e5: loo_subsample (plpd, diff_srs) on
# a logistic regression of 100,000 rows, the sample of 500 rows given. Run
# from this directory:
#   Rscript make_subsample_large.R
# The design is a formula both languages evaluate (no random numbers):
#   x1ᵢ = sin(0.7 i), x2ᵢ = 1.5 cos(1.3 i), uᵢ = frac(i·0.6180339887498949),
#   yᵢ = 1(uᵢ < plogis(0.3 + x1ᵢ − 0.8 x2ᵢ)), i = 1…N;
# the draws (4 chains of 250, AR(1) around the Laplace approximation, so
# r_eff < 1) are written out; the Go test recomputes the log-likelihoods.
suppressMessages(library(loo))
stopifnot(packageVersion("loo") == "2.5.1")
set.seed(20261128)
N <- 100000; i <- seq_len(N)
x1 <- sin(0.7 * i); x2 <- 1.5 * cos(1.3 * i)
u <- (i * 0.6180339887498949) %% 1
y <- as.numeric(u < plogis(0.3 + x1 - 0.8 * x2))
X <- cbind(1, x1, x2)
nll <- function(b) { eta <- drop(X %*% b); -sum(plogis(ifelse(y == 1, eta, -eta), log.p = TRUE)) }
fit <- optim(c(0, 0, 0), nll, method = "BFGS", hessian = TRUE)
L <- t(chol(solve(fit$hessian)))
chains <- 4; n <- 250; rho <- 0.6
th <- do.call(rbind, lapply(seq_len(chains), function(c) {
  out <- matrix(NA, n, 3); z <- drop(L %*% rnorm(3))
  for (t in seq_len(n)) { z <- rho * z + sqrt(1 - rho^2) * drop(L %*% rnorm(3)); out[t, ] <- fit$par + z }
  out
}))
th <- signif(th, 15)
f17 <- function(x) trimws(formatC(x, digits = 17, format = "g"))
write.csv(data.frame(b0 = f17(th[, 1]), b1 = f17(th[, 2]), b2 = f17(th[, 3])),
          "subsample_large_draws.csv", row.names = FALSE, quote = FALSE)
con <- gzfile("subsample_large_y.txt.gz", "w"); writeLines(paste(y, collapse = ""), con); close(con)
dat <- data.frame(x1 = x1, x2 = x2, y = y)
llfun <- function(data_i, draws) {
  eta <- draws %*% c(1, data_i$x1, data_i$x2)
  plogis(if (data_i$y == 1) eta else -eta, log.p = TRUE)
}
m <- 500
obs <- sort(sample(N, m))
chain_id <- rep(seq_len(chains), each = n)
# r_eff of the sampled rows (the others are not used)
r_eff <- rep(1, N)
ll_obs <- sapply(obs, function(k) llfun(dat[k, ], th))
r_eff[obs] <- relative_eff(exp(ll_obs), chain_id = chain_id)
ss <- suppressMessages(loo_subsample(llfun, data = dat, draws = th, observations = obs, r_eff = r_eff))
write.csv(data.frame(idx = ss$pointwise[, "idx"]), "subsample_large_idx.csv", row.names = FALSE, quote = FALSE)
e <- ss$estimates
sm <- c(elpd_loo = e["elpd_loo", "Estimate"], se_elpd_loo = e["elpd_loo", "SE"],
        subsampling_se_elpd_loo = e["elpd_loo", "subsampling SE"],
        p_loo = e["p_loo", "Estimate"], se_p_loo = e["p_loo", "SE"],
        subsampling_se_p_loo = e["p_loo", "subsampling SE"],
        looic = e["looic", "Estimate"], se_looic = e["looic", "SE"])
write.csv(data.frame(name = names(sm), value = f17(sm)), "subsample_large_estimates.csv",
          row.names = FALSE, quote = FALSE)
print(ss)
