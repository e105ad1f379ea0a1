package langevin_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
)

// keepWalk is walk whose chains keep only iterations t with t mod 3 == 0.
type keepWalk struct{ walk }

func (w keepWalk) NewChain(m langevin.Model, th []float64, rng *rand.Rand) (langevin.Chain, error) {
	c, err := w.walk.NewChain(m, th, rng)
	return keepChain{c.(*walkChain)}, err
}

type keepChain struct{ *walkChain }

func (c keepChain) Keep() bool { return c.t%3 == 0 }

func TestRunKeeper(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	tr, err := langevin.Run(context.Background(), m, keepWalk{}, langevin.Options{
		Chains: 2, Iters: 40, BurnIn: 10, Thin: 2, Seed: 1, SaveWarmup: true})
	if err != nil {
		t.Fatal(err)
	}
	// Kept post-burn-in iterations: 12, 15, …, 39 (10 of them); thinning by 2
	// stores the 1st, 3rd, …: 12, 18, 24, 30, 36.
	want := []int{12, 18, 24, 30, 36}
	for c := range tr.Iters {
		if len(tr.Iters[c]) != len(want) {
			t.Fatalf("chain %d: iterations %v, want %v", c, tr.Iters[c], want)
		}
		for i, it := range tr.Iters[c] {
			if it != want[i] || tr.Stats[c][i][1] != float64(it) {
				t.Errorf("chain %d: iterations %v, want %v", c, tr.Iters[c], want)
				break
			}
		}
		// Warm-up draws are not filtered: 1, 3, 5, 7, 9.
		if len(tr.Warmup[c].Iters) != 5 {
			t.Errorf("chain %d: warm-up iterations %v", c, tr.Warmup[c].Iters)
		}
	}
}

// With the control variate, the Mean model's gradient estimate is exact for
// every batch: its per-observation gradient zᵢ − θ differs from zᵢ − θ̂ by a
// constant. The log-density estimate is unbiased.
func TestEstimatorControlVariate(t *testing.T) {
	m := testmodel.NewMean(50, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	b, _ := langevin.NewBatcher(m.Len(), 5, true, rng)
	e := langevin.NewEstimator(m, b)
	if err := e.SetControlVariate([]float64{1.1}); err != nil {
		t.Fatal(err)
	}
	th := []float64{0.3}
	g := []float64{0}
	exact := []float64{0}
	want := langevin.LogPosterior(m, th, exact)
	var sum float64
	const reps = 20000
	for k := 0; k < reps; k++ {
		sum += e.Eval(th, g)
		if math.Abs(g[0]-exact[0]) > 1e-9*math.Abs(exact[0]) {
			t.Fatalf("ĝ = %v, exact %v", g[0], exact[0])
		}
		if math.Abs(e.LikGrad()[0]-(exact[0]+th[0]/(m.S*m.S))) > 1e-9 {
			t.Fatalf("LikGrad %v", e.LikGrad())
		}
	}
	// Value noise: (N/B) Σ_B [(zᵢ−θ̂)² − (zᵢ−θ)²]/2 is linear in zᵢ with
	// slope θ − θ̂ = −0.8: per-step sd ≤ N·0.8·sd(z)/√B ≈ 18.
	if math.Abs(sum/reps-want) > 5*18/math.Sqrt(reps) {
		t.Errorf("mean log-density estimate %v, exact %v", sum/reps, want)
	}
	if v := e.EvalBatch(th, []int{1, 2}, nil); math.IsNaN(v) {
		t.Error("value-only evaluation is NaN")
	}
	if err := e.SetControlVariate([]float64{1, 2}); err == nil {
		t.Error("control variate centre of the wrong length accepted")
	}
	if err := e.SetControlVariate([]float64{math.NaN()}); err == nil {
		t.Error("NaN control variate centre accepted")
	}
	e.SetControlVariate(nil)
	if e.ControlVariate() != nil {
		t.Error("control variate not removed")
	}
}
