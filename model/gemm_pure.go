//go:build !openblas

package model

// tileGemm: the pure-Go BLAS runs tiled, serial products (see gemm).
const tileGemm = true
