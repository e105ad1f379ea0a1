// Package formula builds Bayesian regression models from lme4/brms model
// formulas and a table of data:
//
//	f, _ := formula.Parse("y ~ x + (1 + x | g)")
//	m, _ := formula.New(f, frame, formula.Options{Family: "bernoulli"})
//
// The language (Parse) is the subset of R's model formulas that users of
// lme4, brms, rstanarm and bambi write daily: an intercept (1, removed with
// 0 or - 1), main effects, interactions (x:z, x*z), categorical predictors
// (text columns, or factor(x); treatment contrasts, R's rule for
// interactions), transformations (log, exp, sqrt, abs, log1p, scale, I(…)
// arithmetic, poly(x, d) orthogonal polynomials as R's poly), offsets
// (offset(log(n))), and group-level terms: varying intercepts and slopes
// (1 + x | g), uncorrelated (1 + x || g), several grouping factors, nested
// (1 | a/b) = (1 | a) + (1 | a:b); and brms's binomial response
// y | trials(n).
//
// The model (New) follows brms: families gaussian, bernoulli (logit),
// probit, poisson, negbinomial, student and binomial; the population-level
// design is centred when the model has an intercept (the intercept's prior
// is on the centred scale; b_Intercept is reported on the original one)
// and, inside the model, every design column is divided by its root mean
// square, so that predictors in natural units sample as well as scaled
// ones — every quantity reported or given a prior is in the data's units
// (Model's doc); group
// effects are non-centred, r_j = diag(sd) L z_j, z_j ~ N(0, I); the default
// priors are brms's — student_t(3, location, scale) on the intercept and
// half student_t(3, 0, scale) on sd and sigma with the location and scale
// from the response on the link scale, flat on b, lkj(1) on correlations,
// gamma(2, 0.1) on the student family's nu > 1, gamma(0.01, 0.01) on the
// negative binomial's shape — each printed with its reason (PriorLines) and
// each overridable (Options.Priors). Draws carry brms's names: b_x,
// sd_g__Intercept, cor_g__Intercept__x, sigma, and r_g.j.k for brms's
// r_g[level,coef] (a comma cannot stand in a CmdStan CSV header; BrmsNames
// and PrintedNames map them).
//
// The formula is parsed once; data errors name the column of the formula
// and the row of the data. ReadCSVFileWith reads a table checking missing
// values only in the formula's columns (Formula.Columns), as an error or
// dropping their rows (MissingDrop), counted per column.
package formula
