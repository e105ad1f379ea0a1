package approx

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// fashionSoftmax is a softmax model the shape of Fashion-MNIST (784 features
// in [0, 1], 10 classes, D = 7850) on 500 random rows.
func fashionSoftmax(b *testing.B) *model.Softmax {
	rng := rand.New(rand.NewPCG(3, 9))
	X := mat.NewDense(500, 784, nil)
	y := make([]float64, 500)
	for i := 0; i < 500; i++ {
		for j := 0; j < 784; j++ {
			if rng.Float64() < 0.5 {
				X.Set(i, j, rng.Float64())
			}
		}
		y[i] = float64(rng.IntN(10))
	}
	m, err := model.NewSoftmax(X, y, model.SoftmaxOptions{Classes: 10})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func benchChain(b *testing.B, s langevin.Sampler, m langevin.Model, sample bool) {
	ch, err := s.NewChain(m, make([]float64, m.Dim()), langevin.ChainRNG(1, 0))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		ch.Step()
	}
	if sample {
		ch.(langevin.WarmupEnder).EndWarmup()
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ch.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSWAGStepSoftmax: one SGD step (batch 10) with a snapshot every
// step, D = 7850; and one draw from the fit (K = 20).
func BenchmarkSWAGStepSoftmax(b *testing.B) {
	m := fashionSoftmax(b)
	s := SWAG{Step: 1e-4, Batch: sampler.Minibatch{Size: 10}, Every: 1}
	b.Run("sgd+snapshot", func(b *testing.B) { benchChain(b, s, m, false) })
	b.Run("draw", func(b *testing.B) { benchChain(b, s, m, true) })
}

// BenchmarkVIStepSoftmax: one BBVI step (one z draw, batch 10), D = 7850.
func BenchmarkVIStepSoftmax(b *testing.B) {
	m := fashionSoftmax(b)
	benchChain(b, VI{Batch: sampler.Minibatch{Size: 10}, AverageFrom: 1}, m, false)
}

// BenchmarkVIStepMeans: one BBVI step on the 5-dimensional means model.
func BenchmarkVIStepMeans(b *testing.B) {
	benchChain(b, VI{Batch: sampler.Minibatch{Size: 10}}, newMeans(200, 5, 1, 1, 1, 1), false)
}

// Softmax has the exact Hessian the Laplace approximation asks for.
var _ Hessianer = (*model.Softmax)(nil)
