package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
)

// TestMLPRowLogLik checks that the rows' log-likelihoods of a network sum to
// LogLik to 1e-12, each row alone equals LogLik of that row, for every
// likelihood: Gaussian with learned σ², with σ² fixed and the response
// standardised, heteroscedastic, Bernoulli and categorical; over more rows
// than one chunk (300 > 128), in a shuffled order with a repeat; and that
// RowLogLik allocates nothing.
func TestMLPRowLogLik(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, p = 300, 3
	X := mat.NewDense(n, p, nil)
	y, lab, cat := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = 3 + 2*rng.NormFloat64()
		lab[i] = float64(rng.IntN(2))
		cat[i] = float64(rng.IntN(3))
	}
	cases := []struct {
		name string
		y    []float64
		opt  model.MLPOptions
	}{
		{"gaussian learned σ²", y, model.MLPOptions{Hidden: []int{5}, LearnNoise: true}},
		{"gaussian fixed σ², standardised", y, model.MLPOptions{Hidden: []int{5, 4}, Activation: model.Tanh, NoiseVar: 0.7, StandardizeY: true}},
		{"heteroscedastic", y, model.MLPOptions{Hidden: []int{6}, Hetero: true, StandardizeY: true}},
		{"bernoulli", lab, model.MLPOptions{Hidden: []int{5}, Likelihood: model.LikBernoulli}},
		{"categorical", cat, model.MLPOptions{Hidden: []int{5}, Likelihood: model.LikCategorical}},
	}
	rows := rng.Perm(n)
	rows = append(rows, 7)
	for _, tc := range cases {
		m, err := model.NewMLP(X, tc.y, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = 0.5 * rng.NormFloat64()
		}
		dst := make([]float64, len(rows))
		m.RowLogLik(dst, theta, rows)
		var s float64
		for j, v := range dst {
			s += v
			if want := m.LogLik(theta, rows[j:j+1], nil); math.Abs(v-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("%s row %d: %v, LogLik %v", tc.name, rows[j], v, want)
			}
		}
		if want := m.LogLik(theta, rows, nil); math.Abs(s-want) > 1e-12*max(1, math.Abs(want)) {
			t.Errorf("%s: Σ %.15g, LogLik %.15g", tc.name, s, want)
		}
		if a := testing.AllocsPerRun(10, func() { m.RowLogLik(dst, theta, rows) }); a != 0 {
			t.Errorf("%s: RowLogLik allocates %v times a call", tc.name, a)
		}
	}
}
