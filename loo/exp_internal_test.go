package loo

import (
	"math"
	"testing"
)

func TestExp(t *testing.T) {
	var worst float64
	for x := -720.0; x <= 0; x += 0.000731 {
		got, want := expNeg(x), math.Exp(x)
		e := math.Abs(got-want) / want
		worst = math.Max(worst, e)
	}
	for _, x := range []float64{0, -1e-300, -math.SmallestNonzeroFloat64, -1e-17, -0.5, -700, -745, -746, math.Inf(-1)} {
		got, want := expNeg(x), math.Exp(x)
		if got != want && math.Abs(got-want)/want > 5e-16 {
			t.Errorf("expNeg(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	// expShift is expNeg written out, with e^(c − x) besides
	src := []float64{3, 2.5, -1, -697, -698, 3 - 1e-300, math.Inf(-1), 0}
	for x := -720.0; x <= 3; x += 0.0731 {
		src = append(src, x)
	}
	dst, inv := make([]float64, len(src)), make([]float64, len(src))
	var want float64
	for _, v := range src {
		want += expNeg(v - 3)
	}
	if sum, lo := expShift(dst, inv, src, 3); math.Abs(sum-want) > 1e-15*want || lo != math.Inf(-1) {
		t.Errorf("expShift's sum %v, expNeg's %v; smallest %v, want -Inf", sum, want, lo)
	}
	var worstInv float64
	for s, v := range src {
		if e := math.Abs(dst[s]-math.Exp(v-3)) / math.Exp(v-3); e > 5e-16 {
			t.Errorf("expShift(%v − 3) = %v, math.Exp %v", v, dst[s], math.Exp(v-3))
		}
		want := math.Exp(3 - v)
		e := math.Abs(inv[s]-want) / want
		if math.IsInf(want, 1) && inv[s] == want {
			e = 0
		}
		worstInv = math.Max(worstInv, e)
		if e > 5e-16 {
			t.Errorf("expShift's e^(3 − %v) = %v, math.Exp %v", v, inv[s], want)
		}
	}
	t.Logf("expShift: largest relative error of e^(c − x) from math.Exp: %.3g", worstInv)
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
			s += expNeg(v)
		}
	}
	_ = s
}

func TestLog(t *testing.T) {
	var worst, worstAbs float64
	for _, scale := range []float64{1e-300, 1e-20, 1e-3, 0.5, 1, 2, 1e10, 1e300} {
		for u := 1.0; u < 2; u += 0.0000913 {
			x := u * scale
			got, want := logPos(x), math.Log(x)
			worstAbs = math.Max(worstAbs, math.Abs(got-want))
			if want != 0 {
				worst = math.Max(worst, math.Abs(got-want)/math.Abs(want))
			}
		}
	}
	// near 1, where log x is small, the error relative to log x
	for x := 0.999; x < 1.001; x += 1.3e-7 {
		if got, want := logPos(x), math.Log(x); want != 0 && math.Abs(got-want) > 4e-16*math.Abs(want) {
			t.Fatalf("logPos(%v) = %v, math.Log %v", x, got, want)
		}
	}
	for _, x := range []float64{1, 2, 0.5, math.SmallestNonzeroFloat64, 0, -1, math.Inf(1), math.NaN(), math.MaxFloat64} {
		got, want := logPos(x), math.Log(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want) || math.Abs(got-want) <= 4e-16*math.Abs(want)) {
			t.Errorf("logPos(%v) = %v, math.Log %v", x, got, want)
		}
	}
	if worst > 4e-16 {
		t.Errorf("largest relative error %.3g", worst)
	}
	t.Logf("largest error from math.Log: %.3g relative, %.3g absolute", worst, worstAbs)
}
