package sampler

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloydSample: k distinct indices in 0…n−1, increasing, each index
// drawn with probability k/n (within 5 binomial sds over 20,000 draws).
func TestFloydSample(t *testing.T) {
	const n, k, reps = 50, 10, 20000
	rng := rand.New(rand.NewPCG(1, 2))
	count := make([]int, n)
	for range reps {
		idx := floydSample(n, k, rng)
		if len(idx) != k {
			t.Fatalf("%d indices, want %d", len(idx), k)
		}
		for i, v := range idx {
			if v < 0 || v >= n || (i > 0 && v <= idx[i-1]) {
				t.Fatalf("indices %v: expected distinct increasing values in [0, %d)", idx, n)
			}
			count[v]++
		}
	}
	mean := float64(reps) * k / n
	sd := math.Sqrt(mean * (1 - float64(k)/n))
	for i, c := range count {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("index %d drawn %d times, want %.0f ± %.0f", i, c, mean, 5*sd)
		}
	}
}
