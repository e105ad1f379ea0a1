package fit

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
)

// TestOutputBlockCov: the output layer's dense preconditioner of a plan's
// mode is the inverse of the output layer's block of the negative Hessian
// (approx.Hessian's finite differences, an independent code path), up to
// the floor at the prior precision: P·H_B ≈ I where H_B is well above the
// floor.
func TestOutputBlockCov(t *testing.T) {
	m := gapNet(t, 200)
	p, err := NewNetPlan(context.Background(), m, NetPlanOptions{Starts: 1, Seed: 3, MAPIters: 2000, OutputBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.OutputBlocks) != 1 || len(p.OutputBlocks[0]) != 1 {
		t.Fatalf("output blocks %v: want one block for the one mode", p.OutputBlocks)
	}
	blk := p.OutputBlocks[0][0]
	idx := m.OutputLayer()
	if len(blk.Index) != len(idx) || len(idx) != 11 {
		t.Fatalf("block of %d indices, output layer %d: want 11 (10 weights and a bias)", len(blk.Index), len(idx))
	}
	d := m.Dim()
	h := make([]float64, d*d)
	approx.Hessian(m, p.Modes[0], h)
	k := len(idx)
	HB := mat.NewDense(k, k, nil)
	for a, i := range idx {
		for b, j := range idx {
			HB.Set(a, b, -h[i*d+j])
		}
	}
	var prod mat.Dense
	prod.Mul(blk.Cov, HB)
	var worst float64
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			want := 0.0
			if a == b {
				want = 1
			}
			worst = max(worst, math.Abs(prod.At(a, b)-want))
		}
	}
	if worst > 1e-3 {
		t.Errorf("P·H_B differs from I by %.3g (want ≤ 1e-3)", worst)
	}
	for _, n := range p.Notes {
		if strings.Contains(n, "output layer: dense") {
			return
		}
	}
	t.Errorf("no note on the output block: %v", p.Notes)
}

// TestNetPlanOutputBlockGap: on gap1d's default regression network (1-50-1
// ReLU, prior scale 2, learned noise, 800 points), the plan with the dense
// output-layer block (OutputBlock) widens f's 90% band in the gap to at
// least 1.5× the diagonal plan's, from the same modes at the same length:
// the directions of the output layer that the data leave to the prior,
// which carry f's freedom in the gap, relax at the prior's scale instead of
// 10⁴-fold too slowly (the diagonal's preconditioned curvature there is
// 6·10⁻⁵ against λmax ≈ 70). Measured 2026-11-26 (seed 1, burn-in + 6,000
// iterations, 13 s CPU, with the friction rule of netFriction): f's band in
// the gap 0.141 → 0.462, over the data 0.057 → 0.142; the 90% predictive
// band's gap/data ratio 1.08 → 1.53; E σ² 0.0100 → 0.0117 (truth 0.01). The test fails if the block is not applied.
func TestNetPlanOutputBlockGap(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 20 s of CPU: skipped with -short")
	}
	m := gap1dNet(t, []float64{2}) // the prior of the numbers above
	ctx := context.Background()
	var fgap [2]float64
	for i, block := range []bool{false, true} {
		p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1, OutputBlock: block, GibbsEvery: -1})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{Chains: 4, Iters: p.BurnIn + 6000, BurnIn: p.BurnIn, Init: p.Init(), Seed: 1, Thin: 20})
		if err != nil {
			t.Fatal(err)
		}
		flat, s2 := gapDraws(m, tr)
		b, err := Gap1DBands(m, flat, nil, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("output block %v: η = %.3g, burn-in %d: %v; E σ² %.4f", block, p.Eta, p.BurnIn, b, s2)
		fgap[i] = b.FGap
	}
	if fgap[1] < 1.5*fgap[0] {
		t.Errorf("f's band in the gap %.3f with the output block, %.3f without: want at least 1.5×", fgap[1], fgap[0])
	}
}
