package loo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMeanLog1p checks the product form of the GPD profile's mean
// logarithm against one math.Log1p a term, on samples of every length up
// to 300 (the unrolled blocks and their remainders), with a from the small
// (the series path) to near the pole 1 + a·x₍ₙ₎ → 0 and to factors of 10¹⁰⁰
// (the products leave the range: one logarithm a factor).
func TestMeanLog1p(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var worst float64
	for n := 1; n <= 300; n += 1 + n/20 {
		for _, spread := range []float64{1, 1e3, 1e100} {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Pow(spread, rng.Float64())
			}
			slices.Sort(x)
			for _, a := range []float64{1e-5, 0.3, -0.5 / x[n-1], -0.999999 / x[n-1], 5, 1e10} {
				var want float64
				for _, v := range x {
					want += math.Log1p(a * v)
				}
				want /= float64(n)
				got := meanLog1p(a, x)
				e := math.Abs(got-want) / math.Max(1, math.Abs(want))
				worst = math.Max(worst, e)
				if e > 1e-13 {
					t.Errorf("n %d, spread %g, a %g: %.17g, want %.17g", n, spread, a, got, want)
				}
			}
		}
	}
	t.Logf("largest error: %.2g", worst)
}
