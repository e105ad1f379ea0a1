package loo

import "math"

// RelEff returns the relative efficiency r_eff = ESS/S of the S = len(x)
// draws x, ordered chain after chain in chains chains of equal length, as
// loo's relative_eff computes it (the ESS of Stan 2.18 without splitting or
// rank normalisation): with n draws per chain, chain means x̄_c and
// autocovariances γ̂_c(t) (loo's FFT estimate, the biased sum scaled by
// m/n² where m ≥ n is the next product of 2, 3 and 5),
//
//	W = mean_c γ̂_c(0)·n/(n−1),   var⁺ = W(n−1)/n + var_c(x̄_c),
//	ρ̂(t) = 1 − (W − mean_c γ̂_c(t))/var⁺,
//
// summed to Geyer's initial positive and monotone sequence, τ̂ = −1 + 2Σρ̂ + ρ̂
// (the last even lag), τ̂ ≥ 1/log₁₀ S, and r_eff = 1/τ̂. For PSIS-LOO, x is
// the likelihood p(yᵢ|θₛ) of one row; any positive multiple gives the same
// r_eff.
//
// RelEff panics if len(x) is not a multiple of chains.
func RelEff(x []float64, chains int) float64 {
	var w Workspace
	return w.relEff(x, chains)
}

func nextGoodSize(n int) int {
	if n <= 2 {
		return 2
	}
	for {
		m := n
		for m%2 == 0 {
			m /= 2
		}
		for m%3 == 0 {
			m /= 3
		}
		for m%5 == 0 {
			m /= 5
		}
		if m <= 1 {
			return n
		}
		n++
	}
}

// relEff is RelEff with the workspace's scratch: chain means and ρ̂.
func (w *Workspace) relEff(x []float64, chains int) float64 {
	S := len(x)
	if chains < 1 || S%chains != 0 {
		panic("loo: number of draws not a multiple of the number of chains")
	}
	n := S / chains
	w.means = grow(w.means, chains)
	for c := range chains {
		var s float64
		for _, v := range x[c*n : (c+1)*n] {
			s += v
		}
		w.means[c] = s / float64(n)
	}
	return w.relEffMeans(x, w.means)
}

// relEffMeans is relEff given the chains' means.
func (w *Workspace) relEffMeans(x, means []float64) float64 {
	S, chains := len(x), len(means)
	n := S / chains
	w.yc = grow(w.yc, S)
	for c := range chains {
		centre(w.yc[c*n:(c+1)*n], x[c*n:(c+1)*n], means[c])
	}
	return w.relEffCentred(S, means)
}

// centre sets dst[i] = x[i] − m.
func centre(dst, x []float64, m float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = v - m
	}
}

// relEffCentred is relEff given the chains' means and the draws less their
// chain's mean in w.yc (S of them).
func (w *Workspace) relEffCentred(S int, means []float64) float64 {
	chains := len(means)
	n := S / chains
	w.rho = grow(w.rho, n+2)
	rho := w.rho
	scale := float64(nextGoodSize(n)) / (float64(n) * float64(n))
	yc := w.yc[:S]
	// lag(t) is mean_c γ̂_c(t), computed three lags at a time (acov3) and
	// cached in w.acov
	w.acov = grow(w.acov, n+3)
	have := 0
	lag := func(t int) float64 {
		for t >= have {
			acov3(yc, chains, n, have, w.acov[have:have+3], scale)
			have += 3
		}
		return w.acov[t]
	}
	fn := float64(n)
	a0, a1 := lag(0), lag(1)
	meanVar := a0 * fn / (fn - 1)
	varPlus := meanVar * (fn - 1) / fn
	if chains > 1 {
		var mm float64
		for _, m := range means {
			mm += m
		}
		mm /= float64(chains)
		var v float64
		for _, m := range means {
			v += (m - mm) * (m - mm)
		}
		varPlus += v / float64(chains-1)
	}
	clear(rho)
	even := 1.0
	rho[0] = even
	odd := 1 - (meanVar-a1)/varPlus
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		at, at1 := lag(t), lag(t+1)
		even = 1 - (meanVar-at)/varPlus
		odd = 1 - (meanVar-at1)/varPlus
		if even+odd >= 0 {
			rho[t], rho[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	var sum float64
	if maxT == 0 {
		sum = rho[0] // R's rho[1:0] is rho[1]
	}
	for _, r := range rho[:maxT] {
		sum += r
	}
	tau := -1 + 2*sum + rho[maxT]
	tau = math.Max(tau, 1/math.Log10(float64(S)))
	return 1 / tau
}

func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// acov3 sets g[j] to mean_c γ̂_c(t+j), j = 0…2, the autocovariances of the
// centred chains yc of n draws each, scaled by scale, in one pass: two
// draws an iteration against four, six sums side by side (as many as the
// registers hold without spilling).
func acov3(yc []float64, chains, n, t int, g []float64, scale float64) {
	g = g[:3]
	clear(g)
	for c := range chains {
		y := yc[c*n : (c+1)*n]
		var s00, s01, s02, s10, s11, s12 float64
		m := n - t - 2 // terms common to the three lags: i < m
		i := 0
		if m > 0 {
			b := y[t:]
			for ; i+1 < m; i += 2 {
				a0, a1 := y[i], y[i+1]
				bb := b[i : i+4 : i+4]
				b0, b1, b2, b3 := bb[0], bb[1], bb[2], bb[3]
				s00 += a0 * b0
				s01 += a0 * b1
				s02 += a0 * b2
				s10 += a1 * b1
				s11 += a1 * b2
				s12 += a1 * b3
			}
		}
		s := [3]float64{s00 + s10, s01 + s11, s02 + s12}
		for j := range s {
			for k := i; k < n-t-j; k++ {
				s[j] += y[k] * y[k+t+j]
			}
			g[j] += s[j] * scale
		}
	}
	for j := range g {
		g[j] /= float64(chains)
	}
}
