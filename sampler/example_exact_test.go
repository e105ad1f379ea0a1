package sampler_test

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// NUTS as the exact reference on the conjugate linear regression: Stan's
// warm-up (dual averaging to 0.8, windowed diagonal metric) over the
// 1000-iteration burn-in, then 1000 draws per chain.
func ExampleNUTS() {
	d := data.CorrelatedNormal(1000, 0.9, 1)
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{})
	if err != nil {
		panic(err)
	}
	exact := m.Posterior()
	s := sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000}}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 1,
		Init: langevin.InitAt{Points: [][]float64{exact.MAP()}},
	})
	if err != nil {
		panic(err)
	}
	mean := tr.Mean(nil)
	for j, name := range m.ParamNames() {
		fmt.Printf("%-10s NUTS %6.3f  exact %6.3f ± %.3f\n", name, mean[j], exact.Mean()[j], exact.SD()[j])
	}
	// Output:
	// intercept  NUTS  0.003  exact  0.003 ± 0.014
	// beta.1     NUTS  0.875  exact  0.875 ± 0.014
	// log_sigma2 NUTS -1.661  exact -1.661 ± 0.045
}

// MALA in the seed report's convention: its step ε is 2η, so the report's
// ε = 0.02 is Step 0.01; TuneNone keeps it constant.
func ExampleMALA() {
	train, _ := data.TrainTest(data.Australian(), 0.2, 1)
	data.FitScaler(train.X).Transform(train.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{})
	if err != nil {
		panic(err)
	}
	s := sampler.MALA{Step: 0.01, Adapt: sampler.Adapt{Tune: sampler.TuneNone}}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{Chains: 1, Iters: 5100, BurnIn: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	acc, _ := tr.Stat("accept_stat__")
	var a float64
	for _, v := range acc[0] {
		a += v
	}
	fmt.Printf("mean acceptance %.2f\n", a/float64(len(acc[0])))
	// Output:
	// mean acceptance 0.61
}
