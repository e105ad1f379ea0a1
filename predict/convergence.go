package predict

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/diag"
)

// Convergence judges a run in function space (as Izmailov et al. 2021 and
// the ProbAI lecture ask for Bayesian neural networks, whose weights are not
// identified: permuting hidden units leaves the function unchanged, so R̂ of
// single weights flags chains that agree on every prediction). At each of n
// held-out points x it takes the predictive quantity of every draw — the
// probability pₛ(y = k|x) of the class k the model average favours for a
// classifier, fₛ(x) for a regressor — and computes its rank-normalised split
// R̂ and bulk-ESS over the chains ([diag.RHat], [diag.ESSBulk]), and the same
// of each chain alone, split in halves (Chains).
type Convergence struct {
	Points     int     // held-out points
	MaxRHat    float64 // largest R̂ over the points
	WorstRHat  int     // the point (row of X) with the largest R̂
	MinESS     float64 // smallest bulk-ESS over the points
	WorstESS   int     // the point with the smallest bulk-ESS
	Constant   int     // points whose quantity is constant over the draws (R̂ and ESS undefined; skipped)
	MedianRHat float64
	// Chains holds each chain's own split-R̂ and bulk-ESS of the same
	// quantities: whether the chain is stationary and long enough where it
	// is, whatever the other chains do. Across chains at different modes
	// of a network, MaxRHat measures how far the modes' predictions differ;
	// within a chain it measures convergence.
	Chains []ChainConvergence
}

// ChainConvergence is the function-space convergence of one chain alone:
// rank-normalised split-R̂ of its two halves and bulk-ESS ([diag.RHat] and
// [diag.ESSBulk] of the one chain), summarised over the points where the
// quantity is not constant (NaN when it is constant at every point).
type ChainConvergence struct {
	MedianRHat, MaxRHat float64
	MedianESS, MinESS   float64
	WorstRHat, WorstESS int // the points (rows of X) of MaxRHat and MinESS
}

// String prints the verdict in one line.
func (c *Convergence) String() string {
	return fmt.Sprintf("function space (%d held-out points): max R̂ %.3f (point %d), median R̂ %.3f, min bulk-ESS %.0f (point %d)",
		c.Points, c.MaxRHat, c.WorstRHat+1, c.MedianRHat, c.MinESS, c.WorstESS+1)
}

// ClassConvergence returns the function-space convergence of classifier c
// over chains[chain][draw] (each draw a parameter vector) at the rows of X.
// It works in blocks of rows ([BlockRows]), so its memory does not grow
// with draws × rows.
func ClassConvergence(c Classifier, chains [][][]float64, X *mat.Dense) (*Convergence, error) {
	k := c.NumClasses()
	// The choice of each point's class evaluates every draw there; its
	// probabilities are kept (cache[s·nb·k + i·k + j]) for the R̂ and ESS,
	// not computed again.
	var cache []float64
	return convergence(chains, X, k, func(s int, _ []float64, _ *mat.Dense, nb int, _ *mat.Dense, dst []float64, pick []int) {
		p := cache[s*nb*k : (s+1)*nb*k]
		for i := 0; i < nb; i++ {
			dst[i] = p[i*k+pick[i]]
		}
	}, func(Xb *mat.Dense, nb int, draws [][]float64, scratch *mat.Dense, pick []int) {
		// The class with the largest mean probability over the draws.
		if need := len(draws) * nb * k; cap(cache) < need {
			cache = make([]float64, need)
		}
		cache = cache[:len(draws)*nb*k]
		sum := make([]float64, nb*k)
		for s, th := range draws {
			c.ClassProbs(th, Xb, scratch)
			p := cache[s*nb*k : (s+1)*nb*k]
			for i := 0; i < nb; i++ {
				for j := 0; j < k; j++ {
					v := scratch.At(i, j)
					p[i*k+j] = v
					sum[i*k+j] += v
				}
			}
		}
		for i := 0; i < nb; i++ {
			pick[i] = argmax(sum[i*k : (i+1)*k])
		}
	})
}

// RegressConvergence is ClassConvergence for the regression function fₛ(x).
func RegressConvergence(r Regressor, chains [][][]float64, X *mat.Dense) (*Convergence, error) {
	return convergence(chains, X, 1, func(_ int, th []float64, Xb *mat.Dense, nb int, _ *mat.Dense, dst []float64, _ []int) {
		r.RegressionMean(th, Xb, dst[:nb])
	}, nil)
}

