package model

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm computes C ← A B + βC for row-major matrices with the BLAS back end
// of blas64 (gonum's pure-Go implementation unless a build tag installs
// another, see blas_openblas.go), where A is m×k (or its transpose stored
// k×m) and B is k×n (or its transpose stored n×k).
//
// With the pure-Go back end, C is cut into tiles of at most gemmTileM ×
// gemmTileN: gonum's Dgemm runs a product with four or more 64×64 blocks of C
// on new goroutines, which allocates on every call and, with several chains
// already running in parallel, is slower than running serially. Each tile
// stays below that threshold, so gemm neither allocates nor starts
// goroutines; the inner kernel is the same.
func gemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	impl := blas64.Implementation()
	if !tileGemm {
		impl.Dgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	for i := 0; i < m; i += gemmTileM {
		mi := min(gemmTileM, m-i)
		var ai []float64
		if tA == blas.NoTrans {
			ai = a[i*lda:]
		} else {
			ai = a[i:]
		}
		for j := 0; j < n; j += gemmTileN {
			nj := min(gemmTileN, n-j)
			var bj []float64
			if tB == blas.NoTrans {
				bj = b[j:]
			} else {
				bj = b[j*ldb:]
			}
			impl.Dgemm(tA, tB, mi, nj, k, 1, ai, lda, bj, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}

// Tiles of 64×192 are 1×3 of gonum's 64×64 blocks, below its threshold of 4
// blocks for going parallel.
const (
	gemmTileM = 64
	gemmTileN = 192
)
