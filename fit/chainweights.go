package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/loo"
)

// stackRows is the most training rows whose PSIS-LOO weighs a network's
// chains: the cost is rows × draws evaluations of the network (2,000 ×
// 1,250 draws of moons' 2-10-1 network: about a second), and the weights
// of K chains are fitted by K − 1 numbers, which 2,000 rows determine well.
// Above it, a simple random sample of the rows (seeded by the run's seed).
const stackRows = 2000

// stackMaxDraws is the most draws of a chain its PSIS-LOO uses: a longer
// chain is thinned evenly to at most this many. The cost of the weights is
// rows × draws network evaluations (moons: 800 × 4 × 980 took 2.5 s of
// CPU, as much as the sampling); 500 draws a chain keep the Pareto k̂
// threshold at 0.63 (min(1 − 1/log₁₀S, 0.7)) and, the draws being
// autocorrelated, most of a chain's effective draws.
const stackMaxDraws = 500

// stackMinDraws is the fewest kept draws a chain needs for stacking: each
// chain's PSIS-LOO fits a generalised Pareto tail to its M = min(S/5,
// 3√(S/r_eff)) largest importance ratios, 20 draws at S = 100; below it (an
// ensemble's one draw a member) the chains get equal weights.
const stackMinDraws = 100

// ChainWeights are the weights of a run's chains in its posterior
// predictive, the mixture Σₖ wₖ pₖ of the chains' own predictives.
type ChainWeights struct {
	Method string    // "stacking" or "equal"
	W      []float64 // one weight a chain, summing to 1
	// Why says why the weights are equal where stacking was asked for
	// (too few chains or draws); empty otherwise.
	Why string
	// With stacking: each chain's PSIS-LOO on the rows, and the training-LOO
	// objective Σᵢ log Σₖ wₖ exp(elpdᵢₖ) of the stacking weights and of
	// equal weights (stacking maximises it, so Stacked ≥ Equal).
	Chains         []*loo.Result
	Rows, N, Draws int // rows used, training rows, draws a chain
	Thin           int // every Thin-th draw of a chain was used
	// Stuck are the chains (0-based) whose draws never move: weight 0.
	Stuck          []int
	Stacked, Equal float64
	MaxK           float64 // largest Pareto k̂ over the chains and rows
	// HighK is the fraction of the chains' rows whose k̂ is above
	// loo.KThreshold of a chain's draws: their elpdᵢ are unreliable.
	HighK float64
}

// StackChains returns the stacking weights of the trace's chains (Yao,
// Vehtari and Gelman 2022): each chain's own PSIS-LOO of the training rows
// of m (its RowLogLik), at most stackRows of them (a random sample drawn
// with seed), and the weights maximising the LOO log score of their
// mixture (loo.StackChains). The chains are cut to the shortest and
// thinned evenly to at most stackMaxDraws draws. With fewer than 2 chains
// or fewer than stackMinDraws draws in a chain it returns equal weights and
// says why.
//
// A chain whose draws never move (a stuck chain) gets weight 0 and is
// named in Stuck: its PSIS-LOO would be the log density of one point,
// with every importance ratio alike, which can look better than a chain
// that explores; the others are stacked.
func StackChains(m langevin.Model, tr *langevin.Trace, seed uint64) (*ChainWeights, error) {
	var stuck, moving []int
	for k, ch := range tr.Draws {
		if chainStuck(ch, m.Dim()) {
			stuck = append(stuck, k)
		} else {
			moving = append(moving, k)
		}
	}
	if len(stuck) == 0 || len(moving) == 0 {
		return stackChains(m, tr, seed)
	}
	sub := &langevin.Trace{Names: tr.Names, Thin: tr.Thin}
	for _, k := range moving {
		sub.Draws = append(sub.Draws, tr.Draws[k])
	}
	var cw *ChainWeights
	if len(moving) == 1 {
		cw = &ChainWeights{Method: "stacking", W: []float64{1}, Chains: []*loo.Result{nil}}
	} else {
		var err error
		if cw, err = stackChains(m, sub, seed); err != nil {
			return nil, err
		}
	}
	w := make([]float64, len(tr.Draws))
	res := make([]*loo.Result, len(tr.Draws))
	for i, k := range moving {
		w[k] = cw.W[i]
		if i < len(cw.Chains) {
			res[k] = cw.Chains[i]
		}
	}
	if cw.Method != "stacking" { // too short: equal over the moving chains
		for _, k := range moving {
			w[k] = 1 / float64(len(moving))
		}
	}
	cw.W, cw.Chains, cw.Stuck = w, res, stuck
	return cw, nil
}

