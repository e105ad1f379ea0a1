package fit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// langevin run --model mlp --data moons as a library call: the command's
// data (1,000 points, noise 0.1, seed 1; a seeded 80/20 split, standardised
// features), its network (one hidden layer of 50 ReLU units, a Bernoulli
// likelihood, model.MLPDefaults' priors) and fit.Run with no setting, so the
// network plan's multi-start MAP, preconditioner, step and burn-in, the run
// until the predictions converge and the stacking of the chains. The draws
// are the command's, bit for bit: cmd/langevin's TestFitRunEqualsMLPCommand
// runs these lines and compares them chain by chain (the example has no
// Output block, so that go test -short does not spend the run's 8 s of CPU).
func ExampleRun_network() {
	full, err := data.Moons(1000, 0.1, 1) // --n 1000 --noise 0.1 --seed 1
	if err != nil {
		log.Fatal(err)
	}
	train, test := data.TrainTest(full, 0.2, 1) // --test-frac 0.2
	sc := data.FitScaler(train.X)               // --standardize
	sc.Transform(train.X)
	sc.Transform(test.X)
	m, err := model.NewMLP(train.X, train.Y, model.MLPDefaults(model.MLPOptions{
		Hidden: []int{50}, Activation: model.ReLU, Likelihood: model.LikBernoulli}))
	if err != nil {
		log.Fatal(err)
	}

	res, err := fit.Run(context.Background(), fit.Job{Model: m, Test: test}, fit.Settings{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s from %d modes, %d chains × %d draws\n", res.NetPlan.Kind, len(res.NetPlan.Modes), res.Trace.NumChains(), len(res.Trace.Draws[0]))
	fmt.Printf("test accuracy %.4f, log score %.4f (MAP %.4f, %.4f)\n", res.Test.Posterior[0], res.Test.Posterior[1], res.Test.MAP[0], res.Test.MAP[1])
	fmt.Println(res.Weights) // the stacking weights, with their reason
}
