package fit

import (
	"fmt"
	"io"
	"strconv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/predict"
)

// TestTable is the test-set table of a run: a first metric (accuracy for a
// classifier, RMSE for a regression) and the mean log predictive density,
// of the posterior predictive (the mean of the predictive distributions over
// all draws, package predict) and of the MAP as a point estimate.
type TestTable struct {
	Metric string // "accuracy" or "RMSE"
	N      int    // test rows
	// Posterior and MAP are [metric, mean log predictive density].
	Posterior, MAP [2]float64
	HasMAP         bool   // false when there is no MAP or its score failed
	Note           string // printed before the table (for example a thinning note)
}

// ScoreFunc scores a set of draws: the first metric and the mean log
// predictive density.
type ScoreFunc func(draws [][]float64) (metric, lpd float64, err error)

// NewTestTable scores the draws and the MAP (nil: none) with score.
func NewTestTable(metric string, n int, draws [][]float64, mapTheta []float64, score ScoreFunc, note string) (*TestTable, error) {
	s := &TestTable{Metric: metric, N: n, Note: note}
	var err error
	if s.Posterior[0], s.Posterior[1], err = score(draws); err != nil {
		return nil, err
	}
	if mapTheta != nil {
		if s.MAP[0], s.MAP[1], err = score([][]float64{mapTheta}); err == nil {
			s.HasMAP = true
		}
	}
	return s, nil
}

// ScoreTest scores the posterior predictive of m over the draws of tr (the
// model's parameters, without derived quantities) and the MAP on test.
func ScoreTest(m langevin.Model, tr *langevin.Trace, mapTheta []float64, test *data.Dataset) (*TestTable, error) {
	d := m.Dim()
	rows := tr.Rows()
	for i := range rows {
		rows[i] = rows[i][:d]
	}
	return scoreDraws(m, rows, mapTheta, test)
}

// scoreDraws is ScoreTest of the posterior predictive over the draws rows
// (each the model's parameters).
func scoreDraws(m langevin.Model, rows [][]float64, mapTheta []float64, test *data.Dataset) (*TestTable, error) {
	score := func(draws [][]float64) (float64, float64, error) {
		if c, ok := m.(predict.Classifier); ok {
			res, err := predict.Classify(c, draws, test.X, predict.ClassifyOptions{ProbsOnly: true})
			if err != nil {
				return 0, 0, err
			}
			met, err := predict.Evaluate(res.Probs, test.Y, 0)
			if err != nil {
				return 0, 0, err
			}
			return met.Accuracy, -met.NLL, nil
		}
		r, ok := m.(predict.Regressor)
		if !ok {
			return 0, 0, fmt.Errorf("the model gives no predictions")
		}
		sc, err := predict.ScoreRegression(r, draws, test.X, test.Y)
		if err != nil {
			return 0, 0, err
		}
		return sc.RMSE, sc.LPD, nil
	}
	name := "RMSE"
	if _, ok := m.(predict.Classifier); ok {
		name = "accuracy"
	}
	return NewTestTable(name, test.Len(), rows, mapTheta, score, "")
}

// Format writes the table as langevin run prints it.
func (s *TestTable) Format(w io.Writer) {
	fmt.Fprint(w, s.Note)
	fmt.Fprintf(w, "test set (%d rows)        posterior predictive   MAP (optimisation)\n", s.N)
	for i, name := range []string{s.Metric, "mean log pred. density"} {
		fmt.Fprintf(w, "  %-24s %-22s", name, FormatMetric(s.Posterior[i]))
		if s.HasMAP {
			fmt.Fprintf(w, " %s", FormatMetric(s.MAP[i]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// FormatMetric formats a test-set metric with four decimals.
func FormatMetric(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
