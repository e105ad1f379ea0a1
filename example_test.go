package langevin_test

import (
	"context"
	"fmt"
	"log"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// Bayesian logistic regression on the Australian credit data with SGLD:
// four chains from the MAP, with the Laplace diagonal preconditioner, then
// the summary of the coefficient of feature A8 and the test accuracy of the
// posterior predictive.
func ExampleRun() {
	ctx := context.Background()
	train, test := data.TrainTest(data.Australian(), 0.2, 1) // seeded 80/20 split
	sc := data.FitScaler(train.X)                            // standardise with the training set's
	sc.Transform(train.X)                                    // mean and sd
	sc.Transform(test.X)

	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		log.Fatal(err)
	}
	lap := &approx.RunLaplace{Model: m} // one MAP and one Hessian, shared
	mapTheta, err := lap.MAP(ctx)
	if err != nil {
		log.Fatal(err)
	}
	pre, err := lap.Diag(ctx) // diag of the Laplace covariance: SGLD's preconditioner
	if err != nil {
		log.Fatal(err)
	}
	s := sampler.SGLD{
		Step:    schedule.Constant(sampler.StepNoiseFraction(m.Len(), 10, 1, true)), // η = 0.1·B/N
		Batch:   sampler.Minibatch{Size: 10},
		Precond: pre,
	}
	tr, err := langevin.Run(ctx, m, s, langevin.Options{
		Chains: 4, Iters: 200000, BurnIn: 20000, Thin: 180, Seed: 1,
		Init: langevin.InitAt{Points: [][]float64{mapTheta}},
	})
	if err != nil {
		log.Fatal(err)
	}
	table := diag.Summarize(tr.Names, tr.Params()) // mean, sd, mcse, quantiles, ess_bulk, ess_tail, rhat
	a8 := table[8]                                 // intercept, beta.1, …: beta.8 is feature A8
	fmt.Printf("%s: mean %.1f, sd %.2f, 90%% interval [%.1f, %.1f], R-hat < 1.01: %v\n",
		a8.Name, a8.Mean, a8.SD, a8.Q5, a8.Q95, a8.RHat < 1.01)

	c, err := predict.Classify(m, tr.Rows(), test.X, predict.ClassifyOptions{}) // average over the draws
	if err != nil {
		log.Fatal(err)
	}
	met, err := predict.Evaluate(c.Probs, test.Y, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test accuracy %.3f\n", met.Accuracy)
	// Output:
	// beta.8: mean 1.8, sd 0.16, 90% interval [1.5, 2.0], R-hat < 1.01: true
	// test accuracy 0.826
}
