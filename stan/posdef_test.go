package stan

import (
	"math"
	"testing"
)

// TestPosDef: the check of a cov_matrix or corr_matrix value accepts a
// positive definite matrix and refuses an indefinite, a singular and a
// non-finite one.
func TestPosDef(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		a    []float64
		want bool
	}{
		{[]float64{1, 0, 0, 1}, true},
		{[]float64{2, 0.9, 0.3, 0.9, 1, 0.2, 0.3, 0.2, 1.5}, true},
		{[]float64{1, 2, 2, 1}, false},   // eigenvalues 3 and −1
		{[]float64{1, 1, 1, 1}, false},   // singular
		{[]float64{inf, 0, 0, 1}, false}, // not finite
		{[]float64{nan}, false},
	} {
		k := int(math.Sqrt(float64(len(tc.a))))
		if got := posDef(tc.a, k); got != tc.want {
			t.Errorf("posDef(%v) = %v, want %v", tc.a, got, tc.want)
		}
	}
}
