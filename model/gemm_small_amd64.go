//go:build !noasm && !gccgo && !safe

package model

// dotSmall is Σ x[l]·y[l] summed in the order of gonum's DotUnitary on
// amd64 (internal/asm/f64/dot_amd64.s): four running sums over x[4q],
// x[4q+1], x[4q+2], x[4q+3], the 1–3 remaining terms into the first, then
// (s₀ + s₂) + (s₁ + s₃). The conversions keep each product rounded (no
// fused multiply-add), as the assembly does.
func dotSmall(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	l := 0
	for ; l+4 <= len(x); l += 4 {
		s0 += float64(x[l] * y[l])
		s1 += float64(x[l+1] * y[l+1])
		s2 += float64(x[l+2] * y[l+2])
		s3 += float64(x[l+3] * y[l+3])
	}
	for ; l < len(x); l++ {
		s0 += float64(x[l] * y[l])
	}
	return (s0 + s2) + (s1 + s3)
}

// dotLanes is the number of running sums of dotSmall.
const dotLanes = 4