func convergence(chains [][][]float64, X *mat.Dense, width int,
	eval func(s int, th []float64, Xb *mat.Dense, nb int, scratch *mat.Dense, dst []float64, pick []int),
	choose func(Xb *mat.Dense, nb int, draws [][]float64, scratch *mat.Dense, pick []int)) (*Convergence, error) {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return nil, fmt.Errorf("predict: function-space convergence: no draws")
	}
	nd := len(chains[0])
	for c, ch := range chains {
		if len(ch) != nd {
			return nil, fmt.Errorf("predict: function-space convergence: chain %d has %d draws, chain 1 has %d", c+1, len(ch), nd)
		}
	}
	var all [][]float64
	for _, ch := range chains {
		all = append(all, ch...)
	}
	n, cols := X.Dims()
	S := len(all)
	res := &Convergence{Points: n, MaxRHat: math.Inf(-1), MinESS: math.Inf(1), WorstRHat: -1, WorstESS: -1}
	block := BlockRows(S, width, n)  // ClassConvergence keeps S × block × width probabilities
	vals := make([]float64, S*block) // vals[i*S + s]
	f := make([]float64, block)
	pick := make([]int, block)
	per := make([][]float64, len(chains))
	var rhats []float64
	one := make([][]float64, 1)
	cr := make([][]float64, len(chains)) // per chain: split-R̂ at each point
	ce := make([][]float64, len(chains)) // per chain: bulk-ESS at each point
	res.Chains = make([]ChainConvergence, len(chains))
	for c := range res.Chains {
		res.Chains[c] = ChainConvergence{MaxRHat: math.Inf(-1), MinESS: math.Inf(1), WorstRHat: -1, WorstESS: -1}
	}
	for lo := 0; lo < n; lo += block {
		hi := min(n, lo+block)
		nb := hi - lo
		Xb := X.Slice(lo, hi, 0, cols).(*mat.Dense)
		var scratch *mat.Dense
		if width > 1 {
			scratch = mat.NewDense(nb, width, nil)
		}
		if choose != nil {
			choose(Xb, nb, all, scratch, pick)
		}
		for s, th := range all {
			eval(s, th, Xb, nb, scratch, f, pick)
			for i := 0; i < nb; i++ {
				vals[i*S+s] = f[i]
			}
		}
		for i := 0; i < nb; i++ {
			v := vals[i*S : (i+1)*S]
			for c := range chains {
				per[c] = v[c*nd : (c+1)*nd]
			}
			for c := range chains {
				one[0] = per[c]
				r, e := diag.RHat(one), diag.ESSBulk(one)
				if math.IsNaN(r) || math.IsNaN(e) {
					continue
				}
				cr[c], ce[c] = append(cr[c], r), append(ce[c], e)
				cc := &res.Chains[c]
				if r > cc.MaxRHat {
					cc.MaxRHat, cc.WorstRHat = r, lo+i
				}
				if e < cc.MinESS {
					cc.MinESS, cc.WorstESS = e, lo+i
				}
			}
			rh, ess := diag.RHat(per), diag.ESSBulk(per)
			if math.IsNaN(rh) || math.IsNaN(ess) {
				res.Constant++
				continue
			}
			rhats = append(rhats, rh)
			if rh > res.MaxRHat {
				res.MaxRHat, res.WorstRHat = rh, lo+i
			}
			if ess < res.MinESS {
				res.MinESS, res.WorstESS = ess, lo+i
			}
		}
	}
	for c := range res.Chains {
		cc := &res.Chains[c]
		if len(cr[c]) == 0 {
			*cc = ChainConvergence{MedianRHat: math.NaN(), MaxRHat: math.NaN(), MedianESS: math.NaN(), MinESS: math.NaN(), WorstRHat: -1, WorstESS: -1}
			continue
		}
		sortFloats(cr[c])
		sortFloats(ce[c])
		cc.MedianRHat, cc.MedianESS = cr[c][len(cr[c])/2], ce[c][len(ce[c])/2]
	}
	if len(rhats) == 0 {
		res.MaxRHat, res.MinESS, res.MedianRHat = math.NaN(), math.NaN(), math.NaN()
		return res, nil
	}
	sortFloats(rhats)
	res.MedianRHat = rhats[len(rhats)/2]
	return res, nil
}

func sortFloats(v []float64) { sort.Float64s(v) }
