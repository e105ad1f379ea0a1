package diag

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// ESSBulk returns the bulk effective sample size of the draws in chains:
// the effective sample size (see ESSBasic) of the rank-normalized split
// chains. Every draw of the split chains is replaced by
//
//	z = Φ⁻¹((r - 3/8) / (S + 1/4)),
//
// where r is its rank among all S draws (ties get their average rank), so
// ESSBulk is well defined for heavy-tailed distributions and invariant under
// monotone transformations of the draws.
//
// ESSBulk returns NaN if any draw is NaN, if the split chains are constant
// or have fewer than three draws each. Infinite draws are ranked like any
// other value.
func ESSBulk(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	return ws.essBulk(x)
}

func (ws *workspace) essBulk(x matrix) float64 {
	if hasNaN(x.data) {
		return math.NaN()
	}
	s := splitChains(ws.split, x)
	ws.split = s.data
	ws.zScale(s.data)
	return ws.ess(s)
}

// ESSTail returns the tail effective sample size of the draws in chains:
// the smaller of the effective sample sizes of the split indicator chains
// I(x ≤ q̂₀.₀₅) and I(x ≤ q̂₀.₉₅), where q̂ₚ is the type 7 sample quantile
// of all draws (see Quantile). It estimates how well the 5% and 95%
// quantiles are determined.
//
// ESSTail returns NaN if any draw is NaN or infinite, if all the draws are
// constant, or if an indicator chain set is constant (for example for a
// discrete parameter whose 5% quantile is its minimum).
func ESSTail(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	if shouldReturnNA(x.data) {
		return math.NaN()
	}
	ws.sorted = sortedCopy(ws.sorted, x.data)
	return ws.essTail(x)
}

// essTail returns ESSTail of x. ws.sorted must hold the sorted draws of x.
func (ws *workspace) essTail(x matrix) float64 {
	if shouldReturnNA(x.data) {
		return math.NaN()
	}
	lo := ws.essQuantile(x, 0.05)
	hi := ws.essQuantile(x, 0.95)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	return math.Min(lo, hi)
}

// ESSBasic returns the effective sample size of the split chains, without
// rank normalization (posterior's ess_basic with split = TRUE). It is the
// effective sample size for estimating the mean and equals ESSMean.
//
// Each chain is split into its first and second halves; with an odd number
// of draws the middle draw is dropped. For the resulting m chains of n draws
// let γ_{j,t} be the biased lag-t autocovariance of chain j,
// W = n/(n-1) mean_j γ_{j,0} and var⁺ = (n-1)/n W + var(chain means). Then
//
//	ρ̂_t = 1 - (W - mean_j γ_{j,t}) / var⁺,
//
// which Geyer's initial positive and initial monotone sequence estimators
// truncate and smooth into τ̂ = -1 + 2 ∑_{t<K} ρ̂_t + ρ̂_K (K the last even
// lag reached, the last term kept only if positive), and
//
//	ESS = nm / max(τ̂, 1/log10(nm)).
//
// The result may exceed the number of draws for antithetic chains.
//
// ESSBasic returns NaN if any draw is NaN or infinite, if the split chains
// are constant (to within an absolute 2⁻⁵²) or have fewer than three draws
// each. As in posterior, with three to five draws per split chain the
// autocorrelation sum is not computed and the result is nm/2.
func ESSBasic(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	return ws.essMean(x)
}

// ESSMean returns the effective sample size for the mean of the draws in
// chains (posterior's ess_mean). It is the same as ESSBasic.
func ESSMean(chains [][]float64) float64 {
	return ESSBasic(chains)
}

func (ws *workspace) essMean(x matrix) float64 {
	s := splitChains(ws.split, x)
	ws.split = s.data
	return ws.ess(s)
}

// RHat returns the rank-normalized split R̂ of the draws in chains
// (posterior's rhat): the larger of the bulk R̂, RHatBasic computed on
// the rank-normalized split chains (see ESSBulk), and the tail R̂, the same
// computed on the folded draws |x - median(x)|.
//
// RHat returns NaN if any draw is NaN, if all the draws are equal, or if
// there is only one draw per chain. Infinite draws are ranked like any other
// value, but the folded draws are NaN (hence RHat is NaN) if the median is
// infinite.
func RHat(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	if hasNaN(x.data) {
		return math.NaN()
	}
	ws.sorted = sortedCopy(ws.sorted, x.data)
	return ws.rhatRank(x)
}

