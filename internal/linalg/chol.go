// Package linalg holds the module's one in-place dense Cholesky
// factorisation and its triangular solves, for the callers whose hot loops
// must not allocate and whose matrices are small (gonum's mat.Cholesky
// allocates its factor).
package linalg

import "math"

// CholLower computes the lower Cholesky factor L of the symmetric positive
// definite n×n matrix A = L Lᵀ, row-major, reading only the lower triangle
// (diagonal included) of a and writing only the lower triangle of l; the
// strict upper triangle of l is neither read nor written. l may be a (in
// place). It is the left-looking (Cholesky–Crout) order:
//
//	L_jj = √(A_jj − Σ_{k<j} L_jk²),  L_ij = (A_ij − Σ_{k<j} L_ik L_jk) / L_jj  (i > j),
//
// summed in increasing k, so results are reproducible bit for bit. It
// reports false, leaving l partly written, when a pivot is not positive and
// finite (A not positive definite, or not finite). It allocates nothing.
func CholLower(l, a []float64, n int) bool {
	if len(a) < n*n || len(l) < n*n {
		panic("linalg: CholLower: slice shorter than n×n")
	}
	for j := 0; j < n; j++ {
		s := a[j*n+j]
		for k := 0; k < j; k++ {
			s -= l[j*n+k] * l[j*n+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		d := math.Sqrt(s)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := a[i*n+j]
			for k := 0; k < j; k++ {
				v -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = v / d
		}
	}
	return true
}

// SolveLower writes x = L⁻¹b into x by forward substitution, L the lower
// triangle (diagonal included) of the n×n row-major l, as CholLower writes
// it:
//
//	xᵢ = (bᵢ − Σ_{k<i} L_ik x_k) / L_ii,  i = 0, 1, …, n−1,
//
// summed in increasing k. x may be b (in place). It allocates nothing.
func SolveLower(x, l, b []float64, n int) {
	for i := 0; i < n; i++ {
		s := b[i]
		for k, v := range l[i*n : i*n+i] {
			s -= v * x[k]
		}
		x[i] = s / l[i*n+i]
	}
}

// SolveLowerT writes x = L⁻ᵀb into x by back substitution, L as in
// SolveLower:
//
//	xᵢ = (bᵢ − Σ_{k>i} L_ki x_k) / L_ii,  i = n−1, …, 0,
//
// summed in increasing k. x may be b (in place). It allocates nothing.
func SolveLowerT(x, l, b []float64, n int) {
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * x[k]
		}
		x[i] = s / l[i*n+i]
	}
}
