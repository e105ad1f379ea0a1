// Package ad differentiates user-written log densities automatically, in
// reverse mode over vector operations, and turns them into langevin.Models.
//
// A model is two functions on a Tape: the log prior of the constrained
// parameters and the log likelihood of a minibatch. Parameters come from a
// transform.Layout (Tape.Param constrains a block and books its log
// Jacobian for LogPrior); data enters as constants (Tape.Data, Tape.Rows,
// Matrix); operations are element-wise arithmetic and functions with scalar
// broadcasting, sums, dot and matrix–vector products, indexing by group, the
// log densities of package density, and fused GLM nodes (NormalIDGLM,
// BernoulliLogitGLM, BernoulliProbitGLM, PoissonLogGLM, NegBin2LogGLM) that
// handle a whole regression likelihood in one pass over the design matrix;
// NormalRegression does the normal linear model's full-data pass from
// sufficient statistics in O(p²).
//
// Structured parameters are one node each, not a node per number:
// LinearScan (y_t = a_t y_{t−1} + b_t, an AR(1) path or state recursion) and
// CumSum; Concat; MatMul on matrices of parameters; CholeskyEffects
// (diag(σ)·L·z_j for the J groups of a hierarchical model, non-centred) and
// GroupMatVec (a row's varying intercept and slopes from its group's row);
// MultiNormalCholesky and LKJCorrCholesky. Generated quantities (a latent
// path, group effects) are written once, inside Prior or Lik, with
// Tape.Generate and stored with every draw (Generated, WithGenerated).
//
// # Design
//
// A tape of vector nodes, not source generation (as infergo does with go
// generate) and not operator overloading on scalars: each node holds a whole
// vector (a matrix–vector product, a density summed over n rows), so the
// bookkeeping is per operation, not per number, and the work inside a node
// runs in plain loops and gonum's vector kernels — the same code a hand
// gradient would run. Densities compute their partials in the forward pass
// (they are cheap there and share subexpressions, as Stan's do), so the
// backward pass is a few axpys. Source generation would avoid the tape but
// needs a build step, restricts the Go the user may write and still costs a
// scalar operation per number; a tape keeps the model an ordinary Go
// closure.
//
// The GLM nodes run on blocks of rows down the columns of the design matrix
// with four-column kernels, in Go assembly (AVX2 + FMA, no cgo) on amd64 CPUs
// that have them and in plain Go otherwise (or with -tags purego).
//
// The tape's storage (values, adjoints, nodes) is reused from call to call;
// Model keeps tapes in a sync.Pool, so concurrent chains each get their own
// and a call allocates nothing after warm-up. Benchmarks and the equality
// tests against the hand-written models of package model are in this
// package's tests; docs/writing-a-model.md has worked examples.
package ad
