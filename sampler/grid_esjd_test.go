package sampler_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// gridAcceptance runs warm-up (grid tuning) then n iterations and returns
// the step kept and the mean acceptance statistic after warm-up.
func gridAcceptance(t *testing.T, s langevin.Sampler, d, warmup, n int, seed uint64) (step, acc float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	theta0 := make([]float64, d)
	for j := range theta0 {
		theta0[j] = rng.NormFloat64()
	}
	ch, err := s.NewChain(model.StdNormal{D: d}, theta0, rng)
	if err != nil {
		t.Fatal(err)
	}
	stats := make([]float64, 3)
	for i := 0; i < warmup+n; i++ {
		if err := ch.Step(); err != nil {
			t.Fatal(err)
		}
		if i >= warmup {
			ch.Stats(stats)
			acc += min(stats[1], 1)
		}
	}
	ch.Stats(stats)
	return stats[2], acc / float64(n)
}

// Grid tuning scored by the expected squared jump distance (GridESJD) lands
// on the optimal-scaling acceptance rates without being told them: on the
// 100-dimensional standard normal, RWM on a grid of 17 scales a factor
// 2^(1/8) apart (2,500 warm-up iterations each) keeps a scale whose
// acceptance is 0.234 ± 0.04 (over seeds 10–15: 0.202–0.250, mean 0.223; a
// factor 2^(1/8) of scale moves the acceptance by 0.04 near the optimum,
// where the ESJD is within 1.2% of its maximum), MALA on 17 steps a factor
// 2^(1/4) apart keeps one with acceptance 0.574 ± 0.06 (seeds 10–15:
// 0.586–0.611; at d = 100 MALA's optimum is still above its limit 0.574:
// 0.57–0.63 at d = 400). Scored by the acceptance closest to the target on
// the default factor-2 grid, RWM lands wherever the grid puts its points
// (0.122 here; the command's 0.30): the grid, not the dimension, made the
// old tuning miss.
func TestGridESJDLandsOnOptimalAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical test of the grid tuning: skipped with -short")
	}
	const d = 100
	grid := func(center, factor float64) []float64 {
		var g []float64
		for k := -8; k <= 8; k++ {
			g = append(g, center*math.Pow(factor, float64(k)))
		}
		return g
	}
	const warm = 17 * 2500
	rwm := sampler.RWM{Step: 1, Adapt: sampler.Adapt{Warmup: warm, Tune: sampler.TuneGrid, Score: sampler.GridESJD,
		Grid: grid(2.38/math.Sqrt(d)*1.3, math.Pow(2, 1.0/8))}}
	step, acc := gridAcceptance(t, rwm, d, warm, 20000, 1)
	t.Logf("RWM, ESJD grid: σ = %.4g (σ√d = %.3g), acceptance %.3f", step, step*math.Sqrt(d), acc)
	if math.Abs(acc-0.234) > 0.04 {
		t.Errorf("RWM, ESJD grid: acceptance %.3f, want 0.234 ± 0.04", acc)
	}
	mala := sampler.MALA{Step: 1, Adapt: sampler.Adapt{Warmup: warm, Tune: sampler.TuneGrid, Score: sampler.GridESJD,
		Grid: grid(0.6*math.Pow(d, -1.0/3), math.Pow(2, 1.0/4))}}
	step, acc = gridAcceptance(t, mala, d, warm, 20000, 2)
	t.Logf("MALA, ESJD grid: η = %.4g (η d^(1/3) = %.3g), acceptance %.3f", step, step*math.Cbrt(d), acc)
	if math.Abs(acc-0.574) > 0.06 {
		t.Errorf("MALA, ESJD grid: acceptance %.3f, want 0.574 ± 0.06", acc)
	}
	old := sampler.RWM{Step: 2.38 / math.Sqrt(d) * 1.3, Adapt: sampler.Adapt{Warmup: 9 * 2500, Tune: sampler.TuneGrid}}
	step, acc = gridAcceptance(t, old, d, 9*2500, 20000, 3)
	t.Logf("RWM, closest-acceptance factor-2 grid: σ√d = %.3g, acceptance %.3f", step*math.Sqrt(d), acc)
	if math.Abs(acc-0.234) < 0.04 {
		t.Errorf("the factor-2 closest-acceptance grid landed within 0.04 of 0.234 (%.3f): the comparison shows nothing", acc)
	}
}
