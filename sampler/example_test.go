package sampler_test

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// SGLD on the conjugate linear regression, checked against its exact
// posterior: with the Laplace diagonal preconditioner and η = 0.1·B/N, the
// minibatch noise is about 5% of the injected noise.
func ExampleSGLD() {
	d := data.CorrelatedNormal(1000, 0.9, 1)
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{})
	if err != nil {
		panic(err)
	}
	exact := m.Posterior()
	pre, err := approx.LaplacePrecond(m, exact.MAP())
	if err != nil {
		panic(err)
	}
	s := sampler.SGLD{
		Step:    schedule.Constant(0.1 * 10 / 1000.0),
		Batch:   sampler.Minibatch{Size: 10},
		Precond: pre,
	}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: 100000, BurnIn: 10000, Thin: 45, Seed: 3,
		Init: langevin.InitAt{Points: [][]float64{exact.MAP()}},
	})
	if err != nil {
		panic(err)
	}
	mean := tr.Mean(nil)
	for j, name := range m.ParamNames() {
		fmt.Printf("%-10s SGLD %6.3f  exact %6.3f ± %.3f\n", name, mean[j], exact.Mean()[j], exact.SD()[j])
	}
	// Output:
	// intercept  SGLD  0.002  exact  0.003 ± 0.014
	// beta.1     SGLD  0.874  exact  0.875 ± 0.014
	// log_sigma2 SGLD -1.661  exact -1.661 ± 0.045
}
