package diag

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
)

// matrix is a set of m chains of n draws each, stored chain after chain:
// chain j is data[j*n : (j+1)*n]. It corresponds to posterior's
// iterations × chains matrix.
type matrix struct {
	data []float64
	n, m int
}

func (a matrix) col(j int) []float64 { return a.data[j*a.n : (j+1)*a.n] }

// workspace holds the buffers reused within one call of an exported function.
type workspace struct {
	draws  []float64  // all draws, chain after chain
	split  []float64  // split (and possibly transformed) draws
	tmp    []float64  // transformed draws before splitting
	sorted []float64  // sorted copy of the draws
	pairs  []rankPair // for ranks

	acov  []float64 // mean autocovariance over chains
	rho   []float64
	means []float64
	vars  []float64

	pad  []float64
	seq  []float64
	coef []complex128
	fft  *fourier.FFT
}

// grow returns buf resliced to length n, reallocating if needed.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// checkChains returns the number of draws per chain and the number of
// chains. Chains of different lengths are cut to the shortest: n is the
// shortest length.
func checkChains(chains [][]float64) (n, m int) {
	m = len(chains)
	if m == 0 {
		return 0, 0
	}
	n = len(chains[0])
	for _, c := range chains[1:] {
		n = min(n, len(c))
	}
	return n, m
}

// load copies the first n draws of each chain (n the shortest length) into
// ws.draws and returns them as a matrix. ok is false if there are no draws.
func (ws *workspace) load(chains [][]float64) (x matrix, ok bool) {
	n, m := checkChains(chains)
	if n == 0 || m == 0 {
		return matrix{}, false
	}
	ws.draws = grow(ws.draws, n*m)
	for j, c := range chains {
		copy(ws.draws[j*n:], c[:n])
	}
	return matrix{data: ws.draws, n: n, m: m}, true
}

// splitChains splits each chain of x into its first and second half, as
// posterior's .split_chains does, writing into dst. The result has the m
// first halves followed by the m second halves. For an odd number of draws
// the middle draw is dropped. A single draw per chain is not split.
//
// With two or three draws per chain, posterior 1.4.0 drops a matrix
// dimension by accident and the result has m rows and 2 columns: one
// "chain" made of the first draws of all the chains and one made of the
// last draws. That is reproduced.
func splitChains(dst []float64, x matrix) matrix {
	n, m := x.n, x.m
	dst = grow(dst, n*m)
	if n == 1 {
		copy(dst, x.data)
		return matrix{data: dst, n: n, m: m}
	}
	h := n / 2
	if h == 1 {
		dst = dst[:2*m]
		for j := 0; j < m; j++ {
			c := x.col(j)
			dst[j] = c[0]
			dst[m+j] = c[n-1]
		}
		return matrix{data: dst, n: m, m: 2}
	}
	dst = dst[:2*h*m]
	for j := 0; j < m; j++ {
		c := x.col(j)
		copy(dst[j*h:], c[:h])
		copy(dst[(m+j)*h:], c[n-h:])
	}
	return matrix{data: dst, n: h, m: 2 * m}
}

