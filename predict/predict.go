// Package predict summarises posterior predictive distributions from draws
// θ₁, …, θ_S and scores them on test data.
//
// For classification, with pₛ(y|x) = p(y | x, θₛ) the class probabilities of
// draw s, the Bayesian model average is p̄(y|x) = (1/S) Σₛ pₛ(y|x), and
//
//	total entropy     H[p̄]               = −Σ_k p̄ₖ log p̄ₖ
//	expected entropy  E[H] = (1/S) Σₛ H[pₛ]  (aleatoric)
//	mutual information I = H[p̄] − E[H] ≥ 0  (epistemic: disagreement of the draws)
//
// in nats. For regression, with fₛ(x) the predictive mean of draw s and σₛ²
// its noise variance, the predictive distribution is the mixture
// (1/S) Σₛ N(fₛ(x), σₛ²); intervals are given for the function f (without
// observation noise) and for a new observation y (with it).
//
// Models take part through two small interfaces, Classifier and Regressor.
// Labels are class indices 0, …, K−1 stored as float64; for two classes −1
// is read as class 0.
package predict

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Classifier is a model that gives class probabilities.
type Classifier interface {
	// NumClasses is the number of classes K.
	NumClasses() int
	// ClassProbs writes p(y = k | xᵢ, θ) into row i, column k of dst, which
	// has one row per row of X and K columns. Classify calls it from
	// several goroutines at once, on disjoint blocks of rows.
	ClassProbs(theta []float64, X *mat.Dense, dst *mat.Dense)
}

// Regressor is a model with a real response y = f(x; θ) + noise.
type Regressor interface {
	// RegressionMean writes the predictive means f(xᵢ; θ) of the rows of X
	// into dst (one per row).
	RegressionMean(theta []float64, X *mat.Dense, dst []float64)
	// NoiseVar returns the observation noise variance σ² at θ.
	NoiseVar(theta []float64) float64
}

// PointNoise is a [Regressor] whose noise variance depends on the input (a
// heteroscedastic network): [Regress] and [ScoreRegression] then use
// σₛ²(xᵢ) of each draw at each row instead of NoiseVar(θₛ).
type PointNoise interface {
	// NoiseVars writes σ²(xᵢ) at θ of the rows of X into dst (one per row).
	NoiseVars(theta []float64, X *mat.Dense, dst []float64)
}

// noiseVars writes draw θ's noise variance at the rows of X into dst: r's
// NoiseVars when it has them, else NoiseVar(θ) on every row.
func noiseVars(r Regressor, theta []float64, X *mat.Dense, dst []float64) {
	if pn, ok := r.(PointNoise); ok {
		pn.NoiseVars(theta, X, dst)
		return
	}
	v := r.NoiseVar(theta)
	for i := range dst {
		dst[i] = v
	}
}

// Classification is the posterior predictive summary of a classifier at n
// test points.
type Classification struct {
	Probs *mat.Dense // n×K: p̄(y = k | xᵢ), the model average
	// Lower and Upper (n×K) are the equal-tailed credible intervals of
	// pₛ(y = k | xᵢ) at the level of ClassifyOptions.Level; nil when no
	// level was asked for.
	Lower, Upper *mat.Dense
	Entropy      []float64 // total predictive entropy H[p̄] (nats)
	Expected     []float64 // expected entropy E[H[pₛ]] (aleatoric)
	MutualInfo   []float64 // Entropy − Expected (epistemic)
	// (Entropy, Expected and MutualInfo are nil with ProbsOnly.)
}

// ClassifyOptions are the settings of Classify.
type ClassifyOptions struct {
	// Level of the credible intervals of each probability, in (0, 1); 0
	// computes none (they need S·n·K numbers of memory).
	Level float64
	// ProbsOnly computes only Probs (the model average), not the
	// entropies: enough for accuracy and log predictive density, and about
	// half the work for two classes.
	ProbsOnly bool
}

