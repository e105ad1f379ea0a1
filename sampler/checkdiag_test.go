package sampler

import (
	"math"
	"strings"
	"testing"
)

// TestCheckDiag is the table of the one check of a diagonal M.
func TestCheckDiag(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want string // "" = no error
	}{
		{nil, ""},
		{[]float64{1, 2, 0.5}, ""},
		{[]float64{1, 2}, "M has 2 entries, model has 3 parameters"},
		{[]float64{1, 0, 1}, "M entry 2 is 0: expected a positive number"},
		{[]float64{1, 1, -1}, "M entry 3 is -1"},
		{[]float64{math.NaN(), 1, 1}, "M entry 1 is NaN"},
		{[]float64{1, math.Inf(1), 1}, "M entry 2 is +Inf"},
	} {
		err := checkDiag(tc.v, 3, "M")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want %q", tc.v, err, tc.want)
		}
	}
}