// zScale replaces the NaN-free values in x by their rank-normalized values
//
//	z_i = Φ⁻¹((r_i - 3/8) / (S + 1/4)),
//
// where r_i is the rank of x_i among all S values, ties getting their
// average rank (posterior's z_scale).
func (ws *workspace) zScale(x []float64) {
	s := len(x)
	ws.pairs = grow(ws.pairs, s)
	pairs := ws.pairs
	for i, v := range x {
		pairs[i] = rankPair{v: v, i: i}
	}
	slices.SortFunc(pairs, func(a, b rankPair) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	const c = 3.0 / 8
	den := float64(s) - 2*c + 1
	for i := 0; i < s; {
		j := i + 1
		for j < s && pairs[j].v == pairs[i].v {
			j++
		}
		// Ranks i+1, ..., j share their average.
		z := qnorm((float64(i+j+1)/2 - c) / den)
		for k := i; k < j; k++ {
			x[pairs[k].i] = z
		}
		i = j
	}
}

// rankPair is a value and its index, for ranking.
type rankPair struct {
	v float64
	i int
}

// nextGoodSize returns the smallest integer ≥ n whose only prime factors
// are 2, 3 and 5 (R's nextn).
func nextGoodSize(n int) int {
	if n <= 1 {
		return 1
	}
	for ; ; n++ {
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
		if m == 1 {
			return n
		}
	}
}

// autocovariance adds to dst the biased autocovariance of x at lags
// 0, ..., len(x)-1, computed by FFT as posterior's autocovariance:
//
//	γ_t = 1/N ∑_{i=1}^{N-t} (x_i - x̄)(x_{i+t} - x̄).
//
// A constant x has autocovariance zero. x must be finite and len(x) ≥ 2.
func (ws *workspace) autocovariance(dst, x []float64) {
	n := len(x)
	if allEqual(x) {
		// R's var(x) is exactly zero and posterior returns zeros.
		return
	}
	varx := varR(x)
	if varx == 0 {
		return
	}
	mt2 := 2 * nextGoodSize(n)
	if ws.fft == nil {
		ws.fft = fourier.NewFFT(mt2)
	} else if ws.fft.Len() != mt2 {
		ws.fft.Reset(mt2)
	}
	ws.pad = grow(ws.pad, mt2)
	mean := meanR(x)
	for i, v := range x {
		ws.pad[i] = v - mean
	}
	clear(ws.pad[n:])
	ws.coef = grow(ws.coef, mt2/2+1)
	ws.coef = ws.fft.Coefficients(ws.coef, ws.pad)
	for i, c := range ws.coef {
		re, im := real(c), imag(c)
		ws.coef[i] = complex(re*re+im*im, 0)
	}
	ws.seq = grow(ws.seq, mt2)
	ws.seq = ws.fft.Sequence(ws.seq, ws.coef)
	ac0 := ws.seq[0]
	fn := float64(n)
	for t := 0; t < n; t++ {
		dst[t] += ws.seq[t] / ac0 * varx * (fn - 1) / fn
	}
}

// ess returns the effective sample size of the (already split and
// transformed) chains in x, posterior's .ess.
//
// With m chains of n draws, W the mean over chains of the lag-0
// autocovariances times n/(n-1), B/n the variance of the chain means and
//
//	var⁺ = (n-1)/n W + B/n,
//
// the combined autocorrelation at lag t is
//
//	ρ̂_t = 1 - (W - mean over chains of γ_t) / var⁺.
//
// Geyer's initial positive sequence keeps pairs (ρ̂_{2k}, ρ̂_{2k+1}) while
// their sum is positive (stopping at the first pair whose sum is negative,
// and at the latest when 2k+1 reaches n-4), and the initial monotone
// sequence then makes the pair sums non-increasing. With K the last even
// lag reached,
//
//	τ̂ = -1 + 2 ∑_{t<K} ρ̂_t + ρ̂_K,
//
// where ρ̂_K is kept only if positive, and ess = nm / max(τ̂, 1/log10(nm)).
// As in posterior, if K = 0 (which happens whenever n ≤ 5) the sum is
// ρ̂_0 = 1, so that ess = nm/2. ess is NaN if n < 3 or if x contains a NaN
// or an infinity or is constant.
func (ws *workspace) ess(x matrix) float64 {
	n, m := x.n, x.m
	if n < 3 || shouldReturnNA(x.data) {
		return math.NaN()
	}
	ws.acov = grow(ws.acov, n)
	acov := ws.acov
	clear(acov)
	ws.means = grow(ws.means, m)
	for j := 0; j < m; j++ {
		c := x.col(j)
		ws.autocovariance(acov, c)
		ws.means[j] = naiveMean(c)
	}
	fm := float64(m)
	for t := range acov {
		acov[t] /= fm
	}
	fn := float64(n)
	meanVar := acov[0] * fn / (fn - 1)
	varPlus := meanVar * (fn - 1) / fn
	if m > 1 {
		varPlus += varR(ws.means)
	}

	ws.rho = grow(ws.rho, n)
	rho := ws.rho
	clear(rho)
	t := 0
	rhoEven := 1.0
	rho[0] = rhoEven
	rhoOdd := 1 - (meanVar-acov[1])/varPlus
	rho[1] = rhoOdd
	for t < n-5 && !math.IsNaN(rhoEven+rhoOdd) && rhoEven+rhoOdd > 0 {
		t += 2
		rhoEven = 1 - (meanVar-acov[t])/varPlus
		rhoOdd = 1 - (meanVar-acov[t+1])/varPlus
		if rhoEven+rhoOdd >= 0 {
			rho[t] = rhoEven
			rho[t+1] = rhoOdd
		}
	}
	maxT := t
	if rhoEven > 0 {
		rho[maxT] = rhoEven
	}

	// Geyer's initial monotone sequence.
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}

	total := fn * fm
	var sum float64
	if maxT == 0 {
		// R's rho_hat_t[1:0] is rho_hat_t[1].
		sum = rho[0]
	} else {
		sum = accSum(rho[:maxT])
	}
	tau := -1 + 2*sum + rho[maxT]
	if bound := 1 / math.Log10(total); tau < bound {
		tau = bound
	}
	return total / tau
}

// rhat returns the potential scale reduction factor of the (already split
// and transformed) chains in x, posterior's .rhat:
//
//	R̂ = √((B/W + n - 1) / n),
//
// with W the mean of the within-chain variances and B/n the variance of the
// chain means. R̂ is NaN if x contains a NaN or an infinity or is constant,
// or if it has a single draw per chain or a single chain.
func (ws *workspace) rhat(x matrix) float64 {
	if shouldReturnNA(x.data) {
		return math.NaN()
	}
	n, m := x.n, x.m
	if n < 2 || m < 2 {
		return math.NaN()
	}
	ws.means = grow(ws.means, m)
	ws.vars = grow(ws.vars, m)
	for j := 0; j < m; j++ {
		c := x.col(j)
		ws.means[j] = naiveMean(c)
		ws.vars[j] = colVarR(c, ws.means[j])
	}
	fn := float64(n)
	varBetween := fn * varR(ws.means)
	varWithin := meanR(ws.vars)
	return math.Sqrt((varBetween/varWithin + fn - 1) / fn)
}

// essQuantile returns the effective sample size of the empirical
// distribution function at the prob quantile, posterior's .ess_quantile:
// the ess of the split indicator chains I(x ≤ q̂_prob). For prob = 1 the
// quantile at (S-1/2)/S is used instead, with S the number of draws.
// ws.sorted must hold the sorted draws of x.
func (ws *workspace) essQuantile(x matrix, prob float64) float64 {
	if shouldReturnNA(x.data) {
		return math.NaN()
	}
	if prob == 1 {
		s := float64(len(x.data))
		prob = (s - 0.5) / s
	}
	q := quantileSorted(ws.sorted, prob)
	ws.tmp = grow(ws.tmp, len(x.data))
	for i, v := range x.data {
		if v <= q {
			ws.tmp[i] = 1
		} else {
			ws.tmp[i] = 0
		}
	}
	ind := matrix{data: ws.tmp, n: x.n, m: x.m}
	ws.split = grow(ws.split, len(x.data))
	return ws.ess(splitChains(ws.split, ind))
}
