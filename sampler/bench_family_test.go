package sampler_test

import (
	"context"
	"gonum.org/v1/gonum/mat"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// BenchmarkFamilyStepLogistic is one step of each stochastic-gradient sampler
// of the family on the Australian logistic regression, N = 552, d = 15,
// B = 10.
func BenchmarkFamilyStepLogistic(b *testing.B) {
	m := australianLogistic(b)
	mapTheta, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		b.Fatal(err)
	}
	mb := sampler.Minibatch{Size: 10}
	cv := sampler.Minibatch{Size: 10, CV: mapTheta}
	cyc := schedule.Cyclical{Eta0: 1e-3, Iters: 1 << 30, Cycles: 1 << 20, Explore: 0.25}
	cov, err := approx.LaplaceCov(m, mapTheta)
	if err != nil {
		b.Fatal(err)
	}
	blk := []sampler.DenseBlock{{Index: make([]int, 8), Cov: mat.NewSymDense(8, nil)}} // the last 8 coefficients
	for a := range 8 {
		blk[0].Index[a] = m.Dim() - 8 + a
		for c := range 8 {
			blk[0].Cov.SetSym(a, c, cov.At(m.Dim()-8+a, m.Dim()-8+c))
		}
	}
	for _, bc := range []struct {
		name string
		s    langevin.Sampler
	}{
		{"sgld", sampler.SGLD{Step: schedule.Constant(1e-4), Batch: mb}},
		{"sgld-cv", sampler.SGLD{Step: schedule.Constant(1e-4), Batch: cv}},
		{"sgld-anneal", sampler.SGLD{Step: schedule.Constant(1e-4), Batch: mb, TemperatureStart: 10, BurnIn: 1 << 30}},
		{"psgld", sampler.PSGLD{Step: schedule.Constant(1e-4), Batch: mb}},
		{"psgld-gamma", sampler.PSGLD{Step: schedule.Constant(1e-4), Batch: mb, Correction: true}},
		{"psgld-cv", sampler.PSGLD{Step: schedule.Constant(1e-4), Batch: cv}},
		{"sghmc", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: mb, Friction: 0.1}},
		{"sghmc-resample", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: mb, Friction: 0.1, Resample: 10}},
		{"sghmc-block", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: mb, Friction: 0.1, Blocks: blk}},
		{"sgnht-block", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: mb, Friction: 0.1, Thermostat: true, Resample: 10, Blocks: blk}},
		{"sgnht", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: mb, Friction: 0.1, Thermostat: true}},
		{"sghmc-cv", sampler.SGHMC{Step: schedule.Constant(1e-4), Batch: cv, Friction: 0.1}},
		{"csgld", sampler.SGLD{Step: cyc, Batch: mb}},
		{"csghmc", sampler.SGHMC{Step: cyc, Batch: mb, Friction: 0.1}},
		{"momentum", sampler.Momentum{Step: schedule.Constant(1e-4), Batch: mb}},
		{"polyak", sampler.PolyakSGD{Step: schedule.Constant(1e-4), Batch: mb}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ch, err := bc.s.NewChain(m, mapTheta, rand.New(rand.NewPCG(1, 1)))
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
