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
		kt := meanLog1p(a, x)
		l := float64(n) * (math.Log(a/kt) - kt - 1)
		ell[j] = l
		if l > lmax {
			lmax = l
		}
	}
	// log-sum-exp as matrixStats::logSumExp: max + log Σ exp(ℓ − max)
	var z float64
	for j, l := range ell {
		ell[j] = math.Exp(l - lmax)
		z += ell[j]
	}
	var thetaHat float64
	for j, t := range theta {
		thetaHat += t * (ell[j] / z)
	}
	k = meanLog1p(-thetaHat, x)
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

// meanLog1p returns the mean of log(1 + a·xᵢ) over the ascending x. Unless
// every a·xᵢ is small, it takes one logarithm a block of 64 factors, their
// product taken as eight products of eight whose exponents are kept apart,
// instead of 64 logarithms: the error is a few ulps of each factor, about
// 1e-15 absolute in the mean.
func meanLog1p(a float64, x []float64) float64 {
	n := len(x)
	var s float64
	if math.Abs(a*x[n-1]) < 0.01 {
		for _, xi := range x {
			s += log1p(a * xi)
		}
		return s / float64(n)
	}
	const ln2 = 0.693147180559945309417232121458176568
	var e int
	ok := func(p float64) bool { return p >= 0x1p-1000 && p <= 0x1p1000 }
	for i := 0; i < n; i += 64 {
		// eight products of at most 8 factors each, interleaved so that
		// they run side by side, then the product of their mantissas
		// (within [2⁻⁸, 1)) and one logarithm
		blk := x[i:min(i+64, n)]
		p0, p1, p2, p3, p4, p5, p6, p7 := 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0
		j := 0
		for ; j+7 < len(blk); j += 8 {
			p0 *= 1 + a*blk[j]
			p1 *= 1 + a*blk[j+1]
			p2 *= 1 + a*blk[j+2]
			p3 *= 1 + a*blk[j+3]
			p4 *= 1 + a*blk[j+4]
			p5 *= 1 + a*blk[j+5]
			p6 *= 1 + a*blk[j+6]
			p7 *= 1 + a*blk[j+7]
		}
		for ; j < len(blk); j++ {
			p1 *= 1 + a*blk[j]
		}
		if !ok(p0) || !ok(p1) || !ok(p2) || !ok(p3) || !ok(p4) || !ok(p5) || !ok(p6) || !ok(p7) {
			// a factor ≤ 0, or a product near overflow or underflow: one
			// log each
			for _, xi := range blk {
				s += log1p(a * xi)
			}
			continue
		}
		f := 1.0
		for _, p := range [8]float64{p0, p1, p2, p3, p4, p5, p6, p7} {
			b := math.Float64bits(p)
			e += int(b>>52) - 1022
			f *= math.Float64frombits(b&(1<<52-1) | 1022<<52) // [½, 1)
		}
		s += logPos(f)
	}
	return (s + float64(e)*ln2) / float64(n)
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
