# Stan NUTS on the standardised Australian training split (4 chains,
# 1000 warm-up + 1000 draws, Stan's defaults), one core per chain in turn
# (cores = 1, as langevin's 2-worker run shares the same 2 cores):
#   go run bench/stan/export.go && STAN_CORES=1 Rscript bench/stan/run.R
# (Debian's r-cran-bh has no include/ directory: point R_LIBS_USER at a copy
# of BH with include/boost -> /usr/include/boost if rstan says "Boost not found")
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)  # caches bench/stan/logistic.rds
d <- read.csv("bench/stan/australian_train.csv")
X <- as.matrix(d[, -1])
sd <- list(N = nrow(X), P = ncol(X), X = X, y = as.integer(d$y))
t0 <- Sys.time()
mod <- stan_model("bench/stan/logistic.stan")
cat(sprintf("compile: %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))
cores <- as.integer(Sys.getenv("STAN_CORES", "2"))
fit <- sampling(mod, data = sd, chains = 4, iter = 2000, warmup = 1000, seed = 1,
                cores = cores, refresh = 0)
el <- get_elapsed_time(fit)
print(el)
arr <- as.array(fit)
pars <- dimnames(arr)[[3]]
pars <- pars[pars != "lp__"]
ess <- sapply(pars, function(p) posterior::ess_bulk(arr[, , p]))
sampling <- sum(el[, "sample"])
wall <- max(el[, "sample"])
sp <- get_sampler_params(fit, inc_warmup = FALSE)
cat(sprintf("mean accept_stat per chain: %s\n", paste(sprintf("%.3f", sapply(sp, function(x) mean(x[, "accept_stat__"]))), collapse = " ")))
cat(sprintf("stepsize per chain: %s\n", paste(sprintf("%.3f", sapply(sp, function(x) x[1, "stepsize__"])), collapse = " ")))
cat(sprintf("mean n_leapfrog: %.2f, divergences: %d\n", mean(sapply(sp, function(x) mean(x[, "n_leapfrog__"]))), sum(sapply(sp, function(x) sum(x[, "divergent__"])))))
cat(sprintf("sampling time: %.3f s summed over chains (%d cores)\n", sampling, cores))
cat(sprintf("min bulk-ESS %.0f, median %.0f\n", min(ess), median(ess)))
cat(sprintf("min bulk-ESS per second of sampling (summed chain time): %.0f\n", min(ess) / sampling))
s <- summary(fit)$summary
print(round(s[, c("mean", "sd")], 4))
