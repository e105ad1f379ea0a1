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

// TestTargetUnits checks the original-unit arithmetic by hand: training
// responses 2, 4, 9 have mean 5 and population sd s = √(26/3) (divisor n,
// the response's rule; n−1 would give √13). A predictive N(0.5, 0.25²) of
// z at the test response y = 7 is N(5 + 0.5s, 0.0625s²) of y: log density
// −0.8697642251751011 (by hand, from the Gaussian formula in y's units).
// Predictive means 0.5 and −1 of z against y = 7 and 1 give RMSE
// 0.8349043195402226 in y's units. A slip of the Jacobian (log p_z
// unconverted, or + log s), of the scale (s², 1/s) or of the divisor
// misses by far more than the tolerance.
func TestTargetUnits(t *testing.T) {
	y := []float64{2, 4, 9}
	var s Scaler
	s.FitTarget(y)
	if s.TargetMean != 5 || math.Abs(s.TargetScale-math.Sqrt(26.0/3)) > 1e-15 {
		t.Fatalf("target mean %v, scale %v; want 5, √(26/3)", s.TargetMean, s.TargetScale)
	}
	if math.Abs(y[0]+3/math.Sqrt(26.0/3)) > 1e-15 {
		t.Errorf("standardised y[0] = %v, want −3/√(26/3)", y[0])
	}
	var m, v float64 // the standardised response: mean 0, population variance 1
	for _, z := range y {
		m += z / 3
		v += z * z / 3
	}
	if math.Abs(m) > 1e-15 || math.Abs(v-1) > 1e-15 {
		t.Errorf("standardised response: mean %v, mean square %v; want 0, 1", m, v)
	}
	// The log density of z = (7 − 5)/√13 under N(0.5, 0.25²).
	z := (7 - s.TargetMean) / s.TargetScale
	lpz := -0.5*math.Log(2*math.Pi*0.0625) - (z-0.5)*(z-0.5)/(2*0.0625)
	if got, want := s.TargetLogDensity(lpz), -0.8697642251751011; math.Abs(got-want) > 1e-12 {
		t.Errorf("log density in y's units %.15g, want %.15g", got, want)
	}
	zt := []float64{7, 1}
	s.TransformTarget(zt)
	rz := math.Sqrt(((zt[0]-0.5)*(zt[0]-0.5) + (zt[1]+1)*(zt[1]+1)) / 2)
	if got, want := s.TargetRMSE(rz), 0.8349043195402226; math.Abs(got-want) > 1e-12 {
		t.Errorf("RMSE in y's units %.15g, want %.15g", got, want)
	}
	if got := s.TargetValue(0.5); math.Abs(got-(5+0.5*math.Sqrt(26.0/3))) > 1e-14 {
		t.Errorf("TargetValue(0.5) = %v", got)
	}
	var none Scaler
	if none.TargetLogDensity(-1) != -1 || none.TargetRMSE(2) != 2 || none.TargetValue(3) != 3 {
		t.Error("a Scaler without a target standardisation changed a score")
	}
}
