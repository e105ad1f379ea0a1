package predict_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/predict"
)

// both answers as a classifier (table) and as a regressor (shift).
type both struct {
	table
	shift
}

// TestScore: the RMSE of the mixture's mean for a regressor, the accuracy
// of the mean probabilities for a classifier (also for a model that is both
// when it classifies), ErrNoPrediction for neither, and label errors.
func TestScore(t *testing.T) {
	X := mat.NewDense(3, 1, nil)
	c := table{[][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.4, 0.6}}}
	for _, tc := range []struct {
		name       string
		m          any
		classifies bool
		draws      [][]float64
		y          []float64
		want       float64
		wantName   string
	}{
		// Mean of the draws' f = (1 + 3)/2 = 2; errors 0, 1, −2.
		{"regressor", shift{}, false, [][]float64{{1, 1}, {3, 1}}, []float64{2, 1, 4}, math.Sqrt(5.0 / 3), "RMSE"},
		// Mean probabilities (0.55, 0.45): class 0 everywhere.
		{"classifier", c, true, [][]float64{{0}, {1}}, []float64{0, 1, 0}, 2.0 / 3, "accuracy"},
		// Mean probabilities (0.3, 0.7): class 1 everywhere.
		{"both, classifies", both{c, shift{}}, true, [][]float64{{1}, {2}}, []float64{0, 1, 1}, 2.0 / 3, "accuracy"},
		{"MAP", c, true, [][]float64{{0}}, []float64{0, 0, 0}, 1, "accuracy"},
	} {
		got, name, err := predict.Score(tc.m, tc.classifies, tc.draws, X, tc.y)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12 || name != tc.wantName {
			t.Errorf("%s: %v %s, want %v %s", tc.name, got, name, tc.want, tc.wantName)
		}
	}
	if _, _, err := predict.Score(struct{}{}, true, [][]float64{{0}}, X, []float64{0, 0, 0}); !errors.Is(err, predict.ErrNoPrediction) {
		t.Errorf("neither: %v, want ErrNoPrediction", err)
	}
	if _, _, err := predict.Score(c, true, [][]float64{{0}}, X, []float64{0, 2, 0}); err == nil {
		t.Error("label 2 of a 2-class model: no error")
	}
}
