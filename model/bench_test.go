package model_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// benchBatch returns a batch of b indices drawn with replacement from n.
func benchBatch(n, b int) []int {
	rng := rand.New(rand.NewPCG(1, 1))
	batch := make([]int, b)
	for i := range batch {
		batch[i] = rng.IntN(n)
	}
	return batch
}

func benchLogLik(b *testing.B, m langevin.Model, batch []int) {
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = 0.01 * float64(j)
	}
	grad := make([]float64, m.Dim())
	b.ReportAllocs()
	for b.Loop() {
		m.LogLik(theta, batch, grad)
	}
}

// australianShape returns data the shape of the Australian credit training
// set: 552 rows, 14 features.
func australianShape() (*mat.Dense, []float64, []float64) { return regData(99, 552, 14) }

func BenchmarkLogisticLogLikBatch10(b *testing.B) {
	X, _, labels := australianShape()
	m := mustLogistic(b, X, labels, model.LogisticOptions{})
	benchLogLik(b, m, benchBatch(552, 10))
}

func BenchmarkLogisticLogLikFull(b *testing.B) {
	X, _, labels := australianShape()
	m := mustLogistic(b, X, labels, model.LogisticOptions{})
	benchLogLik(b, m, nil)
}

func BenchmarkLinearLogLikBatch10(b *testing.B) {
	X, y, _ := australianShape()
	m := mustLinear(b, X, y, model.LinearOptions{})
	benchLogLik(b, m, benchBatch(552, 10))
}

func BenchmarkLinearLogLikFull(b *testing.B) {
	X, y, _ := australianShape()
	m := mustLinear(b, X, y, model.LinearOptions{})
	benchLogLik(b, m, nil)
}

func BenchmarkLogisticEstimatorBatch10(b *testing.B) {
	X, _, labels := australianShape()
	m := mustLogistic(b, X, labels, model.LogisticOptions{})
	bt, err := langevin.NewBatcher(m.Len(), 10, true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	e := langevin.NewEstimator(m, bt)
	theta := make([]float64, m.Dim())
	grad := make([]float64, m.Dim())
	b.ReportAllocs()
	for b.Loop() {
		e.Eval(theta, grad)
	}
}

func BenchmarkGaussianLogLik(b *testing.B) {
	cov := mat.NewSymDense(10, nil)
	for i := 0; i < 10; i++ {
		cov.SetSym(i, i, 1+float64(i))
	}
	g, err := model.NewGaussian(make([]float64, 10), cov)
	if err != nil {
		b.Fatal(err)
	}
	benchLogLik(b, g, []int{0})
}
