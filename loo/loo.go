package loo

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Blocks yields the pointwise log-likelihoods log p(yᵢ|θₛ) a block of rows
// at a time: each matrix is rows × S, row i the S draws of one observation,
// ordered chain after chain. A non-nil error stops the iteration and is
// returned.
type Blocks = iter.Seq2[*mat.Dense, error]

// Point is the PSIS-LOO estimate of one row.
type Point struct {
	ELPD  float64 // elpdᵢ = log Σₛ wₛ p(yᵢ|θₛ), w the normalised PSIS weights
	MCSE  float64 // Monte Carlo standard error of elpdᵢ
	PLoo  float64 // p_looᵢ = lpdᵢ − elpdᵢ
	LooIC float64 // −2·elpdᵢ
	K     float64 // Pareto shape k̂ᵢ
	NEff  float64 // PSIS effective sample size r_eff/Σₛ wₛ²
	REff  float64 // relative efficiency of p(yᵢ|θₛ), RelEff
}

// blom holds loo's 1000 normal quantiles Φ⁻¹((r − 3/8)/(1000 + 1/4)).
var blom = sync.OnceValue(func() []float64 {
	const n, c = 1000, 3.0 / 8
	z := make([]float64, n)
	for r := range z {
		z[r] = distuv.UnitNormal.Quantile((float64(r+1) - c) / (n - 2*c + 1))
	}
	return z
})

// Row returns the PSIS-LOO estimate of one row of log-likelihoods ll, the S
// draws in chains chains of equal length, as loo's loo.matrix with
// r_eff = relative_eff(exp(ll), chain_id): r_eff by RelEff of p(yᵢ|θₛ), the
// log ratios −ll smoothed by PSIS, normalised weights wₛ, and
//
//	elpdᵢ = log Σₛ wₛ p(yᵢ|θₛ),   lpdᵢ = log (1/S) Σₛ p(yᵢ|θₛ),
//	n_eff = r_eff/Σₛ wₛ²,
//
// and loo's MCSE of elpdᵢ: with E = exp(elpdᵢ) and
// v = Σₛ wₛ²(p(yᵢ|θₛ) − E)², the sample variance of log(E + √v·zᵣ) over
// 1000 normal quantiles zᵣ (the positive arguments), divided by r_eff, under
// a square root. The normalised weights stay in the workspace (Weights) until
// the next call. Row allocates nothing once the workspace has grown.
//
// Row panics if len(ll) is not a multiple of chains; the values must be
// finite.
func (w *Workspace) Row(ll []float64, chains int) Point {
	S := len(ll)
	if chains < 1 || S%chains != 0 {
		panic("loo: number of draws not a multiple of the number of chains")
	}
	c := ll[0]
	for _, v := range ll {
		if v > c {
			c = v
		}
	}
	return w.row(ll, chains, c)
}

// maxFinite returns the largest of ll, or an error naming the row and draw
// of a value that is not finite: Row's first pass with LOO's check.
func maxFinite(ll []float64, row int) (float64, error) {
	c := ll[0]
	for _, v := range ll {
		if v > c {
			c = v
		}
		if v-v != 0 { // NaN or ±Inf
			return 0, finite(ll, row)
		}
	}
	return c, nil
}

