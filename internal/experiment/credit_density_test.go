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

// creditConfusion (report Figure 10 for credit): the diagonal holds the
// accuracy, the cells the test rows; at θ = 0 every probability is 0.5 and
// every row is predicted class 0.
func TestCreditConfusion(t *testing.T) {
	_, test, m, err := creditProblem(1)
	if err != nil {
		t.Fatal(err)
	}
	n := test.Len()
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = 0.3 * float64(j%3-1)
	}
	for _, th := range [][]float64{theta, make([]float64, m.Dim())} {
		c, acc := creditConfusion(m, th, test.X, test.Y)
		if tot := c[0][0] + c[0][1] + c[1][0] + c[1][1]; tot != n {
			t.Errorf("%d rows in the cells, %d test rows", tot, n)
		}
		if diag := float64(c[0][0]+c[1][1]) / float64(n); math.Abs(diag-acc) > 1e-12 {
			t.Errorf("diagonal share %.4f, accuracy %.4f", diag, acc)
		}
	}
	if c, _ := creditConfusion(m, make([]float64, m.Dim()), test.X, test.Y); c[0][1]+c[1][1] != 0 {
		t.Errorf("θ = 0 predicts class 1 for %d rows", c[0][1]+c[1][1])
	}
}
