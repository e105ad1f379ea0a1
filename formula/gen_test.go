package formula

import (
	"gonum.org/v1/gonum/mat"
	"math"
	"math/rand/v2"
	"strconv"
)

// simFrame returns generated data: J groups, correlated varying intercepts
// and slopes of x, a two-level text factor f, a second grouping factor h,
// an exposure u; y drawn from the family.
func simFrame(n, J int, family string, seed uint64) *Frame {
	rng := rand.New(rand.NewPCG(seed, 11))
	sdI, sdX, rho := 0.8, 0.5, 0.4
	a := make([]float64, J)
	bx := make([]float64, J)
	for j := range a {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		a[j] = sdI * z1
		bx[j] = sdX * (rho*z1 + math.Sqrt(1-rho*rho)*z2)
	}
	hJ := 6
	hEff := make([]float64, hJ)
	for k := range hEff {
		hEff[k] = 0.6 * rng.NormFloat64()
	}
	x := make([]float64, n)
	w := make([]float64, n)
	u := make([]float64, n)
	y := make([]float64, n)
	g := make([]float64, n)
	hc := make([]int, n)
	fc := make([]int, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		w[i] = rng.Float64()*2 - 1
		u[i] = 0.5 + 2*rng.Float64()
		gi := rng.IntN(J)
		g[i] = float64(gi + 1)
		hc[i] = rng.IntN(hJ)
		fc[i] = rng.IntN(2)
		eta := a[gi] + 0.3 + (0.7+bx[gi])*x[i] - 0.4*w[i] + 0.5*float64(fc[i])
		switch family {
		case "bernoulli":
			if rng.Float64() < 1/(1+math.Exp(-eta)) {
				y[i] = 1
			}
		case "poisson":
			y[i] = float64(poisson(rng, u[i]*math.Exp(eta-0.3)))
		case "gaussian":
			y[i] = 2 + eta + hEff[hc[i]] + 0.7*rng.NormFloat64()
		}
	}
	hl := make([]string, hJ)
	for k := range hl {
		hl[k] = "h" + strconv.Itoa(k+1)
	}
	f := &Frame{}
	f.AddNumeric("y", y)
	f.AddNumeric("x", x)
	f.AddNumeric("w", w)
	f.AddNumeric("u", u)
	f.AddNumeric("g", g)
	f.AddFactor("h", hc, hl)
	f.AddFactor("f", fc, []string{"a", "b"})
	return f
}

func poisson(rng *rand.Rand, mu float64) int {
	L, k, p := math.Exp(-mu), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= L {
			return k
		}
		k++
	}
}

func denseOf(n, p int, x []float64) *mat.Dense { return mat.NewDense(n, p, x) }
