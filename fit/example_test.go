package fit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// The default job of langevin run as a library call: Bayesian logistic
// regression on the Australian credit data with every setting chosen by
// rule (a nil method and zero settings). The result holds the draws, the
// summary table, the test-set scores and a note for every rule, with its
// reason; the draws are those of `langevin run`, bit for bit.
func ExampleRun() {
	train, test := data.TrainTest(data.Australian(), 0.2, 1) // seeded 80/20 split
	sc := data.FitScaler(train.X)                            // standardise with the training set's
	sc.Transform(train.X)                                    // mean and sd
	sc.Transform(test.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{})
	if err != nil {
		log.Fatal(err)
	}

	res, err := fit.Run(context.Background(), fit.Job{Model: m, Test: test}, fit.Settings{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	a8 := res.Table[8] // intercept, beta.1, …: beta.8 is feature A8
	fmt.Printf("%s: mean %.2f, sd %.2f, 90%% interval [%.2f, %.2f], R-hat < 1.01: %v\n",
		a8.Name, a8.Mean, a8.SD, a8.Q5, a8.Q95, a8.RHat < 1.01)
	fmt.Printf("test accuracy %.4f (MAP %.4f)\n", res.Test.Posterior[0], res.Test.MAP[0])
	for _, n := range res.Notes[:2] {
		fmt.Println(n)
	}
	// Output:
	// beta.8: mean 1.78, sd 0.16, 90% interval [1.52, 2.05], R-hat < 1.01: true
	// test accuracy 0.8188 (MAP 0.8261)
	// auto:     sampler: nuts (exact NUTS is cheap here: about 14,000 full gradients per chain, 14,000·N·d = 1.2e+08 ≤ 2e+09)
	// auto:     preconditioner: dense Laplace covariance H⁻¹ at the MAP (d = 15 ≤ 100), so that MH ≈ I
}
