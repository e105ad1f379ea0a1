package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// rwmChain is a random-walk Metropolis chain on N(0, I) in d dimensions
// (fixed seed): its draws and acceptance probabilities.
func rwmChain(d int, sigma float64, n int, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	x, y := make([]float64, d), make([]float64, d)
	var draws [][]float64
	var acc []float64
	for range n {
		var dl float64
		for j := range y {
			y[j] = x[j] + sigma*rng.NormFloat64()
			dl += (x[j]*x[j] - y[j]*y[j]) / 2
		}
		a := math.Min(1, math.Exp(dl))
		if rng.Float64() < a {
			copy(x, y)
		}
		draws = append(draws, append([]float64(nil), x...))
		acc = append(acc, a)
	}
	return draws, acc
}

// Healthy chains have no stuck stretch — a tuned one (σ = 2.4/√d) nor an
// wider random walk with many low-acceptance proposals (σ = 0.9 in 15
// dimensions, like the report's σ = 0.1 on Australian credit); the same
// chain with 22 draws at its start, rejected with acceptance 10⁻²⁰ (the
// report's MALA from θ = 0), has one, and the warning names it.
func TestStuckStretches(t *testing.T) {
	d := 15
	tuned, aTuned := rwmChain(d, 2.4/math.Sqrt(float64(d)), 5000, 1)
	wide, aWide := rwmChain(d, 0.9, 5000, 2)
	var low int
	for _, a := range aWide {
		if a < StuckAccept {
			low++
		}
	}
	if p := float64(low) / 5000; p < 0.3 {
		t.Fatalf("the untuned chain has a share %.2f of low-acceptance draws; the test wants ≥ 0.3", p)
	}
	if s := StuckStretches([][][]float64{tuned, wide}, [][]float64{aTuned, aWide}, d); len(s) != 0 {
		t.Errorf("healthy chains: stuck stretches %v", s)
	}
	stuck, aStuck := make([][]float64, 0, 5022), make([]float64, 0, 5022)
	for range 22 {
		stuck = append(stuck, make([]float64, d))
		aStuck = append(aStuck, 1e-20)
	}
	stuck, aStuck = append(stuck, tuned...), append(aStuck, aTuned...)
	s := StuckStretches([][][]float64{wide, stuck}, [][]float64{aWide, aStuck}, d)
	if len(s) != 1 || s[0] != (Stretch{Chain: 1, First: 0, Len: 22}) {
		t.Errorf("22 stuck draws at the start of chain 2: stretches %v", s)
	}
	w := StuckWarnings([][][]float64{wide, stuck}, [][]float64{aWide, aStuck}, d)
	if len(w) != 1 || !strings.HasPrefix(w[0], "chain 2 sat at one point for 22 kept draws (1–22)") {
		t.Errorf("warnings %q", w)
	}
	// 19 stuck draws are under the bound of 20.
	if s := StuckStretches([][][]float64{stuck[3:]}, [][]float64{aStuck[3:]}, d); len(s) != 0 {
		t.Errorf("19 stuck draws: stretches %v", s)
	}
}

func TestStuckBound(t *testing.T) {
	for _, tc := range []struct {
		n    int
		p    float64
		want int
	}{{5000, 0.04, 20}, {5000, 0.5, 20}, {5000, 0.7, 37}, {5000, 1, 125}, {100, 0, 20}} {
		if got := StuckBound(tc.n, tc.p); got != tc.want {
			t.Errorf("StuckBound(%d, %g) = %d, want %d", tc.n, tc.p, got, tc.want)
		}
	}
}
