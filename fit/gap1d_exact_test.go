package fit

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
)

// gap1dCommandNet is the network of `langevin run --data gap1d --model mlp`
// as the command builds it: 800 points of data.Gap1D (noise sd 0.1, seed
// 1), the feature standardised (data.FitScaler) and the default 1-50-1
// ReLU regression network (model.MLPDefaults: prior scales 2 and 4 by
// layer, learned noise, standardised response). gap1dNet differs in leaving
// x unstandardised, which widens the prior's functions in x's units.
func gap1dCommandNet(t *testing.T) (*model.MLP, *data.Scaler) {
	t.Helper()
	d, err := data.Gap1D(800, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := data.FitScaler(d.X)
	sc.Transform(d.X)
	m, err := model.NewMLP(d.X, d.Y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Activation: model.ReLU, Likelihood: model.LikGaussian}))
	if err != nil {
		t.Fatal(err)
	}
	return m, sc
}

// TestGap1DCommandExact: the exact posterior of the command's gap1d network
// by two samplers — a Metropolis-within-Gibbs chain (model.OutputConditional
// with a sweep of 50 unit moves and 4 noise moves per draw, the output layer
// drawn exactly: every kernel exact, TestUnitMovesPosterior and
// TestUnitMovesAgainstNUTS) of 4 × 10,000 draws after 2,000 from the plan's
// modes, and NUTS (gap1dNUTS: 4 × 600 draws) — against the default plan
// (4 chains, burn-in + 20,000 iterations).
//
// It asserts that the Metropolis-within-Gibbs reference converged in
// function space (max R̂ ≤ 1.01, min ESS ≥ 400), that its E σ² is within 25%
// of the truth (0.01) and within 5% of NUTS's, and that its f band over the
// data (where NUTS mixes) is within 15% of NUTS's.
//
// Measured 2026-11-26 (≈ 8 min of CPU), ratio of the 90% predictive band in
// the gap to that over the data (f's bands in the gap and over the data):
//
//	Metropolis-within-Gibbs  2.87 (0.880, 0.048), max R̂ 1.003, min ESS 1615, E σ² 0.0097
//	NUTS                     2.22 (0.666, 0.048), max R̂ 1.116, min ESS 25,   E σ² 0.0098
//	default plan             2.07 (0.595, 0.058)  (2.22, 2.27 at seeds 2, 3)
//	plan + 50 unit moves     2.64 (0.792, 0.065)  (2.57, 2.59 at seeds 2, 3)
//
// So the exact posterior of the default model gives 2.87×, under the 3×
// issue 25 asks: no correct sampler meets that line at the default prior
// (NUTS, short of mixing over the hidden units, sees less). The default plan
// sees 72% of the exact ratio. LANGEVIN_GAP1D_NUTS=1 runs it.
func TestGap1DCommandExact(t *testing.T) {
	if os.Getenv("LANGEVIN_GAP1D_NUTS") == "" {
		t.Skip("≈ 8 min of CPU: LANGEVIN_GAP1D_NUTS=1 runs it (numbers in docs/validation.md)")
	}
	m, sc := gap1dCommandNet(t)
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Metropolis-within-Gibbs from each mode.
	var flat [][]float64
	var chains [][][]float64
	var s2 float64
	for ci, mode := range p.Modes {
		c, err := m.NewOutputConditional()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetUnitMoves(50); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 77))
		th := append([]float64(nil), mode...)
		var ch [][]float64
		for i := range 12000 {
			if err := c.Draw(th, 1, rng); err != nil {
				t.Fatal(err)
			}
			if i >= 2000 && i%20 == 0 {
				d := append([]float64(nil), th...)
				ch = append(ch, d)
				flat = append(flat, d)
				s2 += m.NoiseVar(d)
			}
		}
		chains = append(chains, ch)
		a, pr := c.UnitAccepted()
		t.Logf("Metropolis-within-Gibbs chain %d: %d of %d unit moves accepted", ci, a, pr)
	}
	s2 /= float64(len(flat))
	mwg, err := Gap1DBands(m, flat, sc, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	mconv, err := predict.RegressConvergence(m, chains, p.Points)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Metropolis-within-Gibbs: %v; E σ² %.4f; %v", mwg, s2, mconv)
	nb, ns2, nconv := gap1dNUTS(ctx, t, m, p, sampler.NUTS{MaxDepth: 8, Precond: p.Precond}, sc)
	t.Logf("NUTS: %v; E σ² %.4f; %v", nb, ns2, nconv)
	tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{Chains: 4, Iters: p.BurnIn + 20000, BurnIn: p.BurnIn, Init: p.Init(), Seed: 1, Thin: 20})
	if err != nil {
		t.Fatal(err)
	}
	pflat, ps2 := gapDraws(m, tr)
	pb, err := Gap1DBands(m, pflat, sc, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default plan: %v; E σ² %.4f; %.0f%% of the exact ratio", pb, ps2, 100*pb.Ratio()/mwg.Ratio())

	if mconv.MaxRHat > 1.01 || mconv.MinESS < 400 {
		t.Errorf("Metropolis-within-Gibbs not converged: max R̂ %.3f, min ESS %.0f", mconv.MaxRHat, mconv.MinESS)
	}
	if math.Abs(s2/0.01-1) > 0.25 || math.Abs(s2/ns2-1) > 0.05 {
		t.Errorf("Metropolis-within-Gibbs E σ² %.4f: truth 0.01, NUTS %.4f", s2, ns2)
	}
	if math.Abs(mwg.FData/nb.FData-1) > 0.15 {
		t.Errorf("f's band over the data %.3f, NUTS %.3f: not within 15%%", mwg.FData, nb.FData)
	}
}
