# Fixtures for package loo: log-likelihood matrices and what R's loo 2.5.1
# computes from them. Run from this directory:
#   Rscript make_fixtures.R
# Needs the R packages loo (2.5.1) and rstantools (2.2.0, for loo_pit).
# Every matrix is written rounded to 7 significant digits and read back
# before loo sees it, so that R and Go start from the same numbers.
suppressMessages({library(loo); library(rstantools)})
stopifnot(packageVersion("loo") == "2.5.1")
set.seed(20261128)
chains <- 4; n_keep <- 100; n_warm <- 400

# Random-walk Metropolis with the Laplace covariance at the mode found from
# init, scaled by 2.4/sqrt(d): draws are autocorrelated, r_eff < 1.
rwm <- function(lp, init) {
  fit <- optim(init, function(p) -lp(p), method = "BFGS", hessian = TRUE)
  d <- length(init)
  L <- t(chol(solve(fit$hessian))) * 2.4 / sqrt(d)
  th <- fit$par; cur <- lp(th)
  out <- matrix(NA, n_keep, d)
  for (it in seq_len(n_warm + n_keep)) {
    prop <- th + drop(L %*% rnorm(d))
    lpp <- lp(prop)
    if (log(runif(1)) < lpp - cur) { th <- prop; cur <- lpp }
    if (it > n_warm) out[it - n_warm, ] <- th
  }
  out
}
run <- function(lp, inits) do.call(rbind, lapply(inits, function(i) rwm(lp, i)))

# ll is S x N (loo's layout); written N x S, one observation a line.
write_ll <- function(ll, name) {
  ll <- signif(ll, 7)
  con <- gzfile(paste0(name, ".csv.gz"), "w")
  write.table(t(ll), con, sep = ",", row.names = FALSE, col.names = FALSE)
  close(con)
  as.matrix(read.csv(gzfile(paste0(name, ".csv.gz")), header = FALSE))
}
f17 <- function(x) trimws(formatC(x, digits = 17, format = "g"))
chain_id <- rep(seq_len(chains), each = n_keep)

do_loo <- function(llNS, name) {
  ll <- t(llNS)
  r_eff <- relative_eff(exp(ll), chain_id = chain_id)
  l <- loo(ll, r_eff = r_eff, save_psis = TRUE)
  pw <- cbind(l$pointwise[, c("elpd_loo", "mcse_elpd_loo", "p_loo", "looic",
                              "influence_pareto_k")],
              n_eff = l$diagnostics$n_eff, r_eff = r_eff)
  write.csv(apply(pw, 2, f17), paste0(name, "_pointwise.csv"), row.names = FALSE, quote = FALSE)
  est <- l$estimates
  kt <- pareto_k_table(l)
  sm <- c(elpd_loo = est[1, 1], se_elpd_loo = est[1, 2], p_loo = est[2, 1],
          se_p_loo = est[2, 2], looic = est[3, 1], se_looic = est[3, 2],
          mcse_elpd_loo = mcse_loo(l), count_good = kt[1, 1], count_ok = kt[2, 1],
          count_bad = kt[3, 1], count_very_bad = kt[4, 1])
  write.csv(data.frame(name = names(sm), value = f17(sm)), paste0(name, "_estimates.csv"),
            row.names = FALSE, quote = FALSE)
  capture.output(print(l), file = paste0(name, "_print.txt"))
  l
}

## 1. Linear regression, N = 40: y = 1 + 2 x1 - 1.5 x2 + N(0, 1).
N <- 40
x1 <- rnorm(N); x2 <- rnorm(N)
y <- 1 + 2 * x1 - 1.5 * x2 + rnorm(N)
X <- cbind(1, x1, x2)
lin_lp <- function(X) function(p) {
  b <- p[-length(p)]; ls <- p[length(p)]
  sum(dnorm(y, X %*% b, exp(ls), log = TRUE))
}
lin_ll <- function(X, th) {
  b <- th[, -ncol(th), drop = FALSE]; s <- exp(th[, ncol(th)])
  mu <- b %*% t(X)
  dnorm(matrix(y, nrow(th), N, byrow = TRUE), mu, s, log = TRUE)
}
starts <- function(d) lapply(1:chains, function(i) rnorm(d, 0, 0.5))
th <- run(lin_lp(X), starts(4))
th_lin <- th
ll_lin <- write_ll(lin_ll(X, th), "linear")
# posterior predictive draws for LOO-PIT
yrep <- signif(matrix(rnorm(length(th[, 1]) * N, th[, 1:3] %*% t(X), exp(th[, 4])), ncol = N), 7)
con <- gzfile("linear_yrep.csv.gz", "w")
write.table(t(yrep), con, sep = ",", row.names = FALSE, col.names = FALSE); close(con)
yrep <- t(as.matrix(read.csv(gzfile("linear_yrep.csv.gz"), header = FALSE)))
write.csv(data.frame(y = f17(y)), "linear_y.csv", row.names = FALSE, quote = FALSE)
l_lin <- do_loo(ll_lin, "linear")
pit <- loo_pit(yrep, y, lw = weights(l_lin$psis_object))
write.csv(data.frame(pit = f17(pit)), "linear_pit.csv", row.names = FALSE, quote = FALSE)

