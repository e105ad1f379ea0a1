// Command mlpll writes mlp.csv.gz, the fixture of a network for package
// loo: the pointwise log-likelihoods log p(yᵢ | θₛ) of a Bayesian MLP
// classifier (2 inputs, 4 tanh units, Bernoulli output) on 60 points of the
// two moons, 4 chains of MALA from random starts, 100 kept draws each, one
// row a line, rounded to 7 significant digits as make_fixtures.R writes its
// matrices; make_fixtures.R then computes loo's results from it. Run from
// loo/testdata:
//
//	go run ./mlpll && Rscript make_fixtures.R
package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

func main() {
	d, err := data.Moons(60, 0.2, 1)
	if err != nil {
		log.Fatal(err)
	}
	m, err := model.NewMLP(d.X, d.Y, model.MLPOptions{Hidden: []int{4}, Activation: model.Tanh, Likelihood: model.LikBernoulli})
	if err != nil {
		log.Fatal(err)
	}
	const chains = 4
	rng := rand.New(rand.NewPCG(11, 12))
	starts := make([][]float64, chains)
	for c := range starts {
		starts[c] = make([]float64, m.Dim())
		for j := range starts[c] {
			starts[c][j] = 0.5 * rng.NormFloat64()
		}
	}
	tr, err := langevin.Run(context.Background(), m, sampler.MALA{}, langevin.Options{
		Chains: chains, Iters: 6000, BurnIn: 5000, Thin: 10, Seed: 5,
		Init: langevin.InitAt{Points: starts},
	})
	if err != nil {
		log.Fatal(err)
	}
	draws := tr.Rows() // chain after chain
	N, S := m.Len(), len(draws)
	ll := make([][]float64, N)
	rows := make([]int, N)
	for i := range rows {
		rows[i] = i
		ll[i] = make([]float64, S)
	}
	col := make([]float64, N)
	for s, th := range draws {
		m.RowLogLik(col, th[:m.Dim()], rows)
		for i, v := range col {
			ll[i][s] = v
		}
	}
	f, err := os.Create("mlp.csv.gz")
	if err != nil {
		log.Fatal(err)
	}
	z := gzip.NewWriter(f)
	for _, row := range ll {
		for s, v := range row {
			if s > 0 {
				fmt.Fprint(z, ",")
			}
			fmt.Fprint(z, strconv.FormatFloat(v, 'g', 7, 64))
		}
		fmt.Fprintln(z)
	}
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("mlp.csv.gz: %d rows × %d draws\n", N, S)
}