// chainStuck reports whether every draw of the chain has the same first d
// coordinates as its first draw.
func chainStuck(ch [][]float64, d int) bool {
	if len(ch) < 2 {
		return false
	}
	for _, r := range ch[1:] {
		for j, v := range r[:d] {
			if v != ch[0][j] {
				return false
			}
		}
	}
	return true
}

// stackChains is StackChains over chains that all move.
func stackChains(m langevin.Model, tr *langevin.Trace, seed uint64) (*ChainWeights, error) {
	K := len(tr.Draws)
	n := math.MaxInt
	for _, ch := range tr.Draws {
		n = min(n, len(ch))
	}
	cw := EqualChainWeights(K)
	rl, ok := m.(langevin.RowLogLiker)
	switch {
	case K < 2:
		cw.Why = "one chain"
		return cw, nil
	case n < stackMinDraws:
		cw.Why = fmt.Sprintf("a chain of %d kept draws, fewer than the %d a chain's PSIS-LOO needs", n, stackMinDraws)
		return cw, nil
	case !ok:
		cw.Why = "the model gives no pointwise log-likelihood"
		return cw, nil
	}
	N := m.Len()
	rows := make([]int, N)
	for i := range rows {
		rows[i] = i
	}
	if N > stackRows {
		rng := rand.New(rand.NewPCG(seed, 0x57ac4))
		rows = rng.Perm(N)[:stackRows]
		slices.Sort(rows)
	}
	d := m.Dim()
	thin := (n + stackMaxDraws - 1) / stackMaxDraws
	n = (n + thin - 1) / thin
	draws := make([][]float64, 0, K*n)
	for _, ch := range tr.Draws {
		for j := range n {
			draws = append(draws, ch[j*thin][:d])
		}
	}
	S := len(draws)
	const block = 256
	blocks := func(yield func(*mat.Dense, error) bool) {
		ll := mat.NewDense(min(block, len(rows)), S, nil)
		col := make([]float64, block)
		for lo := 0; lo < len(rows); lo += block {
			b := min(block, len(rows)-lo)
			rs := rows[lo : lo+b]
			for s, th := range draws {
				rl.RowLogLik(col[:b], th, rs)
				for j, v := range col[:b] {
					ll.Set(j, s, v)
				}
			}
			if !yield(ll.Slice(0, b, 0, S).(*mat.Dense), nil) {
				return
			}
		}
	}
	w, res, err := loo.StackChains(blocks, K)
	if err != nil {
		return nil, err
	}
	cw = &ChainWeights{Method: "stacking", W: w, Chains: res, Rows: len(rows), N: N, Draws: n, Thin: thin}
	lpd, _ := loo.ELPDMatrix(res...)
	cw.Stacked = StackingObjective(lpd, w)
	cw.Equal = StackingObjective(lpd, EqualChainWeights(K).W)
	kt, high, all := loo.KThreshold(n), 0, 0
	for _, r := range res {
		for _, p := range r.Pointwise {
			cw.MaxK = max(cw.MaxK, p.K)
			all++
			if p.K > kt {
				high++
			}
		}
	}
	cw.HighK = float64(high) / float64(max(all, 1))
	return cw, nil
}

// EqualChainWeights returns the weights 1/K of K chains.
func EqualChainWeights(K int) *ChainWeights {
	w := make([]float64, K)
	for k := range w {
		w[k] = 1 / float64(K)
	}
	return &ChainWeights{Method: "equal", W: w}
}

// StackingObjective is the LOO log score Σᵢ log Σₖ wₖ exp(lpdᵢₖ) of the
// mixture of K predictives with weights w, lpd the N × K pointwise
// elpd (loo.ELPDMatrix): what stacking maximises.
func StackingObjective(lpd mat.Matrix, w []float64) float64 {
	n, K := lpd.Dims()
	var f float64
	for i := range n {
		mx := math.Inf(-1)
		for k := range K {
			mx = max(mx, lpd.At(i, k))
		}
		var s float64
		for k := range K {
			s += w[k] * math.Exp(lpd.At(i, k)-mx)
		}
		f += mx + math.Log(s)
	}
	return f
}

