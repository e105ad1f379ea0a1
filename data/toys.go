package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// toyStream is the second word of the PCG state of the toy generators
// ("toysdata" in ASCII).
const toyStream = 0x746f797364617461

// Moons returns the two interleaving half circles of scikit-learn's
// make_moons(n_samples=n, noise=noise, shuffle=true): n/2 (rounded down)
// points of class 0 on the outer arc (cos t, sin t) and the rest of class 1
// on the inner arc (1 − cos t, ½ − sin t), t evenly spaced in [0, π]
// (numpy's linspace), shuffled, plus independent N(0, noise²) noise on both
// coordinates. The geometry matches scikit-learn exactly (see the test's
// fixture); the shuffle and the noise use this package's seeded PCG stream,
// not numpy's. Features x1, x2; target y (0/1).
func Moons(n int, noise float64, seed uint64) (*Dataset, error) {
	if n < 2 {
		return nil, fmt.Errorf("data: moons with %d points: expected at least 2", n)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("data: moons noise %v: expected a finite sd ≥ 0", noise)
	}
	nOut := n / 2
	nIn := n - nOut
	x := make([]float64, 2*n)
	y := make([]float64, n)
	for i := 0; i < nOut; i++ {
		t := linspace(math.Pi, nOut, i)
		x[2*i], x[2*i+1] = math.Cos(t), math.Sin(t)
	}
	for i := 0; i < nIn; i++ {
		t := linspace(math.Pi, nIn, i)
		k := nOut + i
		x[2*k], x[2*k+1] = 1-math.Cos(t), 1-math.Sin(t)-0.5
		y[k] = 1
	}
	rng := rand.New(rand.NewPCG(seed, toyStream))
	shuffleRows(rng, x, y, 2)
	for i := range x {
		x[i] += noise * rng.NormFloat64()
	}
	return &Dataset{
		X: mat.NewDense(n, 2, x), Y: y, Names: []string{"x1", "x2"}, Target: "y",
		Source: fmt.Sprintf("moons(n=%d, noise=%g, seed=%d)", n, noise, seed),
	}, nil
}

// linspace returns the i-th of n evenly spaced numbers from 0 to hi, as
// numpy.linspace(0, hi, n) computes it: i·(hi/(n−1)), and hi at the end.
func linspace(hi float64, n, i int) float64 {
	if n == 1 {
		return 0
	}
	if i == n-1 {
		return hi
	}
	return float64(i) * (hi / float64(n-1))
}

// shuffleRows permutes the rows (of width p) of x together with y.
func shuffleRows(rng *rand.Rand, x, y []float64, p int) {
	rng.Shuffle(len(y), func(i, j int) {
		y[i], y[j] = y[j], y[i]
		for k := 0; k < p; k++ {
			x[i*p+k], x[j*p+k] = x[j*p+k], x[i*p+k]
		}
	})
}

// Spirals returns k interleaved spiral arms with n points each (the CS231n
// construction): point i of arm c has radius r = i/(n−1) and angle
// t = 4c + 4r + noise·ξ, ξ ~ N(0, 1) (radians), at (r sin t, r cos t), class
// c = 0, …, k−1. Rows are shuffled. Features x1, x2; target y. All arms
// start at the origin, where the classes overlap; SpiralsFrom starts them at
// a positive radius.
func Spirals(k, n int, noise float64, seed uint64) (*Dataset, error) {
	return spirals(k, n, 0, noise, seed)
}

// SpiralsFrom is Spirals with the arms starting at radius r0 ∈ [0, 1):
// r = r0 + (1 − r0)·i/(n−1), angle t = 4c + 4r + noise·ξ. With r0 > 0 the arms
// are apart everywhere, as in the classic two-spirals benchmark (Lang &
// Witbrock 1988: radii from 0.5 to 6.5, r0 = 1/13 in these units), so the
// classes are separable up to the angle noise. SpiralsFrom(k, n, 0, …) is
// Spirals (the same points for the same seed).
func SpiralsFrom(k, n int, r0, noise float64, seed uint64) (*Dataset, error) {
	if !(r0 >= 0 && r0 < 1) {
		return nil, fmt.Errorf("data: spirals inner radius %v: expected 0 ≤ r0 < 1", r0)
	}
	return spirals(k, n, r0, noise, seed)
}

func spirals(k, n int, r0, noise float64, seed uint64) (*Dataset, error) {
	if k < 2 || n < 2 {
		return nil, fmt.Errorf("data: %d spirals of %d points: expected at least 2 of each", k, n)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("data: spirals noise %v: expected a finite sd ≥ 0", noise)
	}
	rng := rand.New(rand.NewPCG(seed, toyStream+1))
	x := make([]float64, 2*k*n)
	y := make([]float64, k*n)
	for c := 0; c < k; c++ {
		for i := 0; i < n; i++ {
			r := float64(i) / float64(n-1)
			if r0 > 0 {
				r = r0 + (1-r0)*r
			}
			t := 4*float64(c) + 4*r + noise*rng.NormFloat64()
			row := c*n + i
			x[2*row], x[2*row+1] = r*math.Sin(t), r*math.Cos(t)
			y[row] = float64(c)
		}
	}
	shuffleRows(rng, x, y, 2)
	src := fmt.Sprintf("spirals(k=%d, n=%d, noise=%g, seed=%d)", k, n, noise, seed)
	if r0 > 0 {
		src = fmt.Sprintf("spirals(k=%d, n=%d, r0=%.4g, noise=%g, seed=%d)", k, n, r0, noise, seed)
	}
	return &Dataset{
		X: mat.NewDense(k*n, 2, x), Y: y, Names: []string{"x1", "x2"}, Target: "y",
		Source: src,
	}, nil
}

// Gap1D returns n points of a 1-D regression with a gap in x: x uniform on
// [−2, −0.5] ∪ [0.5, 2] (half on each side), y = sin(2x) + 0.5x +
// noise·ξ, ξ ~ N(0, 1). Nothing is observed in (−0.5, 0.5), where a Bayesian
// model's predictive interval should widen. Feature x; target y.
func Gap1D(n int, noise float64, seed uint64) (*Dataset, error) {
	if n < 2 {
		return nil, fmt.Errorf("data: gap1d with %d points: expected at least 2", n)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("data: gap1d noise %v: expected a finite sd ≥ 0", noise)
	}
	rng := rand.New(rand.NewPCG(seed, toyStream+2))
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		u := 0.5 + 1.5*rng.Float64()
		if i%2 == 0 {
			u = -u
		}
		x[i] = u
		y[i] = Gap1DMean(u) + noise*rng.NormFloat64()
	}
	return &Dataset{
		X: mat.NewDense(n, 1, x), Y: y, Names: []string{"x"}, Target: "y",
		Source: fmt.Sprintf("gap1d(n=%d, noise=%g, seed=%d)", n, noise, seed),
	}, nil
}

// Gap1DMean is the regression function of Gap1D, sin(2x) + 0.5x.
func Gap1DMean(x float64) float64 { return math.Sin(2*x) + 0.5*x }

// Gap1DGap is the interval of x with no data in Gap1D.
var Gap1DGap = [2]float64{-0.5, 0.5}
