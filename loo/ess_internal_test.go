package loo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAcov3 checks the three-lag autocovariance pass against the lagged sums
// written out, for every chain length up to 40 and every lag, where the
// unrolled loop runs zero, one or many times.
func TestAcov3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, chains := range []int{1, 3} {
		for n := 1; n <= 40; n++ {
			y := make([]float64, chains*n)
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			g := make([]float64, 3)
			for lag0 := 0; lag0 <= n; lag0++ {
				acov3(y, chains, n, lag0, g, 0.5)
				for j := range 3 {
					var want float64
					for c := range chains {
						var s float64
						for i := 0; i+lag0+j < n; i++ {
							s += y[c*n+i] * y[c*n+i+lag0+j]
						}
						want += 0.5 * s
					}
					want /= float64(chains)
					if math.Abs(g[j]-want) > 1e-13*(1+math.Abs(want)) {
						t.Fatalf("chains %d, n %d, lag %d: %v, want %v", chains, n, lag0+j, g[j], want)
					}
				}
			}
		}
	}
}