// rhatRank returns RHat of x. ws.sorted must hold the sorted draws of x.
func (ws *workspace) rhatRank(x matrix) float64 {
	if hasNaN(x.data) {
		return math.NaN()
	}
	s := splitChains(ws.split, x)
	ws.split = s.data
	ws.zScale(s.data)
	bulk := ws.rhat(s)
	if math.IsNaN(bulk) {
		return math.NaN()
	}

	med := medianSorted(ws.sorted)
	fold := grow(ws.tmp, len(x.data))
	ws.tmp = fold // zScale reuses it for the ranks once fold is split.
	for i, v := range x.data {
		fold[i] = math.Abs(v - med)
	}
	if hasNaN(fold) {
		return math.NaN()
	}
	s = splitChains(ws.split, matrix{data: fold, n: x.n, m: x.m})
	ws.split = s.data
	ws.zScale(s.data)
	tail := ws.rhat(s)
	if math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// RHatBasic returns the classic split R̂ of the draws in chains, without
// rank normalization (posterior's rhat_basic with split = TRUE). With m
// split chains of n draws, W the mean of the within-chain variances and B/n
// the variance of the chain means,
//
//	R̂ = √((B/W + n - 1) / n).
//
// RHatBasic returns NaN if any draw is NaN or infinite, if the split chains
// are constant (to within an absolute 2⁻⁵²), or if there is only one draw
// per chain.
func RHatBasic(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	s := splitChains(ws.split, x)
	return ws.rhat(s)
}

// MCSEMean returns the Monte Carlo standard error of the mean of the draws
// in chains, sd/√ESSMean, with sd the standard deviation of all draws
// pooled. It is NaN whenever ESSMean is.
func MCSEMean(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok {
		return math.NaN()
	}
	return ws.mcseMean(x)
}

func (ws *workspace) mcseMean(x matrix) float64 {
	sd := math.Sqrt(varR(x.data))
	return sd / math.Sqrt(ws.essMean(x))
}

// MCSEQuantile returns the Monte Carlo standard error of the p quantile of
// the draws in chains (posterior's mcse_quantile). With S draws, E the
// effective sample size of the split indicator chains I(x ≤ q̂ₚ) and
// a₁ < a₂ the 0.1586553 and 0.8413447 quantiles of Beta(Ep+1, E(1-p)+1),
// it is half the distance between the ⌊a₁S⌋-th and ⌈a₂S⌉-th smallest draws
// (clamped to 1 and S).
//
// MCSEQuantile returns NaN if p is outside [0, 1] or the effective sample
// size is NaN (see ESSTail for when that happens).
func MCSEQuantile(chains [][]float64, p float64) float64 {
	if !(0 <= p && p <= 1) {
		return math.NaN()
	}
	var ws workspace
	x, ok := ws.load(chains)
	if !ok || shouldReturnNA(x.data) {
		return math.NaN()
	}
	ws.sorted = sortedCopy(ws.sorted, x.data)
	ess := ws.essQuantile(x, p)
	if math.IsNaN(ess) {
		return math.NaN()
	}
	a1 := mathext.InvRegIncBeta(ess*p+1, ess*(1-p)+1, 0.1586553)
	a2 := mathext.InvRegIncBeta(ess*p+1, ess*(1-p)+1, 0.8413447)
	s := len(ws.sorted)
	fs := float64(s)
	i1 := max(int(math.Floor(a1*fs)), 1)
	i2 := min(int(math.Ceil(a2*fs)), s)
	return (ws.sorted[i2-1] - ws.sorted[i1-1]) / 2
}

// Quantile returns the type 7 sample quantile of all the draws in chains
// pooled (posterior's quantile2, R's default quantile): with the S draws
// sorted as x₍₁₎ ≤ … ≤ x₍S₎ and h = (S-1)p + 1,
//
//	Q(p) = x₍⌊h⌋₎ + (h - ⌊h⌋)(x₍⌊h⌋₊₁₎ - x₍⌊h⌋₎).
//
// Quantile returns NaN if any draw is NaN, if there are no draws, or if p
// is outside [0, 1] (as R, values within 100 machine epsilons outside are
// clamped).
func Quantile(chains [][]float64, p float64) float64 {
	const fuzz = 100 * epsilon
	if !(-fuzz <= p && p <= 1+fuzz) {
		return math.NaN()
	}
	p = math.Max(0, math.Min(1, p))
	var ws workspace
	x, ok := ws.load(chains)
	if !ok || hasNaN(x.data) {
		return math.NaN()
	}
	ws.sorted = sortedCopy(ws.sorted, x.data)
	return quantileSorted(ws.sorted, p)
}

// hasNonFinite reports whether x holds a NaN or an infinity.
func hasNonFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// Autocorrelation returns the autocorrelation of the series x at lags
// 0, ..., len(x)-1, computed by FFT (posterior's autocorrelation):
//
//	ρ_t = ∑_{i=1}^{N-t} (x_i - x̄)(x_{i+t} - x̄) / ∑_{i=1}^{N} (x_i - x̄)².
//
// The estimates use the biased (divide by N) autocovariances recommended by
// Geyer (1992). If dst is nil a new slice is allocated, otherwise dst must
// have the length of x and is overwritten. All the returned values are NaN
// if x is constant, has fewer than two values, or holds a NaN or an
// infinity.
func Autocorrelation(x []float64, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	} else if len(dst) != len(x) {
		panic("diag: destination length mismatch")
	}
	if len(x) < 2 || hasNonFinite(x) || allEqual(x) {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return dst
	}
	var ws workspace
	clear(dst)
	ws.autocovariance(dst, x)
	ac0 := dst[0]
	for i := range dst {
		dst[i] /= ac0
	}
	return dst
}
