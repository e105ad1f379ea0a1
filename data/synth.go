package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// CorrelatedNormal returns n independent pairs (x, y) drawn from the
// bivariate normal distribution with zero means, unit variances and
// correlation rho, as a Dataset with one feature named "x" and the target
// "y". The population regression of y on x therefore has intercept 0, slope
// rho and residual variance 1 − rho².
//
// The draws are deterministic for a seed: they use the Box–Muller transform
// on raw outputs of a PCG generator, x = z1 and y = rho·z1 + sqrt(1−rho²)·z2
// for standard normal z1, z2. CorrelatedNormal panics if n is negative or
// rho is not in [−1, 1]. For n = 0 the result is an empty Dataset.
func CorrelatedNormal(n int, rho float64, seed uint64) *Dataset {
	if n < 0 {
		panic(fmt.Sprintf("data: CorrelatedNormal with negative n %d", n))
	}
	if !(rho >= -1 && rho <= 1) {
		panic(fmt.Sprintf("data: correlation %v not in [-1, 1]", rho))
	}
	src := rand.NewPCG(seed, normalStream)
	s := math.Sqrt(1 - rho*rho)
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range n {
		z1, z2 := normalPair(src)
		x[i] = z1
		y[i] = rho*z1 + s*z2
	}
	d := &Dataset{
		Y:      y,
		Names:  []string{"x"},
		Target: "y",
		Source: fmt.Sprintf("CorrelatedNormal(n=%d, rho=%g, seed=%d)", n, rho, seed),
	}
	if n == 0 {
		d.X = &mat.Dense{}
	} else {
		d.X = mat.NewDense(n, 1, x)
	}
	return d
}

// normalPair returns two independent standard normal deviates (Box–Muller).
func normalPair(src *rand.PCG) (float64, float64) {
	// Uniforms in (0, 1): 53 random bits, offset by half a step.
	const step = 1.0 / (1 << 53)
	u1 := (float64(src.Uint64()>>11) + 0.5) * step
	u2 := (float64(src.Uint64()>>11) + 0.5) * step
	r := math.Sqrt(-2 * math.Log(u1))
	sin, cos := math.Sincos(2 * math.Pi * u2)
	return r * cos, r * sin
}
