package fit_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/loo"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

// chainTrace makes a trace of chains from draw functions, n draws each.
func chainTrace(d, n int, chains ...func(t int, dst []float64)) *langevin.Trace {
	tr := &langevin.Trace{Dim: d}
	for _, f := range chains {
		ch := make([][]float64, n)
		its := make([]int, n)
		for t := range ch {
			ch[t] = make([]float64, d)
			f(t, ch[t])
			its[t] = t + 1
		}
		tr.Draws = append(tr.Draws, ch)
		tr.Iters = append(tr.Iters, its)
	}
	return tr
}

// around returns a chain of independent draws centre + sd·ξ: stationary and
// mixing, as a chain at its mode is.
func around(centre []float64, sd float64, rng *rand.Rand) func(int, []float64) {
	return func(_ int, dst []float64) {
		for j := range dst {
			dst[j] = centre[j] + sd*rng.NormFloat64()
		}
	}
}

// TestPerChainCheck runs the function-space check of PrintMLPPredictive on
// constructed chains of a 2-8-1 network on moons, 400 draws each. Four
// chains, each independent draws around its own mode (centres apart by 0.5
// prior sd in every weight), pass the per-chain check (split-R̂ ≤ 1.1,
// bulk-ESS ≥ 100) and the run prints no warning, although R̂ across the
// chains is far above 1.1 (what the check before would have warned about).
// Then chain 4 is broken twice: stuck (one draw repeated), and drifting (a
// random walk whose step is 10× the others' sd, what a step far too large
// for the curvature does before it diverges); each time chain 4, and only
// it, is named.
func TestPerChainCheck(t *testing.T) {
	all, err := data.Moons(300, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.TrainTest(all, 0.2, 1)
	m, err := model.NewMLP(train.X, train.Y, model.MLPOptions{Hidden: []int{8}, Likelihood: model.LikBernoulli, FanIn: true, PriorScale: []float64{1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	d := m.Dim()
	base := make([]float64, d)
	m.FanInInit(base, rng)
	centre := func(c int) []float64 {
		v := make([]float64, d)
		for j := range v {
			v[j] = base[j] + 0.5*float64(c)*math.Pow(-1, float64(j))
		}
		return v
	}
	const n = 400
	run := func(broken func(int, []float64)) string {
		chains := []func(int, []float64){around(centre(0), 0.05, rng), around(centre(1), 0.05, rng), around(centre(2), 0.05, rng)}
		if broken == nil {
			broken = around(centre(3), 0.05, rng)
		}
		tr := chainTrace(d, n, append(chains, broken)...)
		var buf bytes.Buffer
		fit.PrintMLPPredictive(&buf, m, nil, tr, nil, test, nil, fit.MLPPredictiveOptions{ChainWeights: "equal"})
		return buf.String()
	}
	out := run(nil)
	if strings.Contains(out, "warning:") || strings.Count(out, "  ok\n") != 4 {
		t.Errorf("four stationary chains: want no warning and 4 chains ok:\n%s", out)
	}
	if !strings.Contains(out, "between chains: max R̂ ") {
		t.Errorf("no between-chain line:\n%s", out)
	}
	var between float64
	if i := strings.Index(out, "between chains: max R̂ "); i >= 0 {
		if _, err := fmt.Sscan(out[i+len("between chains: max R̂ "):], &between); err != nil || !(between > 1.1) {
			t.Errorf("between-chain R̂ %v (%v): want > 1.1, the chains sit apart", between, err)
		}
	}
	stuck := centre(3)
	drift := append([]float64(nil), centre(3)...)
	for name, broken := range map[string]func(int, []float64){
		"stuck": func(_ int, dst []float64) { copy(dst, stuck) },
		"drifting": func(_ int, dst []float64) {
			for j := range drift {
				drift[j] += 0.5 * rng.NormFloat64()
			}
			copy(dst, drift)
		},
	} {
		out := run(broken)
		if !strings.Contains(out, "warning:  chain 4 fails the per-chain check") || strings.Count(out, "  ok\n") != 3 {
			t.Errorf("%s chain 4: want it named, the 3 others ok:\n%s", name, out)
		}
	}
}

// TestStackChains builds four chains of a network without hidden layers
// (logistic regression, so the true weights are known) on 400 training
// rows: three with draws around the true θ (sd 0.1), one stuck at a poor
// mode (−θ, the labels' signs flipped). Stacking gives the poor chain
// weight < 0.01, its LOO log score is at least equal weights', and the
// stacked mixture's test log predictive density on 2,000 rows beats equal
// weights' by 0.05 a row (equal weights give the poor chain 1/4 of the
// mass: 0.10 a row worse here). Then, over
// 8 random sets of chains (random centres and spreads, including chains
// alike), stacking never scores below equal weights on the training-LOO
// objective, and MixtureDraws gives each chain its weight to within 1/S.
func TestStackChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	truth := []float64{2, -1.5, 0.5} // W (1×2), b
	gen := func(n int) *data.Dataset {
		X := mat.NewDense(n, 2, nil)
		y := make([]float64, n)
		for i := range n {
			x1, x2 := rng.NormFloat64(), rng.NormFloat64()
			X.Set(i, 0, x1)
			X.Set(i, 1, x2)
			if rng.Float64() < 1/(1+math.Exp(-(truth[0]*x1+truth[1]*x2+truth[2]))) {
				y[i] = 1
			}
		}
		return &data.Dataset{X: X, Y: y}
	}
	train, test := gen(400), gen(2000)
	m, err := model.NewMLP(train.X, train.Y, model.MLPOptions{Likelihood: model.LikBernoulli})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 3 {
		t.Fatalf("d = %d, want 3", m.Dim())
	}
	poor := []float64{-truth[0], -truth[1], -truth[2]}
	const n = 200
	tr := chainTrace(3, n, around(truth, 0.1, rng), around(truth, 0.1, rng), around(truth, 0.1, rng), around(poor, 0.1, rng))
	cw, err := fit.StackChains(m, tr, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("weights %.4f, LOO score stacked %.2f, equal %.2f", cw.W, cw.Stacked, cw.Equal)
	if cw.Method != "stacking" || cw.W[3] > 0.01 {
		t.Errorf("poor chain: weight %v (%s), want < 0.01 by stacking", cw.W[3], cw.Method)
	}
	if cw.Stacked < cw.Equal {
		t.Errorf("LOO score: stacked %v < equal %v", cw.Stacked, cw.Equal)
	}
	lpd := func(draws [][]float64) float64 {
		c, err := predict.Classify(m, draws, test.X, predict.ClassifyOptions{ProbsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		mt, err := predict.Evaluate(c.Probs, test.Y, 0)
		if err != nil {
			t.Fatal(err)
		}
		return -mt.NLL
	}
	st, eq := lpd(fit.MixtureDraws(tr, 3, cw.W)), lpd(fit.MixtureDraws(tr, 3, fit.EqualChainWeights(4).W))
	t.Logf("test log predictive density a row: stacked %.4f, equal %.4f", st, eq)
	if !(st > eq+0.05) {
		t.Errorf("test LPD: stacked %v, equal %v: want stacked better by 0.05 a row", st, eq)
	}

	// Four chains of one distribution: stacking puts its weight where
	// Monte Carlo noise makes a chain's LOO a little better (logged, not a
	// rule: the predictive is then one chain's).
	// With -short (a third of the CPU) the log is left out and 4 of the 8
	// random sets are checked: K = 2…5 chains, spreads 0, 1 and 2.
	reps := 8
	if !testing.Short() {
		same := chainTrace(3, n, around(truth, 0.1, rng), around(truth, 0.1, rng), around(truth, 0.1, rng), around(truth, 0.1, rng))
		if cw, err := fit.StackChains(m, same, 1); err == nil {
			t.Logf("chains alike: weights %.3f, LOO score stacked %.2f, equal %.2f", cw.W, cw.Stacked, cw.Equal)
		}
	} else {
		reps = 4
	}
	for rep := range reps {
		K := 2 + rep%4
		var chains []func(int, []float64)
		for range K {
			c := make([]float64, 3)
			for j := range c {
				c[j] = truth[j] + rng.NormFloat64()*float64(rep%3)
			}
			chains = append(chains, around(c, 0.05+0.2*rng.Float64(), rng))
		}
		tr := chainTrace(3, 100+rep*5, chains...)
		cw, err := fit.StackChains(m, tr, uint64(rep))
		if err != nil {
			t.Fatal(err)
		}
		if cw.Stacked < cw.Equal-1e-9*math.Abs(cw.Equal) {
			t.Errorf("rep %d: LOO score stacked %v < equal %v (weights %v)", rep, cw.Stacked, cw.Equal, cw.W)
		}
		var sum float64
		for _, v := range cw.W {
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("rep %d: weights sum to %v", rep, sum)
		}
		lpdM, _ := loo.ELPDMatrix(cw.Chains...)
		if f := fit.StackingObjective(lpdM, cw.W); f != cw.Stacked {
			t.Errorf("rep %d: objective %v, Stacked %v", rep, f, cw.Stacked)
		}
		// MixtureDraws: chain k's share of the draws is wₖ to within 1/S.
		mix := fit.MixtureDraws(tr, 3, cw.W)
		S := len(tr.Draws) * len(tr.Draws[0])
		if len(mix) != S {
			t.Fatalf("rep %d: %d mixture draws, want %d", rep, len(mix), S)
		}
		for k, ch := range tr.Draws {
			cnt := 0
			for _, th := range mix {
				if inChain(th, ch) {
					cnt++
				}
			}
			if math.Abs(float64(cnt)/float64(S)-cw.W[k]) > 1/float64(S) {
				t.Errorf("rep %d chain %d: share %d/%d, weight %v", rep, k+1, cnt, S, cw.W[k])
			}
		}
	}
}

func inChain(th []float64, ch [][]float64) bool {
	for _, r := range ch {
		if &r[0] == &th[0] {
			return true
		}
	}
	return false
}

// TestChainLengthFactor: a chain short of ESS needs target/ESS times the
// length, one whose max split-R̂ is 1.2 needs (0.2/0.1)² = 4 times, the
// larger wins, and a stuck chain cannot be fixed by length.
func TestChainLengthFactor(t *testing.T) {
	for _, c := range []struct {
		cc   predict.ChainConvergence
		want float64
	}{
		{predict.ChainConvergence{MaxRHat: 1.05, MedianESS: 150}, 1},
		{predict.ChainConvergence{MaxRHat: 1.05, MedianESS: 25}, 4},
		{predict.ChainConvergence{MaxRHat: 1.2, MedianESS: 150}, 4},
		{predict.ChainConvergence{MaxRHat: 1.3, MedianESS: 50}, 9},
		{predict.ChainConvergence{MaxRHat: math.NaN(), MedianESS: math.NaN()}, math.Inf(1)},
	} {
		if got := fit.ChainLengthFactor(c.cc, 100); math.Abs(got-c.want) > 1e-12 && got != c.want {
			t.Errorf("ChainLengthFactor(%+v) = %v, want %v", c.cc, got, c.want)
		}
	}
}
