package sampler_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// BenchmarkLogPosteriorGradLogistic is one full-data log posterior and
// gradient of the Australian logistic regression (N = 552, d = 15): the unit
// of work of MALA and NUTS.
func BenchmarkLogPosteriorGradLogistic(b *testing.B) {
	m := australianLogistic(b)
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = 0.1 * float64(j%3-1)
	}
	grad := make([]float64, m.Dim())
	b.ReportAllocs()
	for b.Loop() {
		langevin.LogPosterior(m, theta, grad)
	}
}

// warmChain returns a chain of s on the Australian logistic regression after
// a warm-up of warm iterations (adaptation ended), started at the MAP.
func warmChain(b *testing.B, s langevin.Sampler, warm int) langevin.Chain {
	m := australianLogistic(b)
	theta0, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := s.NewChain(m, theta0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for range warm {
		if err := ch.Step(); err != nil {
			b.Fatal(err)
		}
	}
	ch.(langevin.WarmupEnder).EndWarmup()
	return ch
}

// BenchmarkExactStepLogistic is one post-warm-up iteration of RWM, MALA and
// NUTS (tuned by dual averaging with a diagonal metric) on the Australian
// logistic regression; n_leapfrog/op is NUTS's gradients per iteration.
func BenchmarkExactStepLogistic(b *testing.B) {
	a := sampler.Adapt{Warmup: 1000, Metric: sampler.MetricDiag}
	for _, bc := range []struct {
		name string
		s    langevin.Sampler
	}{
		{"RWM", sampler.RWM{Adapt: a}},
		{"MALA", sampler.MALA{Adapt: a}},
		{"NUTS", sampler.NUTS{Adapt: a}},
		{"NUTS-dense", sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000, Metric: sampler.MetricDense}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ch := warmChain(b, bc.s, 1000)
			stats := make([]float64, len(bc.s.StatNames()))
			var leap float64
			b.ReportAllocs()
			for b.Loop() {
				ch.Step()
				if strings.HasPrefix(bc.name, "NUTS") {
					ch.Stats(stats)
					leap += stats[4]
				}
			}
			if strings.HasPrefix(bc.name, "NUTS") {
				b.ReportMetric(leap/float64(b.N), "n_leapfrog/op")
			}
		})
	}
}
