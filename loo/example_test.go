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
