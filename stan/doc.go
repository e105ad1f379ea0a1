// Package stan reads a Stan program and its data and makes them a
// langevin.Model: parse (Parse), read the data in CmdStan's JSON format
// (ParseData), check and build (New). The model's log density is Stan's
// target, differentiated by package ad, so every sampler of package
// sampler — NUTS, the exact reference, first — runs on it.
//
// Stan's semantics are the reference. The parameters are constrained as the
// Stan Reference Manual's "Constraint transforms" say, with the log
// Jacobians in the target: bounds (lower, upper or both, given by any
// expression, parameters included), offset and multiplier, simplex,
// ordered, positive_ordered and cholesky_factor_corr (package transform).
// A statement y ~ dist(θ) adds the log density without the terms that depend
// on constants only, target += dist_lpdf(y | θ) adds all of it: the same
// posterior, and lp__ as CmdStan reports it. The draws carry the
// parameters, transformed parameters and generated quantities under
// CmdStan's names (theta.1, Omega.2.1) in CmdStan's column-major order,
// after the unconstrained θ (named theta__free.1, …).
//
// # What is supported
//
// Blocks functions (user-defined functions and densities, recursion
// included; not _lp or _rng functions), data, transformed data,
// parameters, transformed parameters, model and generated quantities
// (with the _rng functions of normal, student_t, cauchy, exponential,
// gamma, inv_gamma, lognormal, beta, uniform, bernoulli(_logit),
// binomial(_logit) and poisson(_log), seeded from a hash of the draw's θ: a
// draw's generated quantities are a function of the draw, reproducible
// whatever chain or worker computes them; a block with another _rng is
// left out, with a note); declarations of int,
// real, vector, row_vector, matrix and the constrained types above, arrays
// in both syntaxes (real x[N], array[N] real x), local variables; the
// statements ~, target +=, assignment (=, +=, -=, *=, /=, .*=, ./=) with
// single, range and multiple indexing, for (over a range or a container),
// while, if/else, break, continue, blocks, print (ignored) and reject;
// expressions with Stan's operators and precedence, indexing, the
// conditional operator, array {…} and row vector […] literals, and
// the functions and distributions listed in funcs.go and dists.go
// (normal, student_t, cauchy, exponential, gamma, inv_gamma, lognormal,
// beta, uniform, double_exponential, logistic, weibull, bernoulli(_logit),
// binomial(_logit), poisson(_log), neg_binomial_2(_log), multi_normal (with
// a constant covariance), multi_normal_cholesky, lkj_corr_cholesky,
// dirichlet, categorical(_logit), and the GLMs bernoulli_logit_glm, poisson_log_glm,
// normal_id_glm, neg_binomial_2_log_glm), as _lpdf/_lpmf/_lupdf/_lupmf calls
// too, gp_exp_quad_cov and cholesky_decompose, and the _lcdf and _lccdf of
// data of normal, student_t, cauchy, exponential and gamma.
//
// Refused with the file, line, column and the construct's name: truncation
// T[,], cumulative distribution functions of parameters, user-defined _lp
// and _rng functions, functions passed as arguments (ODE solvers), parameters of type
// unit_vector, cov_matrix, corr_matrix or cholesky_factor_cov, #include,
// complex numbers and tuples, and any function or distribution not in the
// lists.
//
// Hostile input is an error, not a crash: nesting deeper than 200 levels, a
// variable or container of more than 2²⁸ values (a huge size in the data),
// a non-ASCII identifier, and a program that rejects θ = 0 and 100
// uniform(−2, 2) points (CmdStan's initialisation) are refused with the
// file, line and column. Model.Interrupt makes a loop that does not end
// reject at its next iteration (the command calls it at a signal and
// shortly after --max-time); a panic of the evaluator itself while
// sampling gives log density −∞ and is kept by Model.Fault.
//
// # How it runs
//
// The program is interpreted on package ad's tape: each evaluation walks
// the syntax tree once, recording vector operations (a vectorised
// statement is one node, a loop a node per scalar operation), and the
// backward pass gives the gradient. Scalar code (a loop over
// observations) costs about 0.5 µs per operation, several times Stan's
// compiled C++; vectorised statements cost what the vector operations do.
// The interpreter's buffers live with
// the tape (ad.Tape.SetScratch), so concurrent chains share one Model and an
// evaluation allocates nothing after the first. Under New the whole target
// is in LogPrior (Len is 0).
//
// # Minibatches
//
// NewRows(prog, data, "N") splits the target of a program whose likelihood
// is a sum over rows: every data or transformed data variable whose first
// dimension is written N is a row column; the model block's statements that
// read no row column are LogPrior (with the log Jacobians), those that read
// the rows one by one — vectorised statements whose row columns enter
// element by element, sums of them added to the target, loops
// for (n in 1:N) whose body reads row n only — are LogLik(θ, B), evaluated
// on the rows B gathered into columns of |B| rows, so that a sampler's
// (N/|B|) Σ_{i∈B} ℓᵢ(θ) is unbiased for the likelihood. Any other statement
// that reads a row column is refused with its file, line and column (see
// rows.go for the rule). ReadData streams CmdStan JSON into flat arrays, 8
// bytes a number.
package stan
