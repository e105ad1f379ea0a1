// Package density holds log densities and log probability mass functions with
// their partial derivatives with respect to the variate and every parameter,
// the building blocks of a model's LogPrior and LogLik.
//
// Each distribution has a scalar function returning the log density and its
// partials, for example
//
//	lp, dx, dmu, dsigma := density.Normal(x, mu, sigma)
//
// and a vectorised form that sums over slices with broadcasting (every
// argument has length n or 1, the length-1 ones standing for all n) and adds
// the partials into the slices given after the arguments — nil skips a
// partial — each as long as its argument, so a broadcast argument receives
// the sum of its partials:
//
//	lp := density.NormalSum(x, mu, sigma, dx, dmu, dsigma)
//
// This is the order of langevin.Model's LogLik(θ, batch, grad): inputs first,
// accumulated gradients last. The densities are normalised (every constant
// kept), so they equal gonum's distuv LogProb where gonum has the
// distribution; the tests check that and every partial against central finite
// differences. Arguments outside the support give −Inf (variates) or NaN
// (parameters), never a panic; slices of mismatched lengths are programmer
// errors and panic.
//
// Parameterisations follow Stan's functions reference: Normal(μ, σ) with σ
// the standard deviation, StudentT(ν, μ, σ), Gamma(α, β) with rate β,
// InvGamma(α, β) with scale β, NegBin2Log(η, φ) with log mean η and
// dispersion φ (variance μ + μ²/φ), and the logit/log links of
// BernoulliLogit, BinomialLogit, PoissonLog and CategoricalLogit.
package density
