package model_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// The §5.2 network: 2-100-10-1 ReLU with a Bernoulli likelihood on two moons,
// Glorot-initialised, its backprop gradient checked by finite differences.
func ExampleNewMLP() {
	moons, _ := data.Moons(200, 0.1, 1)
	m, err := model.NewMLP(moons.X, moons.Y, model.MLPOptions{
		Hidden: []int{100, 10}, Activation: model.ReLU, Likelihood: model.LikBernoulli,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := make([]float64, m.Dim())
	m.GlorotInit(theta, rand.New(rand.NewPCG(1, 1)))
	names := m.ParamNames()
	fmt.Println(m.Layers(), m.Dim(), "parameters:", names[0], names[200], names[300], names[m.Dim()-1])
	fmt.Println("gradient check:", langevin.CheckGradient(m, theta, []int{0, 5, 7}, 1e-6))
	// Output:
	// [2 100 10 1] 1321 parameters: w.1.1.1 b.1.1 w.2.1.1 b.3.1
	// gradient check: <nil>
}
