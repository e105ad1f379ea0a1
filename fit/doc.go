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
package fit
