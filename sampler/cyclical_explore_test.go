package sampler_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// cSGLD at StepCyclicalExplore's η₀ = 7/(3λ) (0.07 on the 25-Gaussian
// mixture, λ = 1/0.03) with CyclesExplore cycles visits at least 8 of the
// 25 modes in 20,000 steps from the centre mode (a mode is visited when 0.5%
// of the draws after each cycle's first half lie within 3 sd of it); at a
// peak of 0.9·2/λ, inside a mode's stability limit, it visits 1 (the rule's
// claim can fail).
func TestStepCyclicalExploreVisitsModes(t *testing.T) {
	m := model.NewMixture25()
	lam := 1 / m.Var()
	visited := func(eta0 float64) int {
		const iters = 20000
		sch := schedule.Cyclical{Eta0: eta0, Iters: iters, Cycles: sampler.CyclesExplore, Explore: 0.5}
		ch, err := sampler.SGLD{Step: sch}.NewChain(m, []float64{0, 0}, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, m.K())
		var kept int
		r := 3 * math.Sqrt(m.Var())
		for i := 1; i <= iters; i++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
			if sch.Phase(i) < 0.5 {
				continue
			}
			kept++
			p := ch.Position()
			for k := range counts {
				c := m.Center(k)
				if math.Hypot(p[0]-c[0], p[1]-c[1]) < r {
					counts[k]++
				}
			}
		}
		var n int
		for _, c := range counts {
			if float64(c) >= 0.005*float64(kept) {
				n++
			}
		}
		return n
	}
	eta := sampler.StepCyclicalExplore(lam)
	if math.Abs(eta-0.07) > 1e-12 {
		t.Errorf("η₀ = %v on the mixture, want Zhang et al.'s 0.07", eta)
	}
	n := visited(eta)
	low := visited(0.9 * 2 / lam)
	t.Logf("modes visited: %d at η₀ = %.3g, %d at η₀ = %.3g", n, eta, low, 0.9*2/lam)
	if n < 8 {
		t.Errorf("η₀ = %.3g: %d modes visited, want ≥ 8", eta, n)
	}
	if low != 1 {
		t.Errorf("η₀ = 0.9·2/λ: %d modes visited, want 1 (the rule's claim cannot fail)", low)
	}
}
