package loo

import (
	"math"
	"math/bits"
	"slices"
)

// TailLen returns the number of largest importance ratios that PSIS
// replaces by generalised Pareto quantiles: M = ⌈min(S/5, 3√(S/r_eff))⌉.
func TailLen(S int, reff float64) int {
	return int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/reff))))
}

// KThreshold returns the largest Pareto k̂ for which PSIS with S draws is
// reliable, min(1 − 1/log₁₀ S, 0.7) (Vehtari et al. 2024).
func KThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

// pair is a log ratio and its draw.
type pair struct {
	v float64
	i int32
}

// Workspace holds the scratch space of PSIS and Row, grown to the largest
// number of draws it has seen, so that a row allocates nothing after the
// first. The zero value is ready to use; a Workspace must not be used by two
// goroutines at once.
type Workspace struct {
	lik, w, lw, tx, z, sel, yc, means, rho, acov, theta, ell, lq, tl, tq []float64
	heap, pairs                                                          []pair
	cnt                                                                  [8][256]int32 // sortPairs' counts
	tail                                                                 []pair        // the smoothed draws of the last PSIS, nil if none
	lmax, cutoff                                                         float64       // its largest raw ratio and the largest one not smoothed
	f, g, iz                                                             float64       // Row's weights: unsmoothed f/likₛ, smoothed tq·g, all times iz
	wDone                                                                bool          // w holds the last Row's weights
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
	lmax := math.Inf(-1)
	for _, v := range lw {
		if v > lmax {
			lmax = v
		}
	}
	k = w.psis(lw, 1, reff, lmax)
	w.writeTail(lw)
	return k
}

// writeTail writes the smoothed log ratios of the last psis into lw.
func (w *Workspace) writeTail(lw []float64) {
	for j, p := range w.tail {
		lw[p.i] = logPos(w.tq[j]) + w.lmax
	}
}

// psis is PSIS of the log ratios sgn·x (sgn = ±1) given the largest of them,
// lmax, but leaves x as it is: the smoothed ratios are w.tq, relative to
// e^lmax, for the draws w.tail.
func (w *Workspace) psis(x []float64, sgn, reff, lmax float64) (k float64) {
	S := len(x)
	m := TailLen(S, reff)
	k = math.Inf(1)
	w.tail = nil
	if m >= 5 && m < S {
		tail := w.largest(x, sgn, m+1) // ascending, tail[0] the cutoff
		cut := tail[0].v - lmax
		w.cutoff = tail[0].v
		tail = tail[1:]
		if math.Abs((tail[m-1].v-lmax)-(tail[0].v-lmax)) >= 2.220446049250313e-16/100 {
			k = w.smooth(tail, cut, lmax)
		}
	}
	// Only smoothed values can exceed the largest raw ratio, and smooth
	// truncates those.
	w.lmax = lmax
	return k
}

// smooth fits the tail and puts the smoothed ratios, relative to e^lmax and
// truncated at 1, into w.tq, returning k̂.
func (w *Workspace) smooth(tail []pair, cut, lmax float64) float64 {
	m := len(tail)
	ec := expNeg(cut)
	w.tx = grow(w.tx, m)
	x := w.tx
	for j, p := range tail {
		x[j] = expNeg(p.v-lmax) - ec
	}
	g := 30 + int(math.Sqrt(float64(m)))
	w.theta, w.ell = grow(w.theta, g), grow(w.ell, g)
	k, sigma := GPDFit(x, w.theta, w.ell)
	if math.IsInf(k, 0) || math.IsNaN(k) {
		return k
	}
	if len(w.lq) != m { // log(1 − pⱼ), pⱼ = (j + ½)/M, for this M
		w.lq = grow(w.lq, m)
		for j := range w.lq {
			w.lq[j] = math.Log1p(-(float64(j) + 0.5) / float64(m))
		}
	}
	w.tq = grow(w.tq, m)
	for j := range tail {
		q := sigma*math.Expm1(-k*w.lq[j])/k + ec // GPDQuantile(pⱼ, k, σ) + e^cut (σ > 0 here)
		w.tq[j] = math.Min(q, 1)
	}
	w.tail = tail
	return k
}

