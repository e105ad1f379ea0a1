package sampler

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The dense metric's products and triangular solves agree with gonum.
func TestMetricDenseAgreesWithGonum(t *testing.T) {
	const d = 6
	rng := rand.New(rand.NewPCG(1, 2))
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var s mat.SymDense
	s.SymOuterK(1, a)
	for j := 0; j < d; j++ {
		s.SetSym(j, j, s.At(j, j)+0.5)
	}
	mt, err := newMetric(d, nil, &s, "test")
	if err != nil {
		t.Fatal(err)
	}
	var chol mat.Cholesky
	if !chol.Factorize(&s) {
		t.Fatal("not PD")
	}
	var l mat.TriDense
	chol.LTo(&l)
	v := make([]float64, d)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	vv := mat.NewVecDense(d, v)
	check := func(name string, got []float64, want mat.Vector) {
		for j := range got {
			if math.Abs(got[j]-want.AtVec(j)) > 1e-10*math.Max(1, math.Abs(want.AtVec(j))) {
				t.Errorf("%s[%d] = %v, want %v", name, j, got[j], want.AtVec(j))
			}
		}
	}
	got := make([]float64, d)
	var want mat.VecDense
	mt.mul(got, v)
	want.MulVec(&s, vv)
	check("Mv", got, &want)
	mt.mulL(got, v)
	want.MulVec(&l, vv)
	check("Lv", got, &want)
	copy(got, v)
	mt.solveL(got, got)
	if err := want.SolveVec(&l, vv); err != nil {
		t.Fatal(err)
	}
	check("L⁻¹v", got, &want)
	copy(got, v)
	mt.solveLT(got, got)
	if err := want.SolveVec(l.T(), vv); err != nil {
		t.Fatal(err)
	}
	check("L⁻ᵀv", got, &want)
	if q, w := mt.quad(v), mat.Inner(vv, &s, vv); math.Abs(q-w) > 1e-10*w {
		t.Errorf("vᵀMv = %v, want %v", q, w)
	}
	// A diagonal metric is the same computation with M = diag.
	dg, err := newMetric(3, []float64{4, 1, 0.25}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, 3}
	dg.solveL(got[:3], x)
	if got[0] != 0.5 || got[1] != 2 || got[2] != 6 {
		t.Errorf("diagonal L⁻¹x = %v", got[:3])
	}
	if _, err := newMetric(2, nil, mat.NewSymDense(2, []float64{1, 2, 2, 1}), "M"); err == nil {
		t.Error("indefinite dense metric accepted")
	}
}