# the same model with x1, x2 centred and scaled (an equivalent parametrisation)
Xs <- cbind(1, scale(x1), scale(x2))
th2 <- run(lin_lp(Xs), starts(4))
l_lin2 <- do_loo(write_ll(lin_ll(Xs, th2), "linear_scaled"), "linear_scaled")
# a wrong model: x2 missing
X1 <- cbind(1, x1)
th3 <- run(lin_lp(X1), starts(3))
l_lin1 <- do_loo(write_ll(lin_ll(X1, th3), "linear_nox2"), "linear_nox2")

# an equally good model: an irrelevant predictor x3 added
x3 <- rnorm(N)
X3 <- cbind(X, x3)
th4 <- run(lin_lp(X3), starts(5))
l_lin3 <- do_loo(write_ll(lin_ll(X3, th4), "linear_x3"), "linear_x3")

cmp <- loo_compare(list(full = l_lin, scaled = l_lin2, nox2 = l_lin1, x3 = l_lin3))
write.csv(data.frame(model = rownames(cmp), elpd_diff = f17(cmp[, "elpd_diff"]),
                     se_diff = f17(cmp[, "se_diff"])), "compare.csv", row.names = FALSE, quote = FALSE)
capture.output(print(cmp), file = "compare_print.txt")
lpd <- list(l_lin, l_lin2, l_lin1)
ws <- loo_model_weights(lpd, method = "stacking")
wp <- loo_model_weights(lpd, method = "pseudobma", BB = FALSE)
wbb <- loo_model_weights(lpd, method = "pseudobma")
# stacking of the full and the wrong model alone
ws2 <- loo_model_weights(list(l_lin1, l_lin), method = "stacking")
write.csv(data.frame(stacking = f17(ws), pseudobma = f17(wp), pseudobma_bb = f17(wbb)),
          "weights.csv", row.names = FALSE, quote = FALSE)
write.csv(data.frame(stacking = f17(ws2)), "weights2.csv", row.names = FALSE, quote = FALSE)

## 2. Logistic regression with an outlier, N = 40.
x <- rnorm(N)
z <- rbinom(N, 1, plogis(-0.5 + 1.5 * x))
x[N] <- 4; z[N] <- 0 # far out on the wrong side
log_lp <- function(p) sum(dbinom(z, 1, plogis(p[1] + p[2] * x), log = TRUE)) +
  sum(dnorm(p, 0, 5, log = TRUE))
th <- run(log_lp, starts(2))
eta <- th[, 1] + th[, 2] %*% t(x)
ll <- dbinom(matrix(z, nrow(th), N, byrow = TRUE), 1, plogis(eta), log = TRUE)
l_log <- do_loo(write_ll(ll, "logistic"), "logistic")

## 3. Varying intercepts: 8 groups of 5, Gibbs sampling (mu, tau, sigma flat-ish).
J <- 8; g <- rep(1:J, each = 5)
alpha <- rnorm(J, 0, 1.5)
yv <- alpha[g] + rnorm(N, 0, 1)
gibbs <- function() {
  a <- rnorm(J); mu <- 0; tau <- 1; sig <- 1
  out <- matrix(NA, n_keep, J + 3)
  for (it in seq_len(n_warm + n_keep)) {
    for (j in 1:J) {
      yj <- yv[g == j]; prec <- length(yj) / sig^2 + 1 / tau^2
      a[j] <- rnorm(1, (sum(yj) / sig^2 + mu / tau^2) / prec, sqrt(1 / prec))
    }
    mu <- rnorm(1, mean(a), tau / sqrt(J))
    tau <- sqrt(1 / rgamma(1, 1 + J / 2, 1 + sum((a - mu)^2) / 2))
    sig <- sqrt(1 / rgamma(1, 1 + N / 2, 1 + sum((yv - a[g])^2) / 2))
    if (it > n_warm) out[it - n_warm, ] <- c(a, mu, tau, sig)
  }
  out
}
th <- do.call(rbind, lapply(1:chains, function(i) gibbs()))
ll <- dnorm(matrix(yv, nrow(th), N, byrow = TRUE), th[, g], th[, J + 3], log = TRUE)
l_vi <- do_loo(write_ll(ll, "varying"), "varying")

