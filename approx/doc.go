// Package approx holds deterministic and stochastic approximations of a
// posterior that serve as references and baselines for the samplers: the
// Laplace approximation and all its pieces (the MAP by L-BFGS, FindMAP;
// the inverse negative Hessian, LaplaceCov and its diagonal LaplacePrecond;
// one MAP and one Hessian per run, RunLaplace; a network's linearised
// Laplace, GLMLaplace), the
// Ornstein–Uhlenbeck prediction of constant SGD's stationary covariance
// (a continuous Lyapunov equation, Mandt, Hoffman & Blei 2017, eq. 13), and
// others.
//
// Conventions are those of package langevin: the log posterior is
// log p(θ) + Σᵢ log p(zᵢ|θ), and Hessians are Hessians of that function, so
// the Laplace precision is Λ = −∇²log p(θ|D) at the MAP.
package approx
