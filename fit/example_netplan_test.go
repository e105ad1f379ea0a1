package fit_test

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// The library path of langevin run --model mlp with no tuning flag: the
// network's defaults (model.MLPDefaults: fan-in prior; for regression a
// standardised response and a learned noise), the network plan (multi-start
// MAP, preconditioner, step from the curvature, burn-in) and a run until the
// predictions converge. The command does the same with --data moons --n 200
// --hidden 10 --test-frac 0 --standardize=false.
func ExampleNewNetPlan() {
	d, _ := data.Moons(200, 0.1, 1)
	m, err := model.NewMLP(d.X, d.Y, model.MLPDefaults(model.MLPOptions{Hidden: []int{10}, Likelihood: model.LikBernoulli}))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	p, err := fit.NewNetPlan(ctx, m, fit.NetPlanOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var conv *fit.FunctionConvergence
	tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{
		Chains: 4, Iters: p.MaxIters, BurnIn: p.BurnIn, Init: p.Init(), Seed: 1,
		Until: p.Until(m, 100, &conv), CheckEvery: max(200, p.BurnIn/4), MaxKeep: 250,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s from %d modes, %d draws a chain; converged in function space: %v\n", p.Kind, len(p.Modes), len(tr.Draws[0]), conv.Converged)
	// Output:
	// sghmc from 4 modes, 146 draws a chain; converged in function space: true
}
