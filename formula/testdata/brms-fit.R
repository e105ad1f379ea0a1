# Rscript brms-fit.R NAME FAMILY FORMULA: fits NAME.csv (written by
# LANGEVIN_FORMULA_SIM=DIR go test ./formula -run WriteSim) with brms and
# writes the posterior summary the side-by-side test reads (brms-NAME.csv).
suppressMessages(library(brms))
options(mc.cores = 2)
args <- commandArgs(trailingOnly = TRUE)
name <- args[1]; fam <- args[2]; form <- args[3]
d <- read.csv(paste0("/tmp/formula/", name, ".csv"))
f <- as.formula(form)
family <- switch(fam, bernoulli = bernoulli(), poisson = poisson(), gaussian = gaussian())
print(get_prior(f, data = d, family = family))
t0 <- proc.time()
fit <- brm(f, data = d, family = family, chains = 4, iter = 3000, warmup = 1000, seed = 1, refresh = 0, backend = "rstan")
print(proc.time() - t0)
dr <- as_draws_df(fit)
keep <- grep("^(b_|sd_|cor_|sigma$|r_)", names(dr), value = TRUE)
m <- sapply(keep, function(k) mean(dr[[k]])); s <- sapply(keep, function(k) sd(dr[[k]]))
rh <- sapply(keep, function(k) posterior::rhat(posterior::extract_variable_matrix(dr, k)))
ess <- sapply(keep, function(k) posterior::ess_bulk(posterior::extract_variable_matrix(dr, k)))
out <- data.frame(name = keep, mean = m, sd = s, rhat = rh, ess_bulk = ess)
write.csv(out, paste0("/tmp/formula/brms/", name, ".csv"), row.names = FALSE, quote = TRUE)
cat("max rhat", max(rh), "min ess", min(ess), "\n")
