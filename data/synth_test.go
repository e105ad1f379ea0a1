package data

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestCorrelatedNormal(t *testing.T) {
	const n = 20000
	for _, rho := range []float64{-0.9, 0, 0.5, 1} {
		d := CorrelatedNormal(n, rho, 3)
		if d.Len() != n || d.Dim() != 1 || d.Names[0] != "x" || d.Target != "y" {
			t.Fatalf("shape %d×%d names %q target %q", d.Len(), d.Dim(), d.Names, d.Target)
		}
		x := mat.Col(nil, 0, d.X)
		mx, sx := stat.MeanStdDev(x, nil)
		my, sy := stat.MeanStdDev(d.Y, nil)
		r := stat.Correlation(x, d.Y, nil)
		// Standard errors are about 0.007 for the means and sds.
		if math.Abs(mx) > 0.03 || math.Abs(my) > 0.03 || math.Abs(sx-1) > 0.03 || math.Abs(sy-1) > 0.03 {
			t.Errorf("rho=%v: means %v %v sds %v %v", rho, mx, my, sx, sy)
		}
		if math.Abs(r-rho) > 0.02 {
			t.Errorf("rho=%v: sample correlation %v", rho, r)
		}
	}
	a := CorrelatedNormal(50, 0.3, 9)
	b := CorrelatedNormal(50, 0.3, 9)
	c := CorrelatedNormal(50, 0.3, 10)
	if !slices.Equal(a.Y, b.Y) || !mat.Equal(a.X, b.X) {
		t.Error("not deterministic")
	}
	if slices.Equal(a.Y, c.Y) {
		t.Error("different seeds give the same data")
	}
	if e := CorrelatedNormal(0, 0.5, 1); e.Len() != 0 || e.Dim() != 1 {
		t.Errorf("n=0: %d×%d", e.Len(), e.Dim())
	}
	for _, rho := range []float64{1.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic for rho=%v", rho)
				}
			}()
			CorrelatedNormal(3, rho, 0)
		}()
	}
}
