//go:build amd64 && !purego

package ad

// useAVX reports whether the CPU and OS support AVX2 and FMA, for the
// assembly kernels of axpyCols and dotCols (Go assembly, no cgo).
var useAVX = cpuidAVX2FMA()

func cpuidAVX2FMA() bool

//go:noescape
func axpy4AVX(y, c0, c1, c2, c3 *float64, n int, b0, b1, b2, b3 float64)

//go:noescape
func dot4AVX(d, c0, c1, c2, c3 *float64, n int) (s0, s1, s2, s3 float64)
