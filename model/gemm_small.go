package model

// smallK is the largest inner dimension k of a product A Bᵀ (A NoTrans, B
// Trans: a layer's pre-activations X Wᵀ) that gemm computes with its own
// loop instead of gonum's Dgemm. gonum computes each entry of such a
// product with one call of its assembly dot product, whose cost at k = 2
// (moons' first layer: 50 calls a row) is mostly the call; the loop
// computes the same sums in the same order (dotSmall), so the results are
// bit for bit gonum's.
const smallK = 16

// gemmNTSmall adds A Bᵀ to C: A m×k, B n×k, C m×n, row-major, k ≤ smallK.
func gemmNTSmall(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := range m {
		ai := a[i*lda : i*lda+k]
		ci := c[i*ldc : i*ldc+n]
		for j := range ci {
			ci[j] += dotSmall(ai, b[j*ldb:j*ldb+k])
		}
	}
}
