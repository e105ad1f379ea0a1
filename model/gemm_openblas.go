//go:build openblas

package model

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// With -tags openblas (and CGO_LDFLAGS=-lopenblas), blas64 — and so every
// matrix product of the MLP, and gonum/mat in the whole program — runs on
// OpenBLAS through gonum's netlib cgo bindings. Products are not tiled:
// OpenBLAS blocks internally. Parallel chains want OPENBLAS_NUM_THREADS=1.
func init() { blas64.Use(netlib.Implementation{}) }

const tileGemm = false
