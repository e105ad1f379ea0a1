package sampler_test

import (
	"context"
	"fmt"
	"math"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// SGHMC with friction α = 0.1 on a correlated Gaussian whose gradient carries
// injected N(0, 2²I) noise, with the noise estimate B̂ = 4 supplied: the
// sampler subtracts η²B̂ from its injected noise so that the stationary
// covariance stays close to the target's.
func ExampleSGHMC() {
	g, err := model.NewGauss2(0.9)
	if err != nil {
		panic(err)
	}
	m := model.NoisyGradient{Model: g, SD: 2, Seed: 1}
	s := sampler.SGHMC{
		Step:      schedule.Constant(0.002),
		Friction:  0.1,
		GradNoise: []float64{4, 4},
	}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: 200000, BurnIn: 10000, Thin: 10, Seed: 1,
	})
	if err != nil {
		panic(err)
	}
	x, y := tr.Param(0), tr.Param(1)
	var sxx, syy, sxy, n float64
	for c := range x {
		for t := range x[c] {
			sxx += x[c][t] * x[c][t]
			syy += y[c][t] * y[c][t]
			sxy += x[c][t] * y[c][t]
			n++
		}
	}
	fmt.Printf("sd %.1f %.1f, correlation %.2f (target 1, 1, 0.90)\n",
		math.Sqrt(sxx/n), math.Sqrt(syy/n), sxy/math.Sqrt(sxx*syy))
	// Output:
	// sd 1.0 1.0, correlation 0.90 (target 1, 1, 0.90)
}

// Cyclical SGLD on the mixture of 25 Gaussians (Zhang et al. 2020, Fig. 7):
// 30 cycles with large exploration steps at the start of each cycle visit
// far more modes than SGLD with a decaying step.
func ExampleCSGLD() {
	m := model.NewMixture25()
	s := sampler.CSGLD(0.07, 50000, 30, 0.03, sampler.Minibatch{})
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 1, Iters: 50000, Seed: 2,
		Init: langevin.InitAt{Points: [][]float64{{-1, 1}}},
	})
	if err != nil {
		panic(err)
	}
	// A mode counts when at least 0.5% of the kept draws lie within 3 sd of it.
	count := map[[2]int]int{}
	x, y := tr.Param(0)[0], tr.Param(1)[0]
	for t := range x {
		i, j := math.Round(x[t]/2), math.Round(y[t]/2)
		if math.Abs(i) <= 2 && math.Abs(j) <= 2 && math.Hypot(x[t]-2*i, y[t]-2*j) < 3*math.Sqrt(0.03) {
			count[[2]int{int(i), int(j)}]++
		}
	}
	visited := 0
	for _, c := range count {
		if float64(c) >= 0.005*float64(len(x)) {
			visited++
		}
	}
	fmt.Println("modes visited:", visited)
	// Output:
	// modes visited: 17
}
