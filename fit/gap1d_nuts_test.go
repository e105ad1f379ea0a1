package fit

import (
	"context"
	"os"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
)

// TestGap1DBandsAgainstNUTS: on the default regression network of
// `langevin run --data gap1d --model mlp` (1-50-1 ReLU, prior scale 2,
// learned noise; 800 gap1d points), the 90% predictive band in the gap of
// the default plan's draws against NUTS's (4 chains from the plan's modes,
// 300 warm-up + 600 draws, tree depth ≤ 8) — the exact posterior of the
// same model. It asks the plan's gap/data band ratio within 25% of NUTS's.
//
// Measured 2026-11-25 (seed 1; ≈ 6 min of CPU): NUTS band 0.739 in the gap,
// 0.325 over the data, ratio 2.27 (f's band 0.660 and 0.046; E σ² 0.0096;
// function-space R̂ max 1.022); the plan 0.399 and 0.341, ratio 1.17 (f's
// band 0.225 and 0.075). The test fails: the SGHMC chains stay near their
// Adam modes and see a third of the posterior's spread of f in the gap, and
// even the exact posterior's ratio is below the 3× issue 25 asks (a prior
// question). LANGEVIN_GAP1D_NUTS=1 runs it.
func TestGap1DBandsAgainstNUTS(t *testing.T) {
	if os.Getenv("LANGEVIN_GAP1D_NUTS") == "" {
		t.Skip("≈ 6 min of CPU: LANGEVIN_GAP1D_NUTS=1 runs it (numbers in docs/networks.md)")
	}
	d, err := data.Gap1D(800, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.NewMLP(d.X, d.Y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Activation: model.ReLU, Likelihood: model.LikGaussian}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	flat := func(tr *langevin.Trace) [][]float64 {
		var out [][]float64
		for _, ch := range tr.Draws {
			for _, th := range ch {
				out = append(out, th[:m.Dim()])
			}
		}
		return out
	}
	const warm, draws = 300, 600
	tr, err := langevin.Run(ctx, m, sampler.NUTS{MaxDepth: 8, Precond: p.Precond, Adapt: sampler.Adapt{Warmup: warm}},
		langevin.Options{Chains: 4, Iters: warm + draws, BurnIn: warm, Init: p.Init(), Seed: 7, Thin: 2})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Gap1DBands(m, flat(tr), nil, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := predict.RegressConvergence(m, traceChains(tr), p.Points)
	t.Logf("NUTS: %v; %v", exact, conv)
	var fc *FunctionConvergence
	tr, err = langevin.Run(ctx, m, p.Sampler, langevin.Options{Chains: 4, Iters: p.MaxIters, BurnIn: p.BurnIn,
		Init: p.Init(), Seed: 1, Until: p.Until(m, 100, &fc), CheckEvery: max(200, p.BurnIn/4), MaxKeep: 500})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Gap1DBands(m, flat(tr), nil, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan: %v; %v", plan, fc)
	if r := plan.Ratio() / exact.Ratio(); r < 0.75 || r > 1.25 {
		t.Errorf("the plan's gap/data band ratio %.2f is %.0f%% of the exact posterior's %.2f (NUTS)", plan.Ratio(), 100*r, exact.Ratio())
	}
}
