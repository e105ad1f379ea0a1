package model_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// benchSGLDStep times one SGLD step (minibatch gradient by backpropagation,
// N/|B| scaling, Gaussian noise) of m at batch size b.
func benchSGLDStep(b *testing.B, m *model.MLP, batch int, flops float64) {
	theta := make([]float64, m.Dim())
	rng := rand.New(rand.NewPCG(1, 2))
	m.GlorotInit(theta, rng)
	s := sampler.SGLD{Step: schedule.Constant(1e-6), Batch: sampler.Minibatch{Size: batch}}
	ch, err := s.NewChain(m, theta, rng)
	if err != nil {
		b.Fatal(err)
	}
	ch.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ch.Step(); err != nil {
			b.Fatal(err)
		}
	}
	if flops > 0 {
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
}

// mlpFlops returns the floating-point operations of the matrix products of
// one forward and backward pass over r rows: 2·r·in·out for the forward
// product and for ∇W of every layer, and for δ of every layer but the first.
func mlpFlops(sizes []int, r int) float64 {
	var f float64
	for l := 1; l < len(sizes); l++ {
		k := 2.0
		if l > 1 {
			k = 3
		}
		f += k * 2 * float64(r*sizes[l-1]*sizes[l])
	}
	return f
}

// BenchmarkMLPMoons is the §5.2 network, 2-100-10-1 ReLU with a Bernoulli
// likelihood, at B = 5 (target ≤ 25 µs per step).
func BenchmarkMLPMoons(b *testing.B) {
	X, y := mlpData(1, 800, 2, model.LikBernoulli, 2)
	m := mustMLP(b, X, y, model.MLPOptions{Hidden: []int{100, 10}, Likelihood: model.LikBernoulli})
	benchSGLDStep(b, m, 5, mlpFlops(m.Layers(), 5))
}

// BenchmarkMLPFashion is the Fashion-MNIST network, 784-100-10 ReLU with a
// categorical likelihood, at B = 100: "step" is one SGLD step, "gemm" the
// same matrix products alone (forward A·W₁ᵀ, H·W₂ᵀ; backward δ₂ᵀH, δ₂W₂,
// δ₁ᵀA). The step must be within 1.5× of gemm.
func BenchmarkMLPFashion(b *testing.B) {
	const n, p, h, k, r = 2000, 784, 100, 10, 100
	rng := rand.New(rand.NewPCG(3, 4))
	X, y := fashionLike(n, p, k, rng)
	m := mustMLP(b, X, y, model.MLPOptions{Hidden: []int{h}, Likelihood: model.LikCategorical, Classes: k})
	flops := mlpFlops(m.Layers(), r)
	b.Run("step", func(b *testing.B) { benchSGLDStep(b, m, r, flops) })
	b.Run("gemm", func(b *testing.B) {
		A := X.RawMatrix().Data[:r*p]
		W1 := make([]float64, h*p)
		W2 := make([]float64, k*h)
		H := make([]float64, r*h)
		F := make([]float64, r*k)
		D2 := make([]float64, r*k)
		D1 := make([]float64, r*h)
		G1 := make([]float64, h*p)
		G2 := make([]float64, k*h)
		for _, v := range [][]float64{W1, W2, D2} {
			for j := range v {
				v[j] = rng.NormFloat64()
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			model.Gemm(blas.NoTrans, blas.Trans, r, h, p, A, p, W1, p, 1, H, h)
			model.Gemm(blas.NoTrans, blas.Trans, r, k, h, H, h, W2, h, 1, F, k)
			model.Gemm(blas.Trans, blas.NoTrans, k, h, r, D2, k, H, h, 1, G2, h)
			model.Gemm(blas.NoTrans, blas.NoTrans, r, h, k, D2, k, W2, h, 0, D1, h)
			model.Gemm(blas.Trans, blas.NoTrans, h, p, r, D1, h, A, p, 1, G1, p)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

var _ langevin.Model = (*model.MLP)(nil)

// BenchmarkMLPClassProbsFashion is the prediction of one draw of the
// default Fashion-MNIST network (784-50-10 ReLU, categorical) on 2,000
// images: the cost of a BMA over the test set is draws × test/2,000 times
// this (988 draws × 10,000 images: 4,940 of them).
func BenchmarkMLPClassProbsFashion(b *testing.B) {
	const n, p, h, k = 2000, 784, 50, 10
	rng := rand.New(rand.NewPCG(3, 4))
	X, y := fashionLike(n, p, k, rng)
	m := mustMLP(b, X, y, model.MLPOptions{Hidden: []int{h}, Likelihood: model.LikCategorical, Classes: k})
	theta := make([]float64, m.Dim())
	m.GlorotInit(theta, rng)
	dst := mat.NewDense(n, k, nil)
	m.ClassProbs(theta, X, dst)
	b.ReportAllocs()
	for b.Loop() {
		m.ClassProbs(theta, X, dst)
	}
	b.ReportMetric(2*float64(n*(p*h+h*k))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// fashionLike is n rows of p uniform(0, 1) pixels and labels uniform on
// 0, …, k−1, drawn from rng row by row: data of Fashion-MNIST's shape for
// the benchmarks.
func fashionLike(n, p, k int, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.Float64())
		}
		y[i] = float64(rng.IntN(k))
	}
	return X, y
}
