# run.R samples one posteriordb posterior with rstan as CmdStan's defaults
# do (4 chains of 1000 warm-up iterations and 1000 draws, uniform(-2, 2)
# initialisation, seed 1), the chains in turn on one core (cores = 1), and
# prints one CSV line:
#
#   sampler,posterior,cpu_s,min_ess_bulk,worst,compile_s
#
# cpu_s is the CPU time (user + system) of sampling(), warm-up included and
# compilation excluded; min_ess_bulk is the least posterior::ess_bulk over
# the parameters named in REF (a reference summary; all the parameters of
# the parameters block when there is none);
# worst names it. The compiled model is cached in CACHE/MODEL.rds
# (rstan_options(auto_write = TRUE)): compile_s is 0 when it was reused.
# With REFOUT (and CHAINS, default 4), it also writes a reference summary
# (mean and sd of every parameter, as testdata/posteriordb.sh does) there.
#
#   Rscript bench/rstan/run.R NAME PROGRAM.stan DATA.json CACHE REF [REFOUT [CHAINS]]
#
# PROGRAM.stan must be in rstan 2.21's syntax (main.go rewrites the array
# declarations of Stan 2.26 and later).
#
# bench/rstan/main.go runs it side by side with langevin.
# Debian's r-cran-bh ships no include/ directory (its headers are
# libboost-dev's): rstan then says "Boost not found". Use a copy of BH whose
# include/boost points at /usr/include/boost, in LANGEVIN_RSTAN_LIB.
if (system.file("include", "boost", package = "BH") == "" && dir.exists("/usr/include/boost")) {
  lib <- Sys.getenv("LANGEVIN_RSTAN_LIB", file.path(tempdir(), "lib"))
  if (!dir.exists(file.path(lib, "BH", "include", "boost"))) {
    dir.create(lib, showWarnings = FALSE, recursive = TRUE)
    file.copy(system.file(package = "BH"), lib, recursive = TRUE)
    dir.create(file.path(lib, "BH", "include"), showWarnings = FALSE)
    file.symlink("/usr/include/boost", file.path(lib, "BH", "include", "boost"))
  }
  .libPaths(c(lib, .libPaths()))
}
suppressMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
rstan_options(auto_write = TRUE)
a <- commandArgs(trailingOnly = TRUE)
name <- a[1]; prog <- a[2]; datafile <- a[3]; cache <- a[4]; ref <- a[5]
refout <- if (length(a) >= 6) a[6] else ""
chains <- if (length(a) >= 7) as.integer(a[7]) else 4L
dir.create(cache, showWarnings = FALSE, recursive = TRUE)
cached <- file.path(cache, basename(prog))
src <- readLines(prog)
if (!file.exists(cached) || !identical(readLines(cached), src)) writeLines(src, cached)
cpu <- function() { p <- proc.time(); sum(p[c(1, 2, 4, 5)], na.rm = TRUE) }
t0 <- cpu()
mod <- stan_model(cached)
compile <- cpu() - t0
data <- jsonlite::fromJSON(datafile)  # CmdStan's JSON: nested arrays become R arrays
t0 <- cpu()
fit <- suppressWarnings(sampling(mod, data = data, chains = chains, iter = 2000, warmup = 1000,
                                 seed = 1, cores = 1, refresh = 0, init = "random"))
used <- cpu() - t0
arr <- as.array(fit)
all <- dimnames(arr)[[3]]
# CmdStan's names (theta.1, Omega.2.1) as rstan writes them (theta[1], Omega[2,1])
refnames <- function(f) {
  if (!file.exists(f)) return(NULL)
  l <- regmatches(readLines(f), regexec('^ +"([^"]+)": \\[', readLines(f)))
  k <- unlist(lapply(l, function(m) if (length(m) == 2) m[2]))
  ifelse(grepl(".", k, fixed = TRUE),
         paste0(sub("\\..*", "", k), "[", gsub(".", ",", sub("^[^.]*\\.", "", k), fixed = TRUE), "]"), k)
}
pars <- refnames(ref)
if (is.null(pars)) {
  blocks <- names(fit@inits[[1]])
  pars <- all[sub("\\[.*", "", all) %in% blocks]
}
missing <- setdiff(pars, all)
if (length(missing) > 0) stop(name, ": not in rstan's draws: ", paste(missing, collapse = " "))
ess <- sapply(pars, function(p) ess_bulk(arr[, , p]))
w <- which.min(ess)
cat(sprintf("rstan,%s,%.2f,%.1f,%s,%.1f\n", name, used, ess[w],
            gsub(",", ".", sub("\\]", "", sub("\\[", ".", names(ess)[w]))), compile))
if (refout != "") {
  blocks <- names(fit@inits[[1]])
  keep <- all[sub("\\[.*", "", all) %in% blocks]
  lines <- sprintf('  "%s": [\n   %.17g,\n   %.17g\n  ]', gsub(",", ".", sub("\\]", "", sub("\\[", ".", keep))),
                   apply(arr[, , keep, drop = FALSE], 3, mean), apply(arr[, , keep, drop = FALSE], 3, sd))
  writeLines(c("{", sprintf(' "chains": %d,', chains), ' "draws": 1000,', ' "summary": {',
               paste(lines, collapse = ",\n"), " }", "}"), refout)
}
