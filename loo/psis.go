package loo

import (
	"math"
)

// TailLen returns the number of largest importance ratios that PSIS
// replaces by generalised Pareto quantiles: M = ⌈min(S/5, 3√(S/r_eff))⌉.
func TailLen(S int, reff float64) int {
	return int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/reff))))
}

// KThreshold returns the largest Pareto k̂ for which PSIS with S draws is
// reliable, min(1 − 1/log₁₀ S, 0.7) (Vehtari et al. 2024, section 3.2.4).
func KThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

// pair is a log ratio and its draw.
type pair struct {
	v float64
	i int32
}

// Workspace holds the scratch of PSIS for rows of one number of draws. The
// zero value is ready to use; a Workspace must not be used by two
// goroutines at once.
type Workspace struct {
	lik, w, lw, tx, z, means, rho, theta, ell []float64
	heap                                      []pair
	tail                                      []pair // the smoothed draws of the last PSIS, nil if none
}

// PSIS replaces the log importance ratios lw, one per draw, by Pareto
// smoothed log weights and returns the Pareto shape k̂, as loo's psis with
// r_eff: with M = TailLen(S, reff), the M largest ratios are replaced by the
// quantiles F⁻¹((j − ½)/M), j = 1…M, of the generalised Pareto distribution
// fitted (GPDFit) to their excesses over the (M+1)-th largest ratio, in the
// same order, and every weight is truncated at the largest raw ratio. With
// M < 5, or a tail of equal values, nothing is smoothed and k̂ = +Inf. The
// weights are not normalised.
func (w *Workspace) PSIS(lw []float64, reff float64) (k float64) {
	S := len(lw)
	m := TailLen(S, reff)
	lmax := math.Inf(-1)
	for _, v := range lw {
		if v > lmax {
			lmax = v
		}
	}
	k = math.Inf(1)
	w.tail = nil
	if m >= 5 && m < S {
		tail := w.largest(lw, m+1) // ascending, tail[0] the cutoff
		cut := tail[0].v - lmax
		tail = tail[1:]
		if math.Abs((tail[m-1].v-lmax)-(tail[0].v-lmax)) >= 2.220446049250313e-16/100 {
			k = w.smooth(lw, tail, cut, lmax)
		}
	}
	for s, v := range lw {
		if v-lmax > 0 {
			lw[s] = lmax
		}
	}
	return k
}

// smooth fits the tail and writes the smoothed values into lw, returning k̂.
func (w *Workspace) smooth(lw []float64, tail []pair, cut, lmax float64) float64 {
	m := len(tail)
	ec := math.Exp(cut)
	w.tx = grow(w.tx, m)
	x := w.tx
	for j, p := range tail {
		x[j] = math.Exp(p.v-lmax) - ec
	}
	g := 30 + int(math.Sqrt(float64(m)))
	w.theta, w.ell = grow(w.theta, g), grow(w.ell, g)
	k, sigma := GPDFit(x, w.theta, w.ell)
	if math.IsInf(k, 0) || math.IsNaN(k) {
		return k
	}
	for j, p := range tail {
		q := GPDQuantile((float64(j)+0.5)/float64(m), k, sigma) + ec
		v := math.Log(q)
		if v > 0 {
			v = 0
		}
		lw[p.i] = v + lmax
	}
	w.tail = tail
	return k
}

// largest returns the n largest values of x with their indices, ascending
// ordered as R's stable sort.int orders them (equal values by draw), by a
// min-heap of size n then heap sort.
func (w *Workspace) largest(x []float64, n int) []pair {
	if cap(w.heap) < n {
		w.heap = make([]pair, n)
	}
	h := w.heap[:n]
	less := func(a, b pair) bool { return a.v < b.v || a.v == b.v && a.i < b.i }
	down := func(h []pair, i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && less(h[r], h[l]) {
				l = r
			}
			if !less(h[l], h[i]) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for s := range n {
		h[s] = pair{x[s], int32(s)}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(h, i)
	}
	for s := n; s < len(x); s++ {
		if v := x[s]; v >= h[0].v { // a tie goes to the later draw, as in R's stable sort
			h[0] = pair{v, int32(s)}
			down(h, 0)
		}
	}
	// heap sort: repeatedly move the minimum to the end, giving descending
	for end := n - 1; end > 0; end-- {
		h[0], h[end] = h[end], h[0]
		down(h[:end], 0)
	}
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		h[i], h[j] = h[j], h[i]
	}
	return h
}