// row is Row given c = max ll.
func (w *Workspace) row(ll []float64, chains int, c float64) Point {
	S := len(ll)
	w.lik, w.rlik, w.w, w.yc = grow(w.lik, S), grow(w.rlik, S), grow(w.w, S), grow(w.yc, S)
	lik := w.lik
	// likₛ = exp(llₛ − c), 1/likₛ and the chains' means of likₛ (for
	// RelEff), in one pass
	n := S / chains
	w.means = grow(w.means, chains)
	var sumLik float64
	lo := c
	for ch := range chains {
		seg := ll[ch*n : (ch+1)*n]
		sum, m := expShift(lik[ch*n:(ch+1)*n], w.rlik[ch*n:(ch+1)*n], seg, c)
		if m < lo {
			lo = m
		}
		w.means[ch] = sum / float64(n)
		sumLik += sum
		// centred for RelEff while the chain's likelihoods are in cache
		centre(w.yc[ch*n:(ch+1)*n], lik[ch*n:(ch+1)*n], w.means[ch])
	}
	reff := w.relEffCentred(S, w.means)
	k := w.psis(ll, -1, reff, -lo) // the log ratios are −ll
	// mx = max lw: the largest ratio when nothing was smoothed, else the
	// largest of the smoothed values and the largest value left alone.
	mx := w.lmax
	if w.tail != nil {
		var qmax float64
		for _, q := range w.tq {
			if q > qmax {
				qmax = q
			}
		}
		mx = math.Max(w.cutoff, logPos(qmax)+w.lmax)
	}
	var elpd, e, w2, v float64
	if c-lo < 700 {
		// Unsmoothed weights are xₛ = exp(−llₛ − mx) = f/likₛ,
		// f = exp(−c − mx): one product a draw with 1/likₛ, which expShift
		// gave with likₛ, while the range of ll keeps both normal. Their products with likₛ
		// are all f, so that Σₛ xₛlikₛ needs only the smoothed draws, and
		// their terms of loo's var_epd, Σₛ xₛ²(likₛ − e)² = Σₛ (f − e·xₛ)²,
		// follow from sums about e₀ = mean likₛ, which is known now:
		// with dₛ = f − e₀xₛ and δ = e − e₀,
		// Σₛ (f − e·xₛ)² = Σₛ dₛ² − 2δ Σₛ xₛdₛ + δ² Σₛ xₛ²,
		// one pass with no cancellation to fear (δ is of the order of the
		// spread of likₛ). The smoothed draws take likₛ = e₀ for the pass
		// (their raw weights can exceed the others by many orders of
		// magnitude), and their terms, each f/e₀ and dₛ ≈ 0, are taken out.
		f := math.Exp(-c - mx)
		e0 := sumLik / float64(S)
		r0 := 1 / e0
		rlik := w.rlik
		w.tl = grow(w.tl, len(w.tail))
		for j, p := range w.tail {
			w.tl[j] = lik[p.i]
			rlik[p.i] = r0
		}
		// two draws a step, two sets of sums: the additions' latency
		var z, q, a, b, z1, q1, a1, b1 float64
		s := 0
		for ; s+1 < S; s += 2 {
			x, x1 := f*rlik[s], f*rlik[s+1]
			d, d1 := f-e0*x, f-e0*x1
			z += x
			q += x * x
			a += d * d
			b += x * d
			z1 += x1
			q1 += x1 * x1
			a1 += d1 * d1
			b1 += x1 * d1
		}
		if s < S {
			x := f * rlik[s]
			d := f - e0*x
			z += x
			q += x * x
			a += d * d
			b += x * d
		}
		z, q, a, b = z+z1, q+q1, a+a1, b+b1
		M := float64(len(w.tail))
		x0 := f * r0
		d0 := f - e0*x0
		z -= M * x0
		q -= M * x0 * x0
		a -= M * d0 * d0
		b -= M * x0 * d0
		E := f * float64(S-len(w.tail))
		g := math.Exp(w.lmax - mx) // smoothed weights are w.tq·g
		for j := range w.tail {
			l := w.tl[j]
			x := w.tq[j] * g
			z += x
			E += x * l
		}
		e = E / z
		elpd = c + math.Log(e)
		dl := e - e0
		vs := a - 2*dl*b + dl*dl*q
		for j := range w.tail {
			x := w.tq[j] * g
			d := w.tl[j] - e
			q += x * x
			vs += x * x * d * d
		}
		iz := 1 / z
		w2 = q * iz * iz
		v = math.Max(vs, 0) * iz * iz
		w.f, w.g, w.iz, w.wDone = f, g, iz, false
	} else {
		w.lw = grow(w.lw, S)
		lw, wt := w.lw, w.w
		for s, x := range ll {
			lw[s] = -x
		}
		w.writeTail(lw)
		var z float64
		for s, x := range lw {
			x = expNeg(x - mx)
			wt[s] = x
			z += x
		}
		iz := 1 / z
		for s, x := range wt {
			x *= iz
			wt[s] = x
			e += x * lik[s]
			w2 += x * x
		}
		for s, x := range wt {
			d := lik[s] - e
			v += x * x * d * d
		}
		// likₛ may underflow where the weights are largest: elpd in logs,
		// log Σ exp(llₛ + lwₛ) − log Σ exp(lwₛ), as loo's colLogSumExps
		m := math.Inf(-1)
		for s, x := range ll {
			m = math.Max(m, x+lw[s])
		}
		var t float64
		for s, x := range ll {
			t += math.Exp(x + lw[s] - m)
		}
		elpd = m + math.Log(t) - (mx + math.Log(z))
		w.wDone = true
	}
	lpd := c + math.Log(sumLik) - math.Log(float64(S))
	// MCSE, on the scale of lik (the variance of the logs does not depend on it).
	w.z = grow(w.z, len(blom()))
	return Point{
		ELPD:  elpd,
		MCSE:  math.Sqrt(logVar(e, math.Sqrt(v), w.z) / reff),
		PLoo:  lpd - elpd,
		LooIC: -2 * elpd,
		K:     k,
		NEff:  reff / w2,
		REff:  reff,
	}
}

