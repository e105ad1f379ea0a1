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
	lik, rlik, w, lw, tx, z, sel, yc, means, rho, acov, theta, ell, tl, tq []float64
	lq                                                                     map[int][]float64 // lqOf
	heap, pairs                                                            []pair
	cnt                                                                    [8][256]int32 // sortPairs' counts
	tail                                                                   []pair        // the smoothed draws of the last PSIS, nil if none
	bcnt                                                                   []int32       // sortPairs' buckets
	lmax, cutoff                                                           float64       // its largest raw ratio and the largest one not smoothed
	f, g, iz                                                               float64       // Row's weights: unsmoothed f/likₛ, smoothed tq·g, all times iz
	wDone                                                                  bool          // w holds the last Row's weights
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
	lq := w.lqOf(m)
	w.tq = grow(w.tq, m)
	for j := range tail {
		q := sigma*math.Expm1(-k*lq[j])/k + ec // GPDQuantile(pⱼ, k, σ) + e^cut (σ > 0 here)
		if q > 1 {
			q = 1
		}
		w.tq[j] = q
	}
	w.tail = tail
	return k
}

// lqOf returns log(1 − pⱼ), pⱼ = (j + ½)/M, j = 0…M−1, kept for the
// last 64 values of M the workspace has seen (M varies a little between
// rows with r_eff).
func (w *Workspace) lqOf(m int) []float64 {
	if lq, ok := w.lq[m]; ok {
		return lq
	}
	lq := make([]float64, m)
	for j := range lq {
		// 1 − pⱼ = (M − j − ½)/M to half an ulp
		lq[j] = logPos((float64(m-j) - 0.5) / float64(m))
	}
	if w.lq == nil || len(w.lq) >= 64 {
		w.lq = map[int][]float64{}
	}
	w.lq[m] = lq
	return lq
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
		// expected n·q/S sample values above the n-th largest; go 3 sd and
		// 2 values further down (a miss, about 1 in 1,000, costs a
		// quickselect)
		e := float64(n) * float64(q) / float64(S)
		r := int(e + 3*math.Sqrt(e) + 2)
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
	h = w.sortPairs(h, n)
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

// sortPairs sorts h by value, stably (equal values keep their order), or
// at least its keep largest values (the result's last keep): by
// buckets of the values' order keys, as many as values, rounded up to a
// power of 2, each key range of equal width, the buckets below the one
// holding the keep-th largest value dropped (equal values share a bucket),
// then one insertion sort (which moves values within their bucket only);
// when the buckets are so uneven
// that the insertion sort would cost more than 4 moves a value (Σ c_b²/4,
// c_b the bucket counts), by radixSort. The result is h or the workspace's
// second buffer.
func (w *Workspace) sortPairs(h []pair, keep int) []pair {
	n := len(h)
	if n < 2 {
		return h
	}
	kmin, kmax := orderKey(h[0].v), orderKey(h[0].v)
	for _, p := range h {
		k := orderKey(p.v)
		kmin, kmax = min(kmin, k), max(kmax, k)
	}
	if kmin == kmax {
		return h
	}
	lb := bits.Len(uint(n - 1)) // 2^lb ≥ n buckets
	shift := max(bits.Len64(kmax-kmin)-lb, 0)
	nb := int((kmax-kmin)>>shift) + 1
	w.bcnt = slices.Grow(w.bcnt[:0], nb)[:nb]
	cnt := w.bcnt
	clear(cnt)
	for _, p := range h {
		cnt[(orderKey(p.v)-kmin)>>shift]++
	}
	// the buckets from lo up hold the keep largest values
	lo, above := nb, int32(0)
	for lo > 0 && above < int32(keep) {
		lo--
		above += cnt[lo]
	}
	var sum int32
	var sq int64
	for b := lo; b < nb; b++ {
		c := cnt[b]
		cnt[b] = sum
		sum += c
		sq += int64(c) * int64(c)
	}
	m := int(sum)
	if sq > 16*int64(m) {
		return w.radixSort(h)
	}
	if cap(w.pairs) < m {
		w.pairs = make([]pair, m)
	}
	dst := w.pairs[:m]
	ulo := uint64(lo)
	for _, p := range h {
		if b := (orderKey(p.v) - kmin) >> shift; b >= ulo {
			dst[cnt[b]] = p
			cnt[b]++
		}
	}
	for i := 1; i < m; i++ {
		p := dst[i]
		j := i
		for ; j > 0 && dst[j-1].v > p.v; j-- {
			dst[j] = dst[j-1]
		}
		dst[j] = p
	}
	return dst
}

// radixSort sorts h by value, stably, by a
// least-significant-digit radix sort on the values' order keys, a byte at
// a time, skipping the bytes that all keys share: no comparisons to
// mispredict. The result is h or the workspace's second buffer.
func (w *Workspace) radixSort(h []pair) []pair {
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
	if cap(w.heap) < len(x) {
		w.heap = make([]pair, len(x))
	}
	h := w.heap[:len(x)]
	// every value written, the count moved on by the kept ones: no branch
	// to mispredict
	k := 0
	for s, v := range x {
		v *= sgn
		h[k] = pair{v, int32(s)}
		k += b2i(v >= t)
	}
	return h[:k]
}

// b2i is 1 for true, 0 for false (a SETcc).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
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
