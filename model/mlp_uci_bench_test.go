package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin/model"
)

// uciNet is the UCI benchmark's network on boston's shape: 13 inputs, 50
// ReLU hidden units, one Gaussian output with a learned noise (d = 752),
// on 455 training rows (a split's).
func uciNet(b *testing.B) *model.MLP {
	X, y := mlpData(3, 455, 13, model.LikGaussian, 0)
	return mustMLP(b, X, y, model.MLPOptions{Hidden: []int{50}, Likelihood: model.LikGaussian, LearnNoise: true})
}

// BenchmarkMLPUCIStep is one SGLD step of the 13-50-1 network at B = 32
// (the step bench/torch/mlp_step.py times in PyTorch on one thread):
// minibatch draw, forward and backward pass, N/|B| scaling, prior gradient,
// the update and the Gaussian noise. 0 allocs/op.
func BenchmarkMLPUCIStep(b *testing.B) {
	m := uciNet(b)
	c0 := processCPU()
	benchSGLDStep(b, m, 32, mlpFlops(m.Layers(), 32))
	reportCPU(b, c0)
}

// reportCPU reports the process's CPU time per op since c0 (cpu-ns/op, all
// threads): on a shared machine the wall clock of ns/op also counts the
// time other processes hold the cores.
func reportCPU(b *testing.B, c0 int64) {
	if c := processCPU(); c > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMLPUCIGradient is the gradient alone (LogLik with its gradient
// on a batch of 32 rows, and LogPrior's): the part of the step PyTorch's
// forward + backward does.
func BenchmarkMLPUCIGradient(b *testing.B) {
	m := uciNet(b)
	theta := make([]float64, m.Dim())
	grad := make([]float64, m.Dim())
	rng := rand.New(rand.NewPCG(1, 2))
	m.GlorotInit(theta, rng)
	batch := make([]int, 32)
	for i := range batch {
		batch[i] = rng.IntN(m.Len())
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for b.Loop() {
		clear(grad)
		m.LogLik(theta, batch, grad)
		m.LogPrior(theta, grad)
	}
	b.ReportMetric(mlpFlops(m.Layers(), 32)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	reportCPU(b, c0)
}