// largest returns the n largest values of sgn·x (sgn = ±1, exact) with their
// indices, ascending,
// ordered as R's stable sort.int orders them (equal values by draw, so that
// of equal values at the cutoff the later draws are in the tail). A
// sample of every (S/256)-th value gives a bound below which the n largest
// almost surely do not fall; the values above it are gathered in one pass
// and sorted, and the last n kept. When the bound misses (fewer than n
// values above it), the bound is the n-th largest value itself, by
// quickselect on a copy.
func (w *Workspace) largest(x []float64, sgn float64, n int) []pair {
	S := len(x)
	bound := math.Inf(-1)
	if q := 256; S >= 4*q && n < S/4 {
		w.sel = grow(w.sel, q)
		for j := range q {
			w.sel[j] = sgn * x[j*S/q]
		}
		// expected n·q/S sample values above the n-th largest; go 4 sd and
		// 4 values further down
		e := float64(n) * float64(q) / float64(S)
		r := int(e + 4*math.Sqrt(e) + 4)
		if r < q {
			bound = nthSmallest(w.sel[:q], q-1-r)
		}
	}
	h := w.gather(x, sgn, bound)
	if len(h) < n {
		w.sel = grow(w.sel, S)
		for s, v := range x {
			w.sel[s] = sgn * v
		}
		h = w.gather(x, sgn, nthSmallest(w.sel, S-n))
	}
	// The candidates are in draw order, and the sort is stable: the last
	// n are the n largest, of equal values at the cutoff the later draws.
	h = w.sortPairs(h)
	return h[len(h)-n:]
}

// orderKey maps a float64 to a uint64 of the same order (−0 as +0).
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b == 1<<63 {
		b = 0
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// sortPairs sorts h by value, stably (equal values keep their order), by a
// least-significant-digit radix sort on the values' order keys, a byte at
// a time, skipping the bytes that all keys share: no comparisons to
// mispredict. The result is h or the workspace's second buffer.
func (w *Workspace) sortPairs(h []pair) []pair {
	if len(h) < 2 {
		return h
	}
	cnt := &w.cnt
	clear(cnt[:])
	for _, p := range h {
		k := orderKey(p.v)
		for d := range cnt {
			cnt[d][byte(k>>(8*d))]++
		}
	}
	if cap(w.pairs) < len(h) {
		w.pairs = make([]pair, len(h))
	}
	src, dst := h, w.pairs[:len(h)]
	k0 := orderKey(h[0].v)
	for d := range cnt {
		c := &cnt[d]
		if c[byte(k0>>(8*d))] == int32(len(h)) {
			continue
		}
		var sum int32
		for b, t := range c {
			c[b] = sum
			sum += t
		}
		for _, p := range src {
			b := byte(orderKey(p.v) >> (8 * d))
			dst[c[b]] = p
			c[b]++
		}
		src, dst = dst, src
	}
	return src
}

// gather returns the values of sgn·x not below t with their indices.
func (w *Workspace) gather(x []float64, sgn, t float64) []pair {
	h := w.heap[:0]
	for s, v := range x {
		if v *= sgn; v >= t {
			h = append(h, pair{v, int32(s)})
		}
	}
	w.heap = h
	return h
}

// nthSmallest returns the value that would be at index k of x sorted
// ascending, reordering x (Hoare's quickselect with a median-of-three
// pivot; a range that does not shrink fast enough is sorted instead).
func nthSmallest(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for budget := 2 * bits.Len(uint(len(x))); lo < hi; budget-- {
		if budget == 0 {
			slices.Sort(x[lo : hi+1])
			return x[k]
		}
		m := lo + (hi-lo)/2
		if x[m] < x[lo] {
			x[m], x[lo] = x[lo], x[m]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[m] {
			x[hi], x[m] = x[m], x[hi]
		}
		p := x[m]
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}
