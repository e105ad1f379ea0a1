package formula

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/langevin-go/langevin/density"
)

// TestScore is how well a model's posterior predictive fits held-out rows
// with the response, in the data's units.
type TestScore struct {
	// Metric is "RMSE" (of the posterior mean of E[y]) or, for the
	// bernoulli and probit families, "accuracy" (E[y] ≥ ½ read as 1).
	Metric string
	Value  float64
	// LPD is the mean over rows of the log predictive density
	// log (1/S) Σₛ p(yᵢ | θₛ); RowLPD holds each row's.
	LPD    float64
	RowLPD []float64
}

// ScoreNew scores the draws (θ, as the run stores them) on the rows of tab,
// which must hold the response (and the trials of a binomial response),
// coded as the training data were. A group level absent from the training
// data is an error naming the grouping factor and the level: brms's default
// (allow_new_levels = FALSE), since an unseen level's effect is not
// estimated from the data.
func (m *Model) ScoreNew(tab Table, draws [][]float64) (*TestScore, error) {
	return m.ScoreNewLevels(tab, draws, NewLevelsError, nil)
}

// ScoreNewLevels is ScoreNew with a rule for the group levels absent from
// the training data, as Predict's (rng draws their effects under
// NewLevelsSample): the held-out levels of grouped K-fold
// cross-validation, as brms's kfold scores them with allow_new_levels.
func (m *Model) ScoreNewLevels(tab Table, draws [][]float64, rule NewLevels, rng *rand.Rand) (*TestScore, error) {
	if len(draws) == 0 {
		return nil, fmt.Errorf("no draws to score")
	}
	y, ok, err := m.Observed(tab)
	if err != nil {
		return nil, fmt.Errorf("the response: %v", err)
	}
	if !ok {
		return nil, fmt.Errorf("no response column %s: the held-out rows are scored against it", m.Formula.Response.Text)
	}
	var trials []int
	if m.trials != nil {
		e := &env{tab: tab, book: m.book}
		v, err := e.num(&Expr{Op: "col", Name: m.Formula.Trials, Text: m.Formula.Trials})
		if err != nil {
			return nil, fmt.Errorf("trials: %v", err)
		}
		trials = make([]int, len(v))
		for i, t := range v {
			if t != math.Trunc(t) || t < 1 || y[i] > t {
				return nil, fmt.Errorf("trials %s = %v at row %d (response %v): expected a whole number ≥ 1, at least the response", m.Formula.Trials, t, i+1, y[i])
			}
			trials[i] = int(t)
		}
	}
	pred, err := m.Predict(tab, draws, rule, rng)
	if err != nil {
		return nil, err
	}
	names := m.DerivedNames()
	aux, nu := slices.Index(names, m.auxName), slices.Index(names, "nu")
	der := make([]float64, len(names))
	n, S := len(y), len(draws)
	lp := make([]float64, S*n) // draw-major
	for s, th := range draws {
		m.Derive(th, der)
		for i := range n {
			lp[s*n+i] = m.rowDensity(y[i], trials, i, pred.Eta[s][i], der, aux, nu)
		}
	}
	sc := &TestScore{Metric: "RMSE", RowLPD: make([]float64, n)}
	if m.Family == "bernoulli" || m.Family == "probit" {
		sc.Metric = "accuracy"
	}
	col := make([]float64, S)
	for i := range n {
		var mean float64
		for s := range S {
			col[s] = lp[s*n+i]
			mean += pred.Mean[s][i]
		}
		mean /= float64(S)
		sc.RowLPD[i] = logMeanExp(col)
		sc.LPD += sc.RowLPD[i]
		if sc.Metric == "accuracy" {
			if (mean >= 0.5) == (y[i] == 1) {
				sc.Value++
			}
		} else {
			sc.Value += (mean - y[i]) * (mean - y[i])
		}
	}
	sc.LPD /= float64(n)
	sc.Value /= float64(n)
	if sc.Metric == "RMSE" {
		sc.Value = math.Sqrt(sc.Value)
	}
	return sc, nil
}

// rowDensity is log p(y | η, the draw's sigma, nu or shape) of one row,
// normalised as RowLogLik's.
func (m *Model) rowDensity(y float64, trials []int, i int, eta float64, der []float64, aux, nu int) float64 {
	switch m.Family {
	case "gaussian":
		lp, _, _, _ := density.Normal(y, eta, der[aux])
		return lp
	case "student":
		lp, _, _, _, _ := density.StudentT(y, der[nu], eta, der[aux])
		return lp
	case "bernoulli":
		lp, _ := density.BernoulliLogit(int(y), eta)
		return lp
	case "probit":
		lp, _ := density.BernoulliProbit(int(y), eta)
		return lp
	case "binomial":
		lp, _ := density.BinomialLogit(int(y), trials[i], eta)
		return lp
	case "poisson":
		lp, _ := density.PoissonLog(int(y), eta)
		return lp
	case "negbinomial":
		lp, _, _ := density.NegBin2Log(int(y), eta, der[aux])
		return lp
	}
	panic("formula: family " + m.Family)
}

// logMeanExp returns log((1/n) Σ exp(v)), stably.
func logMeanExp(v []float64) float64 {
	hi := math.Inf(-1)
	for _, x := range v {
		hi = max(hi, x)
	}
	if math.IsInf(hi, -1) {
		return hi
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - hi)
	}
	return hi + math.Log(s/float64(len(v)))
}
