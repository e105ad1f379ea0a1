// Package fit is the job that langevin run does, as a library: the rules
// that choose a sampler and its settings for a model (NewPlan: exact NUTS
// where its cost, about 14,000 full-data gradients per chain, is small,
// else SGLD with control variates where they pay, the dense Laplace
// preconditioner, the step from the gradient noise and the curvature, the
// burn-in), the ESS stop (UntilESS) and the kernel Stein discrepancy check
// of the draws against the Laplace approximation (TraceKSD).
//
// Package sampler holds the kernels only; fit composes them with approx
// (the MAP and the Hessian), diag (ESS, R̂, KSD) and the model. Arrows
// point down: fit imports sampler, never the reverse.
//
// Run takes a Method value (nil: the plan): one type per family of
// samplers (Auto, SGMCMC, Exact, Mandt, Approximation, Optimiser), each zero
// field the rule; Methods holds every registered sampler by name.
//
// fit also holds the job of the command langevin run, so that the command
// is flags → values → print: the run's configuration and its rules
// (Config: Resolve, Validate, Spec), the table of samplers (SamplerTable,
// RegisterSampler: one file per family, sampler_*.go, each entry with its
// build rule and flag group), the loading of the data and the model of a
// run (Problem) and its printed account (the where-the-draws-went,
// crossover, test-set and data-scale lines). The run writes its files only
// through a RunWriter value (the command's is the run directory's, in
// package rundir): fit imports no flag, plot, run control, rundir or
// stancsv. Its errors, notes and warnings name a run's settings in braces,
// {iters} (Setting), which the command phrases as its flags (Phrase).
package fit