// MixtureDraws returns draws whose equal-weight mixture is the weighted
// mixture Σₖ wₖ pₖ of the chains' predictives, to within 1/S in each
// weight: the trace's chains cut to the shortest (n draws, S = K·n in all),
// chain k given cₖ of the S places (wₖS rounded by largest remainders) and
// filling them with its draws ⌊j·n/cₖ⌋, j < cₖ (evenly spaced; repeated
// when cₖ > n). Each draw is the model's d parameters. Equal weights give
// the chains' draws as they are.
func MixtureDraws(tr *langevin.Trace, d int, w []float64) [][]float64 {
	K := len(tr.Draws)
	n := math.MaxInt
	for _, ch := range tr.Draws {
		n = min(n, len(ch))
	}
	if K == 0 || n == 0 || n == math.MaxInt {
		return nil
	}
	S := K * n
	c := make([]int, K)
	type rem struct {
		k int
		r float64
	}
	var rems []rem
	used := 0
	for k := range K {
		x := w[k] * float64(S)
		c[k] = int(math.Floor(x))
		used += c[k]
		rems = append(rems, rem{k, x - float64(c[k])})
	}
	slices.SortStableFunc(rems, func(a, b rem) int {
		switch {
		case a.r > b.r:
			return -1
		case a.r < b.r:
			return 1
		}
		return 0
	})
	for i := 0; used < S && i < len(rems); i++ {
		c[rems[i].k]++
		used++
	}
	out := make([][]float64, 0, S)
	for k, ch := range tr.Draws {
		for j := range c[k] {
			out = append(out, ch[j*n/c[k]][:d])
		}
	}
	return out
}

// String is the auto: line of the weights: the rule and its reason.
func (cw *ChainWeights) String() string {
	ws := make([]string, len(cw.W))
	for k, v := range cw.W {
		ws[k] = fmt.Sprintf("%.3f", v)
	}
	if cw.Method != "stacking" {
		if cw.Why != "" {
			return fmt.Sprintf("chain weights: equal (%s): %s", cw.Why, strings.Join(ws, " "))
		}
		return fmt.Sprintf("chain weights: equal ({chain-weights} equal): %s", strings.Join(ws, " "))
	}
	el := make([]string, len(cw.Chains))
	for k, r := range cw.Chains {
		if r == nil {
			el[k] = "–"
			continue
		}
		el[k] = fmt.Sprintf("%.1f", r.ELPD.Estimate)
	}
	rows := fmt.Sprintf("the %d training rows", cw.N)
	if cw.Rows < cw.N {
		rows = fmt.Sprintf("%d of the %d training rows (a random sample; at most %d: the cost is rows × draws network evaluations)", cw.Rows, cw.N, stackRows)
	}
	if len(cw.Stuck) > 0 {
		names := make([]string, len(cw.Stuck))
		for i, k := range cw.Stuck {
			names[i] = fmt.Sprint(k + 1)
		}
		rows += fmt.Sprintf("; chain %s gets weight 0: its draws never move (a stuck chain, whose PSIS-LOO would be one point's)", strings.Join(names, ", "))
	}
	if cw.Thin > 1 {
		rows += fmt.Sprintf(" and every %d-th draw of a chain (%d draws; at most %d)", cw.Thin, cw.Draws, stackMaxDraws)
	}
	return fmt.Sprintf("chain weights: stacking %s (elpd_loo of each chain %s; Pareto k̂ up to %.2f, above %.2f on %.1f%% of the chains' rows; LOO log score of the mixture %.1f, equal weights %.1f) — by each chain's own PSIS-LOO on %s (Yao, Vehtari & Gelman 2022): a network's chains sit at different modes and do not mix, so equal weights would count a mode by the chains that landed in it; {chain-weights} equal pools them as they are",
		strings.Join(ws, " "), strings.Join(el, " "), cw.MaxK, loo.KThreshold(cw.Draws), 100*cw.HighK, cw.Stacked, cw.Equal, rows)
}
