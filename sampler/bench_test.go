package sampler_test

import (
	"math/rand/v2"
	"testing"

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
// regression, N = 552, d = 15, B = 10: gradient estimate, 15 normals, update.
func BenchmarkSGLDStepLogistic(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    sampler.SGLD
	}{
		{"plain", sampler.SGLD{Step: schedule.Polynomial{A: 1e-3, B: 1, Gamma: 0.55}, Batch: sampler.Minibatch{Size: 10}}},
		{"precond+noise10", sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 10}, NoiseEvery: 10, Precond: ones(15)}},
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

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
