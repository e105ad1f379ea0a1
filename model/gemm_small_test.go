package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestGemmSmallBitForBit: the small-k loop gives gonum's Dgemm's products
// bit for bit (same sums in the same order), for every k up to smallK,
// strided operands and values of mixed scale; a sum in another order
// (sequential) differs on these data.
func TestGemmSmallBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	val := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)) }
	seqDiffers := false
	for k := 1; k <= smallK; k++ {
		const m, n, lda, ldb, ldc = 37, 29, smallK + 3, smallK + 1, 31
		a, b := make([]float64, m*lda), make([]float64, n*ldb)
		for i := range a {
			a[i] = val()
		}
		for i := range b {
			b[i] = val()
		}
		c0 := make([]float64, m*ldc)
		for i := range c0 {
			c0[i] = val()
		}
		want := append([]float64(nil), c0...)
		native.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 1, want, ldc)
		got := append([]float64(nil), c0...)
		gemm(blas.NoTrans, blas.Trans, m, n, k, a, lda, b, ldb, 1, got, ldc)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("k = %d: entry %d: %v, gonum %v", k, i, got[i], want[i])
			}
		}
		for i := range m {
			for j := range n {
				var s float64
				for l := range k {
					s += a[i*lda+l] * b[j*ldb+l]
				}
				if c0[i*ldc+j]+s != want[i*ldc+j] {
					seqDiffers = true
				}
			}
		}
	}
	if dotLanes > 1 && !seqDiffers {
		t.Error("a sequential sum agreed with gonum everywhere: the test cannot tell the orders apart")
	}
}
