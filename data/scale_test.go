package data

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestScaler(t *testing.T) {
	X := mat.NewDense(4, 3, []float64{
		1, 0.1, 10,
		2, 0.1, 20,
		3, 0.1, 30,
		6, 0.1, 40,
	})
	s := FitScaler(X)
	for j := range 3 {
		col := mat.Col(nil, j, X)
		mean, sd := stat.MeanStdDev(col, nil) // sample sd, n-1
		if j == 1 {
			if s.Mean[j] != 0.1 || s.Scale[j] != 1 {
				t.Errorf("constant column: mean %v scale %v", s.Mean[j], s.Scale[j])
			}
			continue
		}
		if math.Abs(s.Mean[j]-mean) > 1e-12 || math.Abs(s.Scale[j]-sd) > 1e-12 {
			t.Errorf("column %d: got %v, %v want %v, %v", j, s.Mean[j], s.Scale[j], mean, sd)
		}
	}
	train := mat.DenseCopyOf(X)
	s.Transform(train)
	for j := range 3 {
		col := mat.Col(nil, j, train)
		mean, sd := stat.MeanStdDev(col, nil)
		if math.Abs(mean) > 1e-12 {
			t.Errorf("column %d: mean %v after Transform", j, mean)
		}
		if j == 1 {
			if sd != 0 || col[0] != 0 {
				t.Errorf("constant column became %v", col)
			}
		} else if math.Abs(sd-1) > 1e-12 {
			t.Errorf("column %d: sd %v after Transform", j, sd)
		}
	}

	// Training statistics are applied to new data.
	test := mat.NewDense(1, 3, []float64{3, 5, 25})
	s.Transform(test)
	want := []float64{(3 - s.Mean[0]) / s.Scale[0], 4.9, 0}
	for j, w := range want {
		if math.Abs(test.At(0, j)-w) > 1e-12 {
			t.Errorf("test column %d: got %v want %v", j, test.At(0, j), w)
		}
	}
}

func TestScalerEdgeCases(t *testing.T) {
	one := mat.NewDense(1, 2, []float64{3, -4})
	s := FitScaler(one)
	s.Transform(one)
	if one.At(0, 0) != 0 || one.At(0, 1) != 0 || s.Scale[0] != 1 {
		t.Errorf("single row: %v, scaler %+v", one.RawRowView(0), s)
	}
	empty := FitScaler(&mat.Dense{})
	if len(empty.Mean) != 0 {
		t.Errorf("empty: %+v", empty)
	}
	empty.Transform(&mat.Dense{})

	defer func() {
		if recover() == nil {
			t.Error("no panic for mismatched columns")
		}
	}()
	s.Transform(mat.NewDense(1, 3, nil))
}

// TestUnscale checks that the linear predictor of standardised rows at the
// fitted coefficients equals that of the raw rows at the unscaled ones.
func TestUnscale(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 0, 3, 1, 2, 1, 10, 0})
	raw := mat.DenseCopyOf(X)
	s := FitScaler(X)
	s.Transform(X)
	coef := []float64{0.3, -1.2, 2.5}
	orig := make([]float64, 3)
	s.Unscale(orig, coef)
	for i := range 4 {
		z := coef[0] + coef[1]*X.At(i, 0) + coef[2]*X.At(i, 1)
		x := orig[0] + orig[1]*raw.At(i, 0) + orig[2]*raw.At(i, 1)
		if math.Abs(z-x) > 1e-12 {
			t.Errorf("row %d: standardised %v, raw %v", i, z, x)
		}
	}
}