// Weights returns the normalised PSIS weights of the last Row, one per
// draw; they are overwritten by the next call. Row leaves them implicit
// (f/likₛ and the smoothed values), and Weights writes them out.
func (w *Workspace) Weights() []float64 {
	if !w.wDone {
		a := w.f * w.iz
		for s, r := range w.rlik {
			w.w[s] = a * r
		}
		for j, p := range w.tail {
			w.w[p.i] = w.tq[j] * w.g * w.iz
		}
		w.wDone = true
	}
	return w.w
}

// Estimate is a sum over rows and its standard error √N·sd.
type Estimate struct{ Estimate, SE float64 }

// Band is one of loo's k̂ bands: the number of rows in it and the smallest
// n_eff among them (NaN for none).
type Band struct {
	Count   int
	MinNEff float64
}

// BandNames are loo 2.5.1's names of the k̂ bands (−∞, 0.5], (0.5, 0.7],
// (0.7, 1] and (1, ∞).
var BandNames = [4]string{"good", "ok", "bad", "very bad"}

// Result is PSIS-LOO over all rows.
type Result struct {
	ELPD, PLoo, LooIC Estimate
	// MCSE is the Monte Carlo standard error of elpd_loo, √Σ MCSEᵢ², NaN
	// when some k̂ exceeds 0.7 (as loo prints NA).
	MCSE        float64
	Rows, Draws int
	Bands       [4]Band
	Pointwise   []Point
}

// BandOf returns the index in BandNames of the band of k̂.
func BandOf(k float64) int {
	switch {
	case k <= 0.5:
		return 0
	case k <= 0.7:
		return 1
	case k <= 1:
		return 2
	}
	return 3
}

// Summarize returns the Result of the pointwise estimates pts of rows of S
// draws: sums, standard errors √N·sd (sd with denominator N − 1) and bands,
// as loo's table_of_estimates and pareto_k_table. pts is kept, not copied.
func Summarize(pts []Point, S int) *Result {
	r := &Result{Rows: len(pts), Draws: S, Pointwise: pts}
	for i := range r.Bands {
		r.Bands[i].MinNEff = math.NaN()
	}
	var mc float64
	for _, p := range pts {
		mc += p.MCSE * p.MCSE
		b := &r.Bands[BandOf(p.K)]
		if b.Count == 0 || p.NEff < b.MinNEff {
			b.MinNEff = p.NEff
		}
		b.Count++
	}
	r.MCSE = math.Sqrt(mc)
	if r.Bands[2].Count+r.Bands[3].Count > 0 {
		r.MCSE = math.NaN()
	}
	r.ELPD = sumSE(pts, func(p Point) float64 { return p.ELPD })
	r.PLoo = sumSE(pts, func(p Point) float64 { return p.PLoo })
	r.LooIC = sumSE(pts, func(p Point) float64 { return p.LooIC })
	return r
}

func sumSE(pts []Point, f func(Point) float64) Estimate {
	n := float64(len(pts))
	var s float64
	for _, p := range pts {
		s += f(p)
	}
	m := s / n
	var v float64
	for _, p := range pts {
		d := f(p) - m
		v += d * d
	}
	return Estimate{s, math.Sqrt(n * v / (n - 1))}
}

// LOO returns PSIS-LOO of the rows that blocks yields, their draws in
// chains chains of equal length: each row by Workspace.Row, then
// Summarize. Every block must have the same number of columns S, a multiple
// of chains, and finite values; otherwise LOO returns an error naming the
// row.
func LOO(blocks Blocks, chains int) (*Result, error) {
	if chains < 1 {
		return nil, errors.New("loo: number of chains must be at least 1")
	}
	var (
		w   Workspace
		pts []Point
		S   = -1
	)
	for b, err := range blocks {
		if err != nil {
			return nil, err
		}
		r, c := b.Dims()
		if S < 0 {
			S = c
			if S%chains != 0 {
				return nil, fmt.Errorf("loo: %d draws do not split into %d chains of equal length", S, chains)
			}
		} else if c != S {
			return nil, fmt.Errorf("loo: row %d has %d draws, the rows before %d", len(pts)+1, c, S)
		}
		for i := range r {
			ll := b.RawRowView(i)
			c, err := maxFinite(ll, len(pts)+1)
			if err != nil {
				return nil, err
			}
			pts = append(pts, w.row(ll, chains, c))
		}
	}
	if len(pts) == 0 {
		return nil, errors.New("loo: no rows")
	}
	return Summarize(pts, S), nil
}

// PIT returns the LOO probability integral transform of the observation y
// given draws yrep of its posterior predictive and the row's normalised PSIS
// weights w (Workspace.Weights): Σₛ wₛ·1(yrepₛ ≤ y), as rstantools'
// loo_pit.
func PIT(w, yrep []float64, y float64) float64 {
	var p float64
	for s, v := range yrep {
		if v <= y {
			p += w[s]
		}
	}
	return p
}
