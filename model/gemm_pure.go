//go:build !openblas

package model

import "gonum.org/v1/gonum/blas"

// bigGemm is nil in the default, pure-Go build: every product runs on
// gonum's BLAS (see gemm).
var bigGemm blas.Float64
