package ad_test

import (
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

func benchGrad(b *testing.B, m langevin.Model, batch []int) {
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = 0.01 * float64(j)
	}
	grad := make([]float64, m.Dim())
	m.LogLik(theta, batch, grad) // warm-up: sizes the tape
	b.ReportAllocs()
	for b.Loop() {
		m.LogLik(theta, batch, grad)
	}
}

func benchBatch(n, size int) []int {
	rng := rand.New(rand.NewPCG(1, 1))
	batch := make([]int, size)
	for i := range batch {
		batch[i] = rng.IntN(n)
	}
	return batch
}

// BenchmarkLogisticLogLik compares the log-likelihood gradient of logistic
// regression on data the shape of the Australian credit training set (552
// rows, 14 features): hand-written (model.Logistic), automatic through
// MatVec + BernoulliLogit, and automatic through the fused GLM node.
func BenchmarkLogisticLogLik(b *testing.B) {
	X, _, labels, _ := regData(99, 552, 14, 2)
	hand, err := model.NewLogistic(X, labels, model.LogisticOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []struct {
		name string
		b    []int
	}{{"Full", nil}, {"Batch10", benchBatch(552, 10)}} {
		b.Run(batch.name+"/hand", func(b *testing.B) { benchGrad(b, hand, batch.b) })
		b.Run(batch.name+"/ad", func(b *testing.B) { benchGrad(b, adLogistic(X, labels, false), batch.b) })
		b.Run(batch.name+"/adGLM", func(b *testing.B) { benchGrad(b, adLogistic(X, labels, true), batch.b) })
	}
}

// BenchmarkRegression26x5000 is the comparison with Stan's
// normal_id_glm: the full-data log-likelihood gradient of a normal linear
// regression with 26 predictors (25 features and the intercept, plus
// log σ²) and 5,000 rows.
func BenchmarkRegression26x5000(b *testing.B) {
	X, y, _, _ := regData(5, 5000, 25, 2)
	hand, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("hand", func(b *testing.B) { benchGrad(b, hand, nil) })
	b.Run("ad", func(b *testing.B) { benchGrad(b, adLinear(X, y, false), nil) })
	b.Run("adGLM", func(b *testing.B) { benchGrad(b, adLinear(X, y, true), nil) })
	b.Run("adSuff", func(b *testing.B) { benchGrad(b, adLinearKind(X, y, "suff"), nil) })
}
