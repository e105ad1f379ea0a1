package loo_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

// PSIS-LOO of a normal model y ~ N(μ, 1) with 1,000 posterior draws of μ in
// 4 chains, for 20 observations of which the last is an outlier.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 20)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	y[19] = 6
	var ybar float64
	for _, v := range y {
		ybar += v / 20
	}
	const S = 1000
	ll := mat.NewDense(len(y), S, nil)
	for s := range S {
		mu := ybar + rng.NormFloat64()/math.Sqrt(20) // the posterior under a flat prior
		for i, v := range y {
			ll.Set(i, s, -0.5*(v-mu)*(v-mu)-0.5*math.Log(2*math.Pi))
		}
	}
	blocks := func(yield func(*mat.Dense, error) bool) { yield(ll, nil) }
	res, err := loo.LOO(blocks, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("elpd_loo %.1f (se %.1f), p_loo %.1f, looic %.1f\n",
		res.ELPD.Estimate, res.ELPD.SE, res.PLoo.Estimate, res.LooIC.Estimate)
	last := res.Pointwise[19]
	fmt.Printf("outlier: elpd %.1f, k̂ %.2f (%s)\n", last.ELPD, last.K, loo.BandNames[loo.BandOf(last.K)])
	for b, n := range loo.BandNames {
		fmt.Printf("%-8s %d\n", n, res.Bands[b].Count)
	}
	// Output:
	// elpd_loo -52.2 (se 17.6), p_loo 3.1, looic 104.4
	// outlier: elpd -18.3, k̂ 0.44 (good)
	// good     20
	// ok       0
	// bad      0
	// very bad 0
}

// Two models of the same 50 observations compared by PSIS-LOO: the normal
// model with the posterior of its mean, and one whose mean is off by 1.
func ExampleCompare() {
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, 50)
	var ybar float64
	for i := range y {
		y[i] = rng.NormFloat64()
		ybar += y[i] / 50
	}
	const S = 1000
	good, off := mat.NewDense(len(y), S, nil), mat.NewDense(len(y), S, nil)
	for s := range S {
		mu := ybar + rng.NormFloat64()/math.Sqrt(50)
		for i, v := range y {
			good.Set(i, s, -0.5*(v-mu)*(v-mu)-0.5*math.Log(2*math.Pi))
			off.Set(i, s, -0.5*(v-mu-1)*(v-mu-1)-0.5*math.Log(2*math.Pi))
		}
	}
	var res []*loo.Result
	for _, m := range []*mat.Dense{good, off} {
		r, err := loo.LOO(func(yield func(*mat.Dense, error) bool) { yield(m, nil) }, 4)
		if err != nil {
			fmt.Println(err)
			return
		}
		res = append(res, r)
	}
	cmp, _ := loo.Compare(res...)
	names := []string{"good", "off"}
	for _, c := range cmp {
		fmt.Printf("%-5s elpd_diff %6.1f  se_diff %4.1f\n", names[c.Model], c.ELPDDiff, c.SEDiff)
	}
	lpd, _ := loo.ELPDMatrix(res...)
	w := make([]float64, 2)
	loo.Stacking(w, lpd)
	fmt.Printf("stacking weights %.2f %.2f\n", w[0], w[1])
	// Output:
	// good  elpd_diff    0.0  se_diff  0.0
	// off   elpd_diff  -25.6  se_diff  7.2
	// stacking weights 1.00 0.00
}
