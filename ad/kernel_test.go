package ad

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernels checks axpyCols and dotCols (with the assembly kernels where
// the CPU has them) against plain loops, for lengths around multiples of 4
// and column counts around multiples of 4.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 40
	for p := 1; p <= 9; p++ {
		cols := make([]float64, p*n)
		for i := range cols {
			cols[i] = rng.NormFloat64()
		}
		b := make([]float64, p)
		for j := range b {
			b[j] = rng.NormFloat64()
		}
		for lo := 0; lo < 3; lo++ {
			for m := 0; m <= 13; m++ {
				y, want := make([]float64, m), make([]float64, m)
				for k := range y {
					y[k] = rng.NormFloat64()
					want[k] = y[k]
					for j := range b {
						want[k] += b[j] * cols[j*n+lo+k]
					}
				}
				axpyCols(y, b, cols, n, lo)
				for k := range y {
					if math.Abs(y[k]-want[k]) > 1e-13 {
						t.Fatalf("axpyCols p=%d lo=%d m=%d: y[%d] = %g, want %g (AVX %v)", p, lo, m, k, y[k], want[k], useAVX)
					}
				}
				g, wg := make([]float64, p), make([]float64, p)
				for j := range g {
					g[j] = 1
					wg[j] = 1
					for k := 0; k < m; k++ {
						wg[j] += y[k] * cols[j*n+lo+k]
					}
				}
				dotCols(g, y, cols, n, lo)
				for j := range g {
					if math.Abs(g[j]-wg[j]) > 1e-12 {
						t.Fatalf("dotCols p=%d lo=%d m=%d: g[%d] = %g, want %g (AVX %v)", p, lo, m, j, g[j], wg[j], useAVX)
					}
				}
			}
		}
	}
}
