package predict

import (
	"math"
	"testing"
)

func TestLogMeanExp(t *testing.T) {
	t.Parallel()
	for _, vs := range [][]float64{
		{0},
		{-1, 2, 0.5},
		{3, 2, 1, 0, -1},
		{-1000, -1001, -999.5},
		{800, 801},
		{math.Inf(-1), -2, math.Inf(-1)},
	} {
		var a logMeanExp
		m := math.Inf(-1)
		for _, v := range vs {
			a.add(v)
			m = math.Max(m, v)
		}
		var s float64
		for _, v := range vs {
			s += math.Exp(v - m)
		}
		want := m + math.Log(s/float64(len(vs)))
		if got := a.value(); math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
			t.Errorf("logMeanExp(%v) = %v, want %v", vs, got, want)
		}
	}
	var a logMeanExp
	a.add(math.Inf(-1))
	a.add(math.Inf(-1))
	if !math.IsInf(a.value(), -1) {
		t.Errorf("logMeanExp(−∞, −∞) = %v", a.value())
	}
}
