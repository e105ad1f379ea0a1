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
// every a·xᵢ is small, it takes one logarithm in all instead of n: the
// factors 1 + a·xᵢ are multiplied in eight products side by side, whose
// exponents are moved into an integer every 64 factors (each product's
// mantissa kept in [1, 2)); the error is a few ulps of each factor, about
// 1e-15 absolute in the mean. A factor ≤ 0, or a product near overflow or
// underflow, sends the whole sum to one logarithm a factor.
func meanLog1p(a float64, x []float64) float64 {
	n := len(x)
	if math.Abs(a*x[n-1]) < 0.01 {
		return sumLog1p(a, x) / float64(n)
	}
	const ln2 = 0.693147180559945309417232121458176568
	ok := func(p float64) bool { return p >= 0x1p-1000 && p <= 0x1p1000 }
	var e int64
	// renorm moves the exponent of p (normal, positive) into e.
	renorm := func(p float64) float64 {
		b := math.Float64bits(p)
		e += int64(b>>52) - 1023
		return math.Float64frombits(b&(1<<52-1) | 1023<<52)
	}
	p0, p1, p2, p3, p4, p5, p6, p7 := 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0
	i := 0
	for ; i+63 < n; i += 64 {
		blk := x[i : i+64 : i+64]
		for j := 0; j < 64; j += 8 {
			b := blk[j : j+8 : j+8]
			p0 *= 1 + a*b[0]
			p1 *= 1 + a*b[1]
			p2 *= 1 + a*b[2]
			p3 *= 1 + a*b[3]
			p4 *= 1 + a*b[4]
			p5 *= 1 + a*b[5]
			p6 *= 1 + a*b[6]
			p7 *= 1 + a*b[7]
		}
		if !ok(p0) || !ok(p1) || !ok(p2) || !ok(p3) || !ok(p4) || !ok(p5) || !ok(p6) || !ok(p7) {
			return sumLog1p(a, x) / float64(n)
		}
		p0, p1, p2, p3 = renorm(p0), renorm(p1), renorm(p2), renorm(p3)
		p4, p5, p6, p7 = renorm(p4), renorm(p5), renorm(p6), renorm(p7)
	}
	for ; i+7 < n; i += 8 {
		b := x[i : i+8 : i+8]
		p0 *= 1 + a*b[0]
		p1 *= 1 + a*b[1]
		p2 *= 1 + a*b[2]
		p3 *= 1 + a*b[3]
		p4 *= 1 + a*b[4]
		p5 *= 1 + a*b[5]
		p6 *= 1 + a*b[6]
		p7 *= 1 + a*b[7]
	}
	for ; i < n; i++ {
		p0 *= 1 + a*x[i]
	}
	if !ok(p0) || !ok(p1) || !ok(p2) || !ok(p3) || !ok(p4) || !ok(p5) || !ok(p6) || !ok(p7) {
		return sumLog1p(a, x) / float64(n)
	}
	// eight mantissas in [1, 2): their product is below 2⁸
	f := renorm(p0) * renorm(p1) * renorm(p2) * renorm(p3) * renorm(p4) * renorm(p5) * renorm(p6) * renorm(p7)
	return (logPos(f) + float64(e)*ln2) / float64(n)
}

// sumLog1p is Σᵢ log(1 + a·xᵢ), one logarithm a term.
func sumLog1p(a float64, x []float64) float64 {
	var s float64
	for _, xi := range x {
		s += log1p(a * xi)
	}
	return s
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
