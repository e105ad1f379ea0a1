package diag

import (
	"math"
	"slices"
)

// This file holds the scalar building blocks. They mimic the arithmetic of
// the R functions that posterior calls, because several diagnostics depend
// on exact ties and exact zeros (for example the variance of a chain that is
// constant), not only on values being close.

// accSum returns the sum of x, accumulated with Neumaier's compensated
// summation. It stands in for R's long double accumulators. If the plain
// sum is not finite it is returned as is, as R does.
func accSum(x []float64) float64 {
	var s, c float64
	for _, v := range x {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s
	}
	return s + c
}

// meanR returns the mean of x as R's mean.default computes it: an accurate
// sum divided by n followed by one refinement pass. It returns NaN for an
// empty x.
func meanR(x []float64) float64 {
	n := float64(len(x))
	if len(x) == 0 {
		return math.NaN()
	}
	m := accSum(x) / n
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	var s, c float64
	for _, v := range x {
		d := v - m
		t := s + d
		if math.Abs(s) >= math.Abs(d) {
			c += (s - t) + d
		} else {
			c += (d - t) + s
		}
		s = t
	}
	return m + (s+c)/n
}

// mean2 returns the mean of two values rounded once from the exact value, as
// R's mean of a length-two vector does with its long double accumulator.
func mean2(a, b float64) float64 {
	s := a + b
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s / 2
	}
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	return s/2 + e/2
}

// naiveMean returns the mean of x accumulated in plain float64 arithmetic,
// as matrixStats::colMeans2 and rowMeans2 do.
func naiveMean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// varR returns the unbiased sample variance of x as R's var computes it
// (two-pass, with an accurate mean). It returns NaN if len(x) < 2.
func varR(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	m := meanR(x)
	var s, c float64
	for _, v := range x {
		d := (v - m) * (v - m)
		t := s + d
		if math.Abs(s) >= math.Abs(d) {
			c += (s - t) + d
		} else {
			c += (d - t) + s
		}
		s = t
	}
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s
	}
	return (s + c) / float64(len(x)-1)
}

// colVarR returns the unbiased variance of x about the given center as
// matrixStats::colVars(x, center = center) computes it.
func colVarR(x []float64, center float64) float64 {
	n := len(x)
	if n <= 1 {
		return math.NaN()
	}
	var s, c float64
	for _, v := range x {
		d := (v - center) * (v - center)
		t := s + d
		if math.Abs(s) >= math.Abs(d) {
			c += (s - t) + d
		} else {
			c += (d - t) + s
		}
		s = t
	}
	if !(math.IsInf(s, 0) || math.IsNaN(s)) {
		s += c
	}
	fn := float64(n)
	return s / fn * (fn / (fn - 1))
}

