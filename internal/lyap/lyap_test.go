package lyap

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestDiscrete(t *testing.T) {
	// Scalar AR(1): σ² = q/(1 − a²).
	s, err := Discrete(mat.NewDense(1, 1, []float64{0.9}), mat.NewDense(1, 1, []float64{2}))
	if err != nil || math.Abs(s.At(0, 0)-2/(1-0.81)) > 1e-12 {
		t.Errorf("AR(1): %v %v", mat.Formatted(s), err)
	}
	// A non-symmetric 3×3: the residual Σ − AΣAᵀ − Q vanishes.
	a := mat.NewDense(3, 3, []float64{0.5, 0.3, 0, -0.2, 0.7, 0.1, 0, 0.4, -0.3})
	q := mat.NewDense(3, 3, []float64{2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 3})
	s, err = Discrete(a, q)
	if err != nil {
		t.Fatal(err)
	}
	var r mat.Dense
	r.Product(a, s, a.T())
	r.Add(&r, q)
	r.Sub(&r, s)
	if n := mat.Norm(&r, math.Inf(1)); n > 1e-12 {
		t.Errorf("residual %g", n)
	}
	if _, err := Discrete(mat.NewDense(1, 1, []float64{1}), mat.NewDense(1, 1, []float64{1})); err == nil {
		t.Error("unstable A: no error")
	}
	if _, err := Discrete(a, mat.NewDense(2, 2, nil)); err == nil {
		t.Error("Q of the wrong size: no error")
	}
}
