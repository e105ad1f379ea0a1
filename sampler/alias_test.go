package sampler_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// TestPrecondAliases: every sampler names its preconditioner M Precond
// (diagonal) and PrecondFull (dense); the old names still do the right
// thing — the same draws bit for bit — and giving both is an error. SGHMC's
// old Mass is the inverse of M: Mass = 1/Precond gives the same draws
// (exactly, for powers of two), so a Laplace variance given as Precond
// scales SGHMC's step as it scales SGLD's.
func TestPrecondAliases(t *testing.T) {
	X, y := testmodel.LogisticData(200, 3, 5)
	m, err := model.NewLogistic(X, y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.5, 2, 0.25, 4} // M's diagonal: powers of two, so 1/(1/p) = p exactly
	inv := make([]float64, len(p))
	for j := range p {
		inv[j] = 1 / p[j]
	}
	dense := mat.NewSymDense(4, []float64{1, 0.2, 0, 0, 0.2, 1, 0, 0, 0, 0, 2, 0.1, 0, 0, 0.1, 1})
	step := schedule.Constant(1e-3)
	mb := sampler.Minibatch{Size: 20}
	for _, tc := range []struct {
		name     string
		new, old langevin.Sampler
		both     langevin.Sampler
	}{
		{"SGHMC Precond = 1/Mass",
			sampler.SGHMC{Step: step, Batch: mb, Precond: p},
			sampler.SGHMC{Step: step, Batch: mb, Mass: inv},
			sampler.SGHMC{Step: step, Batch: mb, Precond: p, Mass: inv}},
		{"NUTS Precond = InvMetric",
			sampler.NUTS{Precond: p, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.NUTS{InvMetric: p, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.NUTS{Precond: p, InvMetric: p}},
		{"NUTS PrecondFull = InvMetricDense",
			sampler.NUTS{PrecondFull: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.NUTS{InvMetricDense: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.NUTS{PrecondFull: dense, InvMetricDense: dense}},
		{"RWM Precond = Scale",
			sampler.RWM{Precond: p, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.RWM{Scale: p, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.RWM{Precond: p, Scale: p}},
		{"RWM PrecondFull = ScaleDense",
			sampler.RWM{PrecondFull: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.RWM{ScaleDense: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.RWM{PrecondFull: dense, ScaleDense: dense}},
		{"MALA PrecondFull = PrecondDense",
			sampler.MALA{PrecondFull: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.MALA{PrecondDense: dense, Adapt: sampler.Adapt{Warmup: 100}},
			sampler.MALA{PrecondFull: dense, PrecondDense: dense}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := langevin.Options{Chains: 2, Iters: 300, BurnIn: 100, Seed: 3}
			a, err := langevin.Run(context.Background(), m, tc.new, o)
			if err != nil {
				t.Fatal(err)
			}
			b, err := langevin.Run(context.Background(), m, tc.old, o)
			if err != nil {
				t.Fatal(err)
			}
			for c := range a.Draws {
				for i := range a.Draws[c] {
					for j, v := range a.Draws[c][i] {
						if math.Float64bits(v) != math.Float64bits(b.Draws[c][i][j]) {
							t.Fatalf("chain %d draw %d param %d: new name %v, old name %v", c, i, j, v, b.Draws[c][i][j])
						}
					}
				}
			}
			if _, err := tc.both.NewChain(m, make([]float64, 4), nil); err == nil || !strings.Contains(err.Error(), "deprecated") {
				t.Errorf("both names set: error %v, want one naming the deprecated field", err)
			}
		})
	}
	// The slip the new name prevents: a variance passed as the old Mass
	// (the inverse of M) moves SGHMC differently.
	o := langevin.Options{Chains: 1, Iters: 300, Seed: 3}
	a, _ := langevin.Run(context.Background(), m, sampler.SGHMC{Step: step, Batch: mb, Precond: p}, o)
	b, _ := langevin.Run(context.Background(), m, sampler.SGHMC{Step: step, Batch: mb, Mass: p}, o)
	if a.Draws[0][299][1] == b.Draws[0][299][1] {
		t.Error("SGHMC Precond p and Mass p give the same draws: the test cannot tell M from M⁻¹")
	}
}
