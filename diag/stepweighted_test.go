package diag

import (
	"math"
	"testing"
)

// StepWeightedMean is Σηθ/Ση over all chains; equal steps give the plain
// mean, and mismatched lengths or no weight give NaN.
func TestStepWeightedMean(t *testing.T) {
	for _, tc := range []struct {
		name          string
		chains, steps [][]float64
		want          float64
	}{
		{"weighted", [][]float64{{1, 2}, {3}}, [][]float64{{1, 0.5}, {0.5}}, (1 + 1 + 1.5) / 2},
		{"equal steps: the mean", [][]float64{{1, 2, 6}}, [][]float64{{0.1, 0.1, 0.1}}, 3},
		{"a decaying step favours the early draw", [][]float64{{10, 0}}, [][]float64{{0.9, 0.1}}, 9},
		{"lengths differ", [][]float64{{1, 2}}, [][]float64{{1}}, math.NaN()},
		{"no weight", [][]float64{{1}}, [][]float64{{0}}, math.NaN()},
	} {
		got := StepWeightedMean(tc.chains, tc.steps)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
