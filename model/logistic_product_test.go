package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// LogLik sums log(1 + eᵢ) as the logarithm of blockwise products: over more
// than one block (n = 2500, steep slopes so that many eᵢ are tiny and many
// are near 1) it agrees with the plain sum of log σ(tᵢ), for all data and a
// batch with repeats.
func TestLogisticLogLikProductBlocks(t *testing.T) {
	const n, p = 2500, 3
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, 4*rng.NormFloat64())
		}
		y[i] = float64(rng.IntN(2))
	}
	m, err := NewLogistic(X, y, LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -1.2, 2.5, 0.7}
	direct := func(i int) float64 {
		z := theta[0]
		for j := 0; j < p; j++ {
			z += X.At(i, j) * theta[j+1]
		}
		return logSigmoid(sign(y[i]) * z)
	}
	var want float64
	for i := 0; i < n; i++ {
		want += direct(i)
	}
	if got := m.LogLik(theta, nil, nil); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("all data: LogLik %.17g, sum of log σ %.17g", got, want)
	}
	batch := make([]int, 1500)
	want = 0
	for k := range batch {
		batch[k] = rng.IntN(n)
		want += direct(batch[k])
	}
	if got := m.LogLik(theta, batch, nil); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("batch: LogLik %.17g, sum of log σ %.17g", got, want)
	}
}