// isConstant reports whether max(x)-min(x) < ε, with ε the float64 machine
// epsilon, which is posterior's is_constant. The tolerance is absolute.
// x must not hold NaNs.
func isConstant(x []float64) bool {
	if len(x) == 0 {
		return true
	}
	lo, hi := x[0], x[0]
	for _, v := range x[1:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return math.Abs(hi-lo) < epsilon
}

// epsilon is R's .Machine$double.eps.
const epsilon = 0x1p-52

// hasNaN reports whether x holds a NaN.
func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// shouldReturnNA is posterior's should_return_NA: true if x holds a NaN or
// an infinity, or is constant (see isConstant).
func shouldReturnNA(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return isConstant(x)
}

// allEqual reports whether every element of x is equal to the first.
func allEqual(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// quantileSorted returns the type 7 sample quantile (R's default) of the
// sorted, NaN-free values in s. p must be in [0, 1].
//
// With h = (n-1)p, the quantile is s[⌊h⌋] + (h-⌊h⌋)(s[⌈h⌉] - s[⌊h⌋]), computed
// in the same order of operations as R's quantile.default.
func quantileSorted(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	// The explicit conversions forbid fused multiply-add, which would make
	// the result differ from R's in the last bit on some architectures.
	index := 1 + float64(float64(n-1)*p)
	lo := math.Floor(index)
	hi := math.Ceil(index)
	qs := s[int(lo)-1]
	xhi := s[int(hi)-1]
	if index > lo && xhi != qs {
		h := index - lo
		qs = float64((1-h)*qs) + float64(h*xhi)
	}
	return qs
}

// medianSorted returns the median of the sorted, NaN-free values in s as
// R's median.default computes it.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	half := (n + 1) / 2
	if n%2 == 1 {
		return s[half-1]
	}
	return mean2(s[half-1], s[half])
}

// sortedCopy copies x into dst (grown as needed), sorts it and returns it.
func sortedCopy(dst, x []float64) []float64 {
	dst = append(dst[:0], x...)
	slices.Sort(dst)
	return dst
}

// qnorm returns the standard normal quantile of p, 0 < p < 1, computed with
// Wichura's algorithm AS 241 (PPND16) with the coefficients R's qnorm uses.
// For 0.075 ≤ p ≤ 0.925 the result is bit-identical to R's; in the tails it
// may differ by a few ulps because math.Log is not glibc's log.
func qnorm(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - q*q
		return q * (((((((r*2509.0809287301226727+
			33430.575583588128105)*r+67265.770927008700853)*r+
			45921.953931549871457)*r+13731.693765509461125)*r+
			1971.5909503065514427)*r+133.14166789178437745)*r +
			3.387132872796366608) /
			(((((((r*5226.495278852854561+
				28729.085735721942674)*r+39307.89580009271061)*r+
				21213.794301586595867)*r+5394.1960214247511077)*r+
				687.1870074920579083)*r+42.313330701600911252)*r + 1)
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	r = math.Sqrt(-math.Log(r))
	var val float64
	if r <= 5 {
		r -= 1.6
		val = (((((((r*7.7454501427834140764e-4+
			0.0227238449892691845833)*r+0.24178072517745061177)*
			r+1.27045825245236838258)*r+
			3.64784832476320460504)*r+5.7694972214606914055)*
			r+4.6303378461565452959)*r +
			1.42343711074968357734) /
			(((((((r*
				1.05075007164441684324e-9+5.475938084995344946e-4)*
				r+0.0151986665636164571966)*r+
				0.14810397642748007459)*r+0.68976733498510000455)*
				r+1.6763848301838038494)*r+
				2.05319162663775882187)*r + 1)
	} else {
		r -= 5
		val = (((((((r*2.01033439929228813265e-7+
			2.71155556874348757815e-5)*r+
			0.0012426609473880784386)*r+0.026532189526576123093)*
			r+0.29656057182850489123)*r+
			1.7848265399172913358)*r+5.4637849111641143699)*
			r + 6.6579046435011037772) /
			(((((((r*
				2.04426310338993978564e-15+1.4215117583164458887e-7)*
				r+1.8463183175100546818e-5)*r+
				7.868691311456132591e-4)*r+0.0148753612908506148525)*
				r+0.13692988092273580531)*r+
				0.59983220655588793769)*r + 1)
	}
	if q < 0 {
		val = -val
	}
	return val
}

// StepWeightedMean is the step-weighted estimator of a decaying-step
// SG-MCMC run (lecture notes (3.8); Welling & Teh 2011, §4):
//
//	ĥ = Σₜ ηₜ h(θₜ) / Σₜ ηₜ,
//
// here with h(θ) = θⱼ: chains[c][t] is a parameter's draw and steps[c][t] the
// step ηₜ it was drawn with (CmdStan's stepsize__), for every chain c. With
// a decaying step the late, small-step draws are closer to the posterior
// but each moves less, and the weights make every draw count for the time
// it represents. Thinned draws are weighted by their own step, which
// approximates the sum over the iterations they stand for when η changes
// little within a thinning interval. It returns NaN if the chains are
// empty or a length differs, or if the steps sum to zero or less.
func StepWeightedMean(chains, steps [][]float64) float64 {
	if len(chains) != len(steps) {
		return math.NaN()
	}
	var num, den float64
	for c, x := range chains {
		if len(steps[c]) != len(x) {
			return math.NaN()
		}
		for t, v := range x {
			num += steps[c][t] * v
			den += steps[c][t]
		}
	}
	if !(den > 0) {
		return math.NaN()
	}
	return num / den
}
