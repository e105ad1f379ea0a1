package sampler_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// australianLogistic is the default job's model: logistic regression with
// intercept on the standardised 80% training split of the Australian credit
// data (N = 552, d = 15).
func australianLogistic(tb testing.TB) *model.Logistic {
	train, _ := data.TrainTest(data.Australian(), 0.2, 1)
	data.FitScaler(train.X).Transform(train.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkSGLDStepLogistic is one SGLD step on the Australian logistic
// regression, N = 552, d = 15, B = 10: gradient estimate, 15 normals, update
// (the one Langevin step with a diagonal and a dense M; the noise statistic's
// per-row gradients, with control variates every step).
func BenchmarkSGLDStepLogistic(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    sampler.SGLD
	}{
		{"plain", sampler.SGLD{Step: schedule.Polynomial{A: 1e-3, B: 1, Gamma: 0.55}, Batch: sampler.Minibatch{Size: 10}}},
		{"precond+noise10", sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10}, NoiseEvery: 10, Precond: ones(15)}},
		{"cv+noise1", sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10, CV: make([]float64, 15)}, NoiseEvery: 1}},
		{"dense", sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10}, PrecondFull: identity(15)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := australianLogistic(b)
			ch, err := bc.s.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ch.Step()
			}
		})
	}
}

// BenchmarkPSGLDStepLogistic is one pSGLD step on the same model, with and
// without the Γ correction (2d extra batch gradients).
func BenchmarkPSGLDStepLogistic(b *testing.B) {
	for _, corr := range []bool{false, true} {
		b.Run(fmt.Sprint("correction=", corr), func(b *testing.B) {
			m := australianLogistic(b)
			s := sampler.PSGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10}, Correction: corr}
			ch, err := s.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ch.Step()
			}
		})
	}
}

func identity(n int) *mat.SymDense {
	m := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		m.SetSym(i, i, 1)
	}
	return m
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
