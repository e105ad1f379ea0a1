//go:build !amd64 || noasm || gccgo || safe

package model

// dotSmall is Σ x[l]·y[l] summed in the order of gonum's pure-Go
// DotUnitary: from the first term to the last, written as gonum writes it
// (so a compiler that fuses its multiply-adds fuses these alike).
func dotSmall(x, y []float64) (sum float64) {
	y = y[:len(x)]
	for l, v := range x {
		sum += y[l] * v // as gonum writes it: fused where the compiler fuses gonum's
	}
	return sum
}

// dotLanes is the number of running sums of dotSmall.
const dotLanes = 1
