package diag_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/diag"
)

// TestWarnings: four chains from one distribution pass; shifting one chain
// by one sd trips the R̂ rule; an AR(1) chain with ρ = 0.99 trips the ESS
// rule; each warning names the worst quantity.
func TestWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draws := func(shift, rho float64) [][]float64 {
		ch := make([][]float64, 4)
		for c := range ch {
			ch[c] = make([]float64, 1000)
			x := rng.NormFloat64()
			for i := range ch[c] {
				x = rho*x + rng.NormFloat64()*math.Sqrt(1-rho*rho)
				ch[c][i] = x
				if c == 0 {
					ch[c][i] += shift
				}
			}
		}
		return ch
	}
	good := diag.Summarize([]string{"a", "b"}, [][][]float64{draws(0, 0), draws(0, 0.5)})
	if w := good.Warnings(4); w != nil {
		t.Errorf("well-mixed chains warned: %v", w)
	}
	shifted := diag.Summarize([]string{"a", "shifted"}, [][][]float64{draws(0, 0), draws(1, 0)}).Warnings(4)
	if len(shifted) == 0 || !strings.Contains(shifted[0], "R̂ > 1.01 for 1 of 2") || !strings.Contains(shifted[0], "shifted") {
		t.Errorf("warnings %q: want R̂ naming shifted", shifted)
	}
	sticky := diag.Summarize([]string{"a", "sticky"}, [][][]float64{draws(0, 0), draws(0, 0.99)}).Warnings(4)
	if len(sticky) == 0 || !strings.Contains(sticky[len(sticky)-1], "bulk-ESS < 400 (100 per chain) for 1 of 2") || !strings.Contains(sticky[len(sticky)-1], "sticky") {
		t.Errorf("warnings %q: want ESS naming sticky", sticky)
	}
}
