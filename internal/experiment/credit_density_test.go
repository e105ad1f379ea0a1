package experiment

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// credit-marginals warns when a method's density rests on few effective
// draws: one slowly mixing chain (AR(1), φ = 0.99, 5000 draws: bulk-ESS ≈
// 25, SGLD's case on credit) is named with its ESS and one chain; four
// chains of 1000 independent draws are not.
func TestCreditDensityWarning(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ar := func(phi float64, n int) []float64 {
		x, out := 0.0, make([]float64, n)
		for i := range out {
			x = phi*x + math.Sqrt(1-phi*phi)*rng.NormFloat64()
			out[i] = x
		}
		return out
	}
	w := densityWarning("SGLD", "beta.8", [][]float64{ar(0.99, 5000)})
	if !strings.Contains(w, "SGLD's density of beta.8 rests on a bulk-ESS of") || !strings.Contains(w, "from one chain") {
		t.Errorf("slow single chain: warning %q", w)
	}
	if w := densityWarning("NUTS", "beta.8", [][]float64{ar(0, 1000), ar(0, 1000), ar(0, 1000), ar(0, 1000)}); w != "" {
		t.Errorf("four independent chains warned: %q", w)
	}
}
