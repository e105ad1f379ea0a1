package predict

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fakeOffset: E[yᵢ|θ] = θ₀ + oᵢ + xᵢ, log p(yᵢ|θ) = −(yᵢ − E)²/2.
type fakeOffset struct{}

func (fakeOffset) Dim() int { return 1 }
func (fakeOffset) Mean(th []float64, X *mat.Dense, off, dst []float64) []float64 {
	for i := range dst {
		dst[i] = th[0] + X.At(i, 0)
		if off != nil {
			dst[i] += off[i]
		}
	}
	return dst
}
func (f fakeOffset) LogDensity(th []float64, X *mat.Dense, off, y, dst []float64) []float64 {
	f.Mean(th, X, off, dst)
	for i := range dst {
		dst[i] = -(y[i] - dst[i]) * (y[i] - dst[i]) / 2
	}
	return dst
}

// TestOffsetAverages: the predictive mean and the log predictive density
// over 3 draws and 600 rows (three blocks) equal the sums written out.
func TestOffsetAverages(t *testing.T) {
	n := 600
	X := mat.NewDense(n, 1, nil)
	off, y := make([]float64, n), make([]float64, n)
	for i := range n {
		X.Set(i, 0, math.Sin(float64(i)))
		off[i], y[i] = 0.01*float64(i%7), math.Cos(float64(i))
	}
	draws := [][]float64{{0.1}, {-0.3}, {0.7}}
	mean := OffsetMean(fakeOffset{}, draws, X, off, nil)
	var lpd float64
	for i := range n {
		var m, p float64
		for _, th := range draws {
			e := th[0] + X.At(i, 0) + off[i]
			m += e / 3
			p += math.Exp(-(y[i]-e)*(y[i]-e)/2) / 3
		}
		if math.Abs(mean[i]-m) > 1e-12 {
			t.Fatalf("row %d: mean %g, want %g", i, mean[i], m)
		}
		lpd += math.Log(p) / float64(n)
	}
	if got := OffsetLogPredictiveDensity(fakeOffset{}, draws, X, off, y); math.Abs(got-lpd) > 1e-12 {
		t.Errorf("log predictive density %g, want %g", got, lpd)
	}
}
