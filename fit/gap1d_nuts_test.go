package fit

import (
	"context"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

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
		t.Skip("≈ 6 min of CPU: LANGEVIN_GAP1D_NUTS=1 runs it (numbers in docs/validation.md)")
	}
	m := gap1dNet(t, []float64{2}) // the prior of its measured numbers (before the output layer's default 4)
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

// TestGap1DPriorExact: the exact posterior (NUTS) of gap1d's network under
// the fan-in prior of scale 2 with the output layer's scale 4 (weights
// N(0, 16/50)) — the default but for the output layer — widens the 90%
// predictive band in the gap to at least 3× the band over the data, with σ²
// within 25% of the truth (0.01): the 3× of issue 25 is reachable by the
// posterior of an honest prior, where the default's (output scale 2) gives
// 2.27× (TestGap1DBandsAgainstNUTS). With scale 2 the test fails (ratio
// 2.27). The default plan's SGHMC under this prior gives only 1.16× (its
// chains stay near their Adam modes), so the prior alone does not make the
// default pass: the sampler must explore the gap.
//
// Measured 2026-11-26 (seed 1, ≈ 6 min of CPU): band 1.100 in the gap, 0.328
// over the data, ratio 3.35; f's band 1.047 and 0.047; E σ² 0.0097;
// function-space R̂ max 1.069, median 1.005. LANGEVIN_GAP1D_NUTS=1 runs it.
//
// gap1dNet's x is not standardised; the command standardises it (sd 1.3),
// which narrows the prior's functions in x's units: the exact ratio of the
// command's model is 2.87 (TestGap1DCommandExact), not 3.35.
func TestGap1DPriorExact(t *testing.T) {
	if os.Getenv("LANGEVIN_GAP1D_NUTS") == "" {
		t.Skip("≈ 6 min of CPU: LANGEVIN_GAP1D_NUTS=1 runs it (numbers in docs/validation.md)")
	}
	m := gap1dNet(t, []float64{2, 4})
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, s2, conv := gap1dNUTS(ctx, t, m, p, sampler.NUTS{MaxDepth: 8, Precond: p.Precond}, nil)
	t.Logf("NUTS, output layer scale 4: %v; E σ² %.4f; %v", b, s2, conv)
	if conv.MaxRHat > 1.1 {
		t.Fatalf("NUTS not converged in function space (max R̂ %.3f > 1.1): no verdict", conv.MaxRHat)
	}
	if b.Ratio() < 3 {
		t.Errorf("exact posterior's gap/data band ratio %.2f < 3", b.Ratio())
	}
	if math.Abs(s2/0.01-1) > 0.25 {
		t.Errorf("E σ² %.4f: not within 25%% of 0.01", s2)
	}
}

// TestGap1DBlockNUTS: TestGap1DBandsAgainstNUTS's NUTS run (default prior,
// 4 chains from the plan's modes, 300 warm-up + 600 draws, tree depth ≤ 8)
// with the dense metric that has the plan's output-layer block
// (NetPlanOptions.OutputBlock, the best mode's) instead of the group
// diagonal there. The diagonal metric gives the output layer's directions
// that the data leave to the prior a scale 10⁻²-fold too small, so NUTS's
// 256 leapfrog steps may not cross them either: this run says whether the
// reference band of 2.27× is itself limited by its metric. It asserts that
// NUTS converged in function space (max R̂ ≤ 1.1) and logs the bands.
//
// Measured 2026-11-26 (seed 7, 18.6 min of CPU at load 20): band 0.573 in
// the gap, 0.328 over the data, ratio 1.75; f's band 0.469 and 0.042; E σ²
// 0.0097; max R̂ 1.125, min ESS 23 — it fails (not converged). SGHMC with
// the same block: f's band 0.477 in the gap but 0.147 over the data, E σ²
// 0.0119 (docs/validation.md). LANGEVIN_GAP1D_NUTS=1 runs it.
func TestGap1DBlockNUTS(t *testing.T) {
	if os.Getenv("LANGEVIN_GAP1D_NUTS") == "" {
		t.Skip("≈ 6 min of CPU: LANGEVIN_GAP1D_NUTS=1 runs it (numbers in docs/validation.md)")
	}
	m := gap1dNet(t, []float64{2}) // the prior of its measured numbers
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1, OutputBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for k := range p.Modes {
		if p.ModeLP[k] > p.ModeLP[best] {
			best = k
		}
	}
	dim := m.Dim()
	full := mat.NewSymDense(dim, nil)
	for j, v := range p.Precond {
		full.SetSym(j, j, v)
	}
	blk := p.OutputBlocks[best][0]
	for a, i := range blk.Index {
		for b, j := range blk.Index {
			full.SetSym(i, j, blk.Cov.At(a, b))
		}
	}
	b, s2, conv := gap1dNUTS(ctx, t, m, p, sampler.NUTS{MaxDepth: 8, PrecondFull: full}, nil)
	t.Logf("NUTS, output-block metric: %v; E σ² %.4f; %v", b, s2, conv)
	if conv.MaxRHat > 1.1 {
		t.Errorf("NUTS not converged in function space (max R̂ %.3f > 1.1)", conv.MaxRHat)
	}
}

// gap1dNUTS runs the gap1d tests' NUTS reference (4 chains × 600 draws
// after 300 warm-up, thin 2, seed 7, from the plan's modes) with the sampler
// nuts (its warm-up set here) and returns the 90% bands, the mean σ² and the
// function-space convergence at the plan's points.
func gap1dNUTS(ctx context.Context, t *testing.T, m *model.MLP, p *NetPlan, nuts sampler.NUTS, sc *data.Scaler) (*GapBands, float64, *predict.Convergence) {
	t.Helper()
	const warm, draws = 300, 600
	nuts.Adapt = sampler.Adapt{Warmup: warm}
	tr, err := langevin.Run(ctx, m, nuts, langevin.Options{Chains: 4, Iters: warm + draws, BurnIn: warm, Init: p.Init(), Seed: 7, Thin: 2})
	if err != nil {
		t.Fatal(err)
	}
	flat, s2 := gapDraws(m, tr)
	b, err := Gap1DBands(m, flat, sc, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := predict.RegressConvergence(m, traceChains(tr), p.Points)
	if err != nil {
		t.Fatal(err)
	}
	return b, s2, conv
}

// gapDraws pools the chains' kept draws of m's parameters (dropping any
// extra columns of the trace) and returns them with the mean of σ² over them
// (m.NoiseVar, the model's standardised units).
func gapDraws(m *model.MLP, tr *langevin.Trace) (flat [][]float64, meanNoise float64) {
	for _, ch := range tr.Draws {
		for _, th := range ch {
			flat = append(flat, th[:m.Dim()])
			meanNoise += m.NoiseVar(th[:m.Dim()])
		}
	}
	return flat, meanNoise / float64(len(flat))
}

// gap1dNet is the network of the gap1d tests: the default 50-unit ReLU
// regression network (model.MLPDefaults) on 800 points of data.Gap1D (noise
// sd 0.1, seed 1), with the prior's scales by layer (nil: the default's).
func gap1dNet(t *testing.T, priorScale []float64) *model.MLP {
	t.Helper()
	d, err := data.Gap1D(800, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.NewMLP(d.X, d.Y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Activation: model.ReLU,
		Likelihood: model.LikGaussian, PriorScale: priorScale}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
