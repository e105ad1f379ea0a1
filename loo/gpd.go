package loo

import "math"

// GPDFit returns the shape k and scale σ of the generalised Pareto
// distribution fitted to the ascending, non-negative sample x by the
// empirical Bayes method of Zhang and Stephens (2009), "A new and efficient
// estimation method for the generalized Pareto distribution", Technometrics
// 51, section 4, with loo's weakly informative prior on k (gpdfit with
// wip = TRUE, min_grid_pts = 30): with n = len(x), m = 30 + ⌊√n⌋ grid points
// θⱼ = 1/x₍ₙ₎ + (1 − √(m/(j − ½)))/(3·x*), x* the first quartile x₍⌊n/4+½⌋₎,
// profile log-likelihoods
//
//	ℓ(θ) = n·(log(−θ/k(θ)) − k(θ) − 1),   k(θ) = mean log(1 − θxᵢ),
//
// and the posterior mean θ̂ = Σ θⱼ exp(ℓⱼ)/Σ exp(ℓⱼ), the estimates are
// k = mean log(1 − θ̂xᵢ), σ = −k/θ̂, then k is shrunk towards ½ as by a prior
// of 10 observations: k·n/(n+10) + 5/(n+10). A NaN k is returned as +Inf.
//
// theta and ell are scratch of length at least m (nil allocates).
func GPDFit(x, theta, ell []float64) (k, sigma float64) {
	n := len(x)
	m := 30 + int(math.Sqrt(float64(n)))
	theta, ell = grow(theta, m), grow(ell, m)
	xstar := x[int(float64(n)/4+0.5)-1]
	inv := 1 / x[n-1]
	lmax := math.Inf(-1)
	for j := range m {
		t := inv + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/3/xstar
		theta[j] = t
		a := -t
		var s float64
		for _, xi := range x {
			s += log1p(a * xi)
		}
		kt := s / float64(n)
		l := float64(n) * (math.Log(a/kt) - kt - 1)
		ell[j] = l
		if l > lmax {
			lmax = l
		}
	}
	// log-sum-exp as matrixStats::logSumExp: max + log Σ exp(ℓ − max)
	var z float64
	for _, l := range ell {
		z += math.Exp(l - lmax)
	}
	lse := lmax + math.Log(z)
	var thetaHat float64
	for j, t := range theta {
		thetaHat += t * math.Exp(ell[j]-lse)
	}
	var s float64
	for _, xi := range x {
		s += log1p(-thetaHat * xi)
	}
	k = s / float64(n)
	sigma = -k / thetaHat
	k = k*float64(n)/float64(n+10) + 10*0.5/float64(n+10)
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}

// GPDQuantile returns the p quantile of the generalised Pareto distribution
// of shape k and scale σ (location 0), σ·((1 − p)^(−k) − 1)/k as loo's qgpd
// computes it (NaN for σ ≤ 0).
func GPDQuantile(p, k, sigma float64) float64 {
	if math.IsNaN(sigma) || sigma <= 0 {
		return math.NaN()
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// log1p is log(1 + y) to a few ulps through the hardware-assisted math.Log
// (Goldberg's correction), about twice as fast as math.Log1p.
func log1p(y float64) float64 {
	u := 1 + y
	if u == 1 {
		return y
	}
	if math.IsInf(u, 0) || u <= 0 {
		return math.Log1p(y)
	}
	return math.Log(u) * y / (u - 1)
}
