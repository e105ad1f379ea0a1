package predict

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNoPrediction is Score's error for a model that is neither a
// Classifier nor a Regressor.
var ErrNoPrediction = errors.New("the model has neither class probabilities nor a regression mean")

// Score returns one number that scores model m's posterior predictive over
// draws at the rows of X against y, and its name: for a Regressor that does
// not classify (classifies false) the RMSE of the predictive mean
// (1/S) Σₛ fₛ(xᵢ) ("RMSE"); otherwise, for a Classifier, the accuracy of
// the most probable class of the mean class probabilities ("accuracy",
// Evaluate; y holds class indices). A single draw scores a point estimate
// such as the MAP.
func Score(m any, classifies bool, draws [][]float64, X *mat.Dense, y []float64) (float64, string, error) {
	if r, ok := m.(Regressor); ok && !classifies {
		reg, err := Regress(r, draws, X, 0.9)
		if err != nil {
			return 0, "", err
		}
		var se float64
		for i, v := range y {
			se += (reg.Mean[i] - v) * (reg.Mean[i] - v)
		}
		return math.Sqrt(se / float64(len(y))), "RMSE", nil
	}
	c, ok := m.(Classifier)
	if !ok {
		return 0, "", ErrNoPrediction
	}
	res, err := Classify(c, draws, X, ClassifyOptions{ProbsOnly: true})
	if err != nil {
		return 0, "", err
	}
	met, err := Evaluate(res.Probs, y, 0)
	if err != nil {
		return 0, "", err
	}
	return met.Accuracy, "accuracy", nil
}
