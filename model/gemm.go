package model

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// native is gonum's pure-Go BLAS.
var native gonum.Implementation

// gemm computes C ← A B + βC for row-major matrices, where A is m×k (or its
// transpose stored k×m) and B is k×n (or its transpose stored n×k).
//
// Products with m·n·k ≥ bigGemmFlops go to bigGemm when a build tag provides
// one (OpenBLAS with -tags openblas, see gemm_openblas.go); the others, and
// all products in the default build, run on gonum's pure-Go BLAS: a cgo call
// costs more than a small product.
//
// On the pure-Go back end, C is cut into tiles of at most gemmTileM ×
// gemmTileN: gonum's Dgemm runs a product with four or more 64×64 blocks of C
// on new goroutines, which allocates on every call and, with several chains
// already running in parallel, is slower than running serially. Each tile
// stays below that threshold, so gemm neither allocates nor starts
// goroutines; the inner kernel is the same.
func gemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if bigGemm != nil && m*n*k >= bigGemmFlops {
		bigGemm.Dgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if tA == blas.NoTrans && tB == blas.Trans && beta == 1 && k <= smallK {
		gemmNTSmall(m, n, k, a, lda, b, ldb, c, ldc) // gonum's sums, without a call per entry
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
			native.Dgemm(tA, tB, mi, nj, k, 1, ai, lda, bj, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}

// Tiles of 64×192 are 1×3 of gonum's 64×64 blocks, below its threshold of 4
// blocks for going parallel.
const (
	gemmTileM = 64
	gemmTileN = 192
)

// bigGemmFlops is the size m·n·k from which products go to bigGemm.
const bigGemmFlops = 32 * 32 * 32