## 4. Multimodal: y ~ N(a sin(w x), s); chains 1-2 at the global mode,
## chains 3-4 at a local mode of the frequency w.
xm <- runif(N, -3, 3)
ym <- 1.2 * sin(1.5 * xm) + rnorm(N, 0, 0.4)
mm_lp <- function(p) sum(dnorm(ym, p[1] * sin(p[2] * xm), exp(p[3]), log = TRUE))
th <- run(mm_lp, list(c(1, 1.5, -1), c(1.1, 1.45, -0.9), c(0.5, 3.9, 0), c(0.4, 4.1, 0)))
mu <- th[, 1] * sin(th[, 2] %o% xm)
ll <- dnorm(matrix(ym, nrow(th), N, byrow = TRUE), mu, exp(th[, 3]), log = TRUE)
ll_mm <- write_ll(ll, "multimodal")
l_mm <- do_loo(ll_mm, "multimodal")
# stacking of the chains: PSIS-LOO of each chain alone, then stacking
per_chain <- lapply(1:chains, function(c) {
  llc <- t(ll_mm)[chain_id == c, ]
  loo(llc, r_eff = relative_eff(exp(llc), chain_id = rep(1, n_keep)))
})
wc <- loo_model_weights(per_chain, method = "stacking")
write.csv(data.frame(stacking = f17(wc),
                     elpd_loo = f17(sapply(per_chain, function(l) l$estimates[1, 1]))),
          "multimodal_chains.csv", row.names = FALSE, quote = FALSE)
## 5. Subsampled PSIS-LOO of the linear model: 15 of the 40 rows, the
## difference estimator around the point log predictive density at the
## posterior mean (loo_subsample's defaults, plpd and diff_srs).
lin_data <- data.frame(x1 = x1, x2 = x2, y = y)
llfun <- function(data_i, draws) {
  mu <- draws[, 1:3, drop = FALSE] %*% c(1, data_i$x1, data_i$x2)
  signif(dnorm(data_i$y, mu, exp(draws[, 4]), log = TRUE), 7)
}
r_eff_lin <- relative_eff(exp(t(ll_lin)), chain_id = chain_id)
obs <- sort(sample(N, 15))
ss <- suppressMessages(loo_subsample(llfun, data = lin_data, draws = th_lin, observations = obs,
                                     r_eff = r_eff_lin))
approx <- loo:::elpd_loo_approximation(llfun, data = lin_data, draws = th_lin, cores = 1,
                                       loo_approximation = "plpd")
write.csv(data.frame(approx = f17(approx)), "subsample_approx.csv", row.names = FALSE, quote = FALSE)
write.csv(data.frame(idx = ss$pointwise[, "idx"]), "subsample_idx.csv", row.names = FALSE, quote = FALSE)
e <- ss$estimates
sm <- c(elpd_loo = e["elpd_loo", "Estimate"], se_elpd_loo = e["elpd_loo", "SE"],
        subsampling_se_elpd_loo = e["elpd_loo", "subsampling SE"],
        p_loo = e["p_loo", "Estimate"], se_p_loo = e["p_loo", "SE"],
        subsampling_se_p_loo = e["p_loo", "subsampling SE"],
        looic = e["looic", "Estimate"], se_looic = e["looic", "SE"])
write.csv(data.frame(name = names(sm), value = f17(sm)), "subsample_estimates.csv",
          row.names = FALSE, quote = FALSE)
capture.output(print(ss), file = "subsample_print.txt")

## 6. A network: the log-likelihoods of a Bayesian MLP classifier (4 tanh
## units, 60 points of the two moons, 4 chains of MALA from random starts),
## written by `go run ./mlpll` (mlpll/main.go) before this script runs.
l_mlp <- do_loo(as.matrix(read.csv(gzfile("mlp.csv.gz"), header = FALSE)), "mlp")

cat("loo", as.character(packageVersion("loo")), "rstantools", as.character(packageVersion("rstantools")), "\n")
