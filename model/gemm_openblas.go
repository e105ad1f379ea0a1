//go:build openblas

package model

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// With -tags openblas (build with CGO_LDFLAGS=-lopenblas; Debian package
// libopenblas-dev), the MLP's large matrix products run on OpenBLAS through
// gonum's netlib cgo bindings; small ones stay on gonum's pure-Go BLAS,
// which is faster below about 32³ multiply-adds. OpenBLAS starts its own
// threads: parallel chains want OPENBLAS_NUM_THREADS=1.
var bigGemm blas.Float64 = netlib.Implementation{}
