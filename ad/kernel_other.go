//go:build !amd64 || purego

package ad

const useAVX = false

func axpy4AVX(y, c0, c1, c2, c3 *float64, n int, b0, b1, b2, b3 float64) {
	panic("ad: no assembly kernels")
}

func dot4AVX(d, c0, c1, c2, c3 *float64, n int) (s0, s1, s2, s3 float64) {
	panic("ad: no assembly kernels")
}
