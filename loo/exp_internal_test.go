package loo

import (
	"math"
	"testing"
)

func TestExp(t *testing.T) {
	var worst float64
	for x := -720.0; x <= 0; x += 0.000731 {
		got, want := exp(x), math.Exp(x)
		e := math.Abs(got-want) / want
		worst = math.Max(worst, e)
	}
	for _, x := range []float64{0, -1e-300, -math.SmallestNonzeroFloat64, -1e-17, -0.5, -700, -745, -746, math.Inf(-1)} {
		got, want := exp(x), math.Exp(x)
		if got != want && math.Abs(got-want)/want > 5e-16 {
			t.Errorf("exp(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	if worst > 5e-16 {
		t.Errorf("largest relative error %.3g", worst)
	}
	t.Logf("largest relative error from math.Exp on [−720, 0]: %.3g", worst)
}

func BenchmarkExp(b *testing.B) {
	x := make([]float64, 4000)
	for i := range x {
		x[i] = -float64(i%997) * 0.01
	}
	var s float64
	for b.Loop() {
		for _, v := range x {
			s += exp(v)
		}
	}
	_ = s
}