// Classify returns the posterior predictive summary of c at the rows of X
// over the draws. It returns an error when there are no draws or the level
// is not in [0, 1).
func Classify(c Classifier, draws [][]float64, X *mat.Dense, opt ClassifyOptions) (*Classification, error) {
	if len(draws) == 0 {
		return nil, fmt.Errorf("predict: no draws")
	}
	if !(opt.Level >= 0 && opt.Level < 1) {
		return nil, fmt.Errorf("predict: credible level %v: expected a number in (0, 1), or 0 for none", opt.Level)
	}
	n, _ := X.Dims()
	k := c.NumClasses()
	res := &Classification{Probs: mat.NewDense(n, k, nil)}
	if !opt.ProbsOnly {
		res.Entropy, res.Expected, res.MutualInfo = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	// Blocks of rows in parallel, each over all draws in order: every
	// row's sums are formed in the same order whatever the number of
	// workers, so the result is the same bit for bit.
	_, cols := X.Dims()
	forBlocks(n, func(lo, hi int) {
		Xb := X.Slice(lo, hi, 0, cols).(*mat.Dense)
		pb := mat.NewDense(hi-lo, k, nil)
		sum := res.Probs.Slice(lo, hi, 0, k).(*mat.Dense)
		var prev []float64
		for _, th := range draws {
			if !sameDraw(th, prev) {
				c.ClassProbs(th, Xb, pb)
			}
			prev = th
			sum.Add(sum, pb)
			for i := 0; i < hi-lo && !opt.ProbsOnly; i++ {
				res.Expected[lo+i] += entropy(pb.RawRowView(i))
			}
		}
	})
	S := float64(len(draws))
	res.Probs.Scale(1/S, res.Probs)
	for i := 0; i < n && !opt.ProbsOnly; i++ {
		res.Expected[i] /= S
		res.Entropy[i] = entropy(res.Probs.RawRowView(i))
		res.MutualInfo[i] = max(0, res.Entropy[i]-res.Expected[i])
	}
	if opt.Level > 0 {
		// A second pass over the draws, in blocks of rows, so that the
		// S×block×K probabilities stay within BlockBudget.
		res.Lower, res.Upper = mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
		v := make([]float64, len(draws))
		a := (1 - opt.Level) / 2
		_, cols := X.Dims()
		block := BlockRows(len(draws), k, n)
		all := make([]float64, len(draws)*block*k)
		for lo := 0; lo < n; lo += block {
			hi := min(n, lo+block)
			nb := hi - lo
			Xb := X.Slice(lo, hi, 0, cols).(*mat.Dense)
			pb := mat.NewDense(nb, k, nil)
			var prev []float64
			for s, th := range draws {
				if !sameDraw(th, prev) {
					c.ClassProbs(th, Xb, pb)
				}
				prev = th
				copy(all[s*nb*k:(s+1)*nb*k], pb.RawMatrix().Data)
			}
			for i := 0; i < nb; i++ {
				for j := 0; j < k; j++ {
					for s := range draws {
						v[s] = all[s*nb*k+i*k+j]
					}
					sort.Float64s(v)
					res.Lower.Set(lo+i, j, quantile(v, a))
					res.Upper.Set(lo+i, j, quantile(v, 1-a))
				}
			}
		}
	}
	return res, nil
}

// sameDraw reports whether th is prev itself (the same backing array and
// length): a weighted mixture's draws repeat a chain's draws in a row
// (fit.MixtureDraws), whose predictions are then not computed again.
func sameDraw(th, prev []float64) bool {
	return len(th) > 0 && len(th) == len(prev) && &th[0] == &prev[0]
}

// entropy returns −Σ pₖ log pₖ (0 log 0 = 0).
func entropy(p []float64) float64 {
	var h float64
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}

// quantile returns the p-quantile of sorted v by linear interpolation
// between order statistics (R's type 7).
func quantile(v []float64, p float64) float64 {
	h := p * float64(len(v)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (h-lo)*(v[i+1]-v[i])
}

// Regression is the posterior predictive summary of a regressor at n test
// points.
type Regression struct {
	Mean []float64 // (1/S) Σₛ fₛ(xᵢ)
	// Lower and Upper bound the equal-tailed credible interval of f(xᵢ)
	// (epistemic only); ObsLower and ObsUpper that of a new observation,
	// the quantiles of the mixture (1/S) Σₛ N(fₛ(xᵢ), σₛ²).
	Lower, Upper       []float64
	ObsLower, ObsUpper []float64
	Level              float64
}

// Regress returns the posterior predictive summary of r at the rows of X over
// the draws, with credible intervals at the given level in (0, 1).
func Regress(r Regressor, draws [][]float64, X *mat.Dense, level float64) (*Regression, error) {
	if len(draws) == 0 {
		return nil, fmt.Errorf("predict: no draws")
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("predict: credible level %v: expected a number in (0, 1)", level)
	}
	n, cols := X.Dims()
	S := len(draws)
	sd := make([]float64, S)
	_, pointNoise := r.(PointNoise)
	for s, th := range draws {
		if !pointNoise {
			sd[s] = math.Sqrt(r.NoiseVar(th))
		}
	}
	res := &Regression{
		Mean: make([]float64, n), Lower: make([]float64, n), Upper: make([]float64, n),
		ObsLower: make([]float64, n), ObsUpper: make([]float64, n), Level: level,
	}
	a := (1 - level) / 2
	v := make([]float64, S)
	mu := make([]float64, S)
	// Rows in blocks, so that the S×block predictions stay within
	// BlockBudget numbers whatever S·n.
	block := BlockRows(S, 1, n)
	f := make([]float64, S*block)
	var v2 []float64 // S × block: each draw's σ²(x) (PointNoise)
	if pointNoise {
		v2 = make([]float64, S*block)
	}
	for lo := 0; lo < n; lo += block {
		hi := min(n, lo+block)
		nb := hi - lo
		Xb := X.Slice(lo, hi, 0, cols).(*mat.Dense)
		for s, th := range draws {
			if s > 0 && sameDraw(th, draws[s-1]) {
				copy(f[s*nb:(s+1)*nb], f[(s-1)*nb:s*nb])
				if pointNoise {
					copy(v2[s*nb:(s+1)*nb], v2[(s-1)*nb:s*nb])
				}
				continue
			}
			r.RegressionMean(th, Xb, f[s*nb:(s+1)*nb])
			if pointNoise {
				noiseVars(r, th, Xb, v2[s*nb:(s+1)*nb])
			}
		}
		for i := 0; i < nb; i++ {
			var m float64
			for s := range draws {
				v[s] = f[s*nb+i]
				m += v[s]
			}
			res.Mean[lo+i] = m / float64(S)
			copy(mu, v)
			if pointNoise {
				for s := range draws {
					sd[s] = math.Sqrt(v2[s*nb+i])
				}
			}
			sort.Float64s(v)
			res.Lower[lo+i], res.Upper[lo+i] = quantile(v, a), quantile(v, 1-a)
			res.ObsLower[lo+i] = mixtureQuantile(mu, sd, a)
			res.ObsUpper[lo+i] = mixtureQuantile(mu, sd, 1-a)
		}
	}
	return res, nil
}

// BlockBudget is the number of float64 values (32 MiB) that [Regress] and
// [Classify] hold for the per-draw predictions of one block of rows: they
// process the rows in blocks of [BlockRows], so their memory is O(n) for the
// results plus this, independent of draws × rows.
const BlockBudget = 1 << 22

var blockBudget = BlockBudget // lowered by tests

// parallelRows is the fewest rows worth a goroutine of their own.
const parallelRows = 256

// forBlocks calls fn on contiguous blocks [lo, hi) that cover 0…n−1, at
// most GOMAXPROCS of them at once, and returns when all are done.
func forBlocks(n int, fn func(lo, hi int)) {
	w := max(1, min(runtime.GOMAXPROCS(0), n/parallelRows))
	if w == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for b := range w {
		lo, hi := b*n/w, (b+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// BlockRows returns the rows per block for S draws and width values per row
// and draw, at most n and at least 1: ⌊BlockBudget/(S·width)⌋.
func BlockRows(S, width, n int) int {
	return max(1, min(n, blockBudget/max(1, S*width)))
}

// mixtureQuantile returns the p-quantile of (1/S) Σₛ N(μₛ, σₛ²): the root
// of F(q) = p, F the mixture's CDF, by Newton's method with F's density,
// safeguarded by bisection (a step that leaves the bracket [lo, hi] of the
// root, or a zero density, bisects instead), to a relative 1e-12. The first
// guess is the normal quantile with the mixture's mean and variance.
// Components with σₛ = 0 are point masses (F then has jumps and no density
// there: bisection finds the jump). About 6 evaluations of F instead of
// bisection's 45 (fit's TestGap1DBands: 24 → 4 s of CPU at 20,000 draws).
func mixtureQuantile(mu, sd []float64, p float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	var m1, m2 float64
	for s, m := range mu {
		lo = min(lo, m-9*sd[s])
		hi = max(hi, m+9*sd[s])
		m1 += m
		m2 += m*m + sd[s]*sd[s]
	}
	n := float64(len(mu))
	m1 /= n
	// F(q) and its density f(q).
	cdf := func(q float64) (F, f float64) {
		for s, m := range mu {
			if sd[s] == 0 {
				if q >= m {
					F++
				}
				continue
			}
			z := (q - m) / sd[s]
			F += 0.5 * math.Erfc(-z/math.Sqrt2)
			f += math.Exp(-0.5*z*z) / sd[s]
		}
		return F / n, f / (n * math.Sqrt(2*math.Pi))
	}
	q := m1 + math.Sqrt(max(0, m2/n-m1*m1))*math.Sqrt2*math.Erfinv(2*p-1)
	if !(q > lo && q < hi) {
		q = 0.5 * (lo + hi)
	}
	for it := 0; it < 100; it++ {
		F, f := cdf(q)
		if F < p {
			lo = q
		} else {
			hi = q
		}
		tol := 1e-12 * max(1, math.Abs(lo)+math.Abs(hi))
		if hi-lo <= tol {
			break
		}
		next := q - (F-p)/f
		if !(f > 0) || !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		} else if math.Abs(next-q) <= tol {
			return next
		}
		q = next
	}
	return q
}
