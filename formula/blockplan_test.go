package formula

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/sampler"
)

// populationTable summarises the population-level effects and group
// scales (b_, sd_, cor_) of a trace of m.
func populationTable(m *Model, tr *langevin.Trace) diag.Table {
	d := m.Dim()
	all := tr.Params()
	var names []string
	var cols [][][]float64
	for j, nm := range m.DerivedNames() {
		if nm[0] != 'r' {
			names, cols = append(names, nm), append(cols, all[d+j])
		}
	}
	return diag.Summarize(names, cols)
}

// TestBlockPlanAgainstNUTS: the plan's path for hierarchical models at
// scale (fit.NewPlan on a formula model with groups, no tuning: centred
// effects, block-arrow M = H⁻¹, SGLD with control variates, batch and step
// by rule) against exact NUTS on the binomial cells of the same rows (the
// same posterior, TestScaleCellsSamePosterior), on y ~ x + (1 + x | g),
// 40,000 rows and 50 groups (d = 105). Population effects and group scales
// must agree within 4 Monte Carlo standard errors plus 0.05 sd (means) and
// within 4 relative standard errors of an sd plus the plan's predicted
// inflation (sds). The same sampler at temperature 2 (a variance off by
// 2, as a √2 noise slip or a wrong N/|B| would give) must fail the check.
func TestBlockPlanAgainstNUTS(t *testing.T) {
	if testing.Short() {
		t.Skip("NUTS and SGLD on a 40,000-row hierarchical model")
	}
	rows, cells := scaleModels(t, 40000, 50, 9)
	ctx := context.Background()
	if !fit.BlockPlanned(rows, nil) {
		t.Fatal("the plan does not take its block-arrow path on the hierarchical model")
	}
	nuts := sampler.NUTS{}
	nuts.Adapt.Metric = sampler.MetricDense
	ref, err := langevin.Run(ctx, cells, nuts, langevin.Options{Chains: 4, Iters: 1000, BurnIn: 500, Seed: 3, Init: langevin.InitUniform{}})
	if err != nil {
		t.Fatal(err)
	}
	want := populationTable(cells, ref)
	p, err := fit.NewPlan(ctx, rows, fit.PlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Arrow == nil || p.Kind != "sgld" {
		t.Fatalf("plan: %s", p)
	}
	t.Log(p)
	s, burn, _ := p.Configure(3000, -1, 0, 0)
	check := func(s langevin.Sampler, report bool) (bad int) {
		tr, err := langevin.Run(ctx, rows, s, langevin.Options{Chains: 4, Iters: burn + 3000, BurnIn: burn, Seed: 2, Init: p.Init()})
		if err != nil {
			t.Fatal(err)
		}
		got := populationTable(rows, tr)
		infl := math.Sqrt(p.Step.Inflation(p.Step.Eta)) - 1
		for i, g := range got {
			w := want[i]
			tolM := 4*math.Hypot(g.MCSEMean, w.MCSEMean) + 0.05*w.SD
			relSD := 1/math.Sqrt(2*g.ESSBulk) + 1/math.Sqrt(2*w.ESSBulk)
			tolS := 4*relSD + infl
			dm, ds := math.Abs(g.Mean-w.Mean), math.Abs(g.SD/w.SD-1)
			if dm > tolM || ds > tolS {
				bad++
			}
			if report {
				t.Logf("%-22s NUTS %.4f (%.4f, ESS %.0f)  plan %.4f (%.4f, ESS %.0f)  |Δ|/sd %.3f (tol %.3f)  sd ratio %.3f (tol ±%.3f)",
					g.Name, w.Mean, w.SD, w.ESSBulk, g.Mean, g.SD, g.ESSBulk, dm/w.SD, tolM/w.SD, g.SD/w.SD, tolS)
				if dm > tolM || ds > tolS {
					t.Errorf("%s: the plan's draws disagree with NUTS", g.Name)
				}
			}
		}
		return bad
	}
	check(s, true)
	hot := s.(sampler.SGLD)
	hot.Temperature = 2
	if check(hot, false) == 0 {
		t.Error("the check passes draws at temperature 2: it cannot fail")
	}
}

// TestLaplaceInitSkippedByBlockPlan: the command computes the Laplace
// diagonal for --init laplace (its default) only when the initial points
// use it: not under --sampler auto's block-arrow plan, which starts the
// chains at its own draws (the diagonal would cost 2d full gradients).
func TestLaplaceInitSkippedByBlockPlan(t *testing.T) {
	rows, _ := scaleModels(t, 4000, 50, 9)
	flat := fitFlatModel(t)
	if !fit.BlockPlanned(rows, nil) || fit.BlockPlanned(flat, nil) {
		t.Fatal("BlockPlanned: expected the hierarchical model only")
	}
	for _, tc := range []struct {
		sampler, init string
		set           bool
		m             langevin.Model
		want          bool
	}{
		{"auto", "laplace", false, rows, false}, // the plan's InitBlockArrow
		{"auto", "laplace", true, rows, true},   // --init laplace asked for
		{"auto", "map", false, rows, false},
		{"sgld", "laplace", false, rows, true},
		{"auto", "laplace", false, flat, true}, // no group terms: as before
	} {
		c := &fit.Config{Sampler: tc.sampler, Init: tc.init, Set: map[string]bool{"init": tc.set}}
		if got := c.UsesLaplaceInitOn(tc.m); got != tc.want {
			t.Errorf("sampler %s, init %s (set %v), hierarchical %v: UsesLaplaceInitOn %v, want %v",
				tc.sampler, tc.init, tc.set, tc.m == langevin.Model(rows), got, tc.want)
		}
	}
}

// fitFlatModel is y ~ x, logistic, 4,000 rows: no group terms.
func fitFlatModel(t *testing.T) *Model {
	f, err := Parse("y ~ x")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(f, scaleRows(4000, 50, 9), Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchmarkBlockPlanStep is one iteration of the block plan's sampler
// (SGLD, control variates, block-arrow M = H⁻¹) on y ~ x + (1 + x | g),
// 10⁵ rows, 1,000 groups (d = 2,005): two minibatch gradients and the
// preconditioned step; 0 allocs/op.
func BenchmarkBlockPlanStep(b *testing.B) {
	rows, _ := scaleModels(b, 100000, 1000, 22)
	benchPlanStep(b, rows, false)
}

// benchPlanStep times one step of the block plan's sampler on rows, the
// plan with (taylor) or without the second-order control variate.
func benchPlanStep(b *testing.B, rows *Model, taylor bool) {
	// Kind "sgld": the block plan itself, whatever the cost rule would
	// choose for these data.
	p, err := fit.NewPlan(context.Background(), rows, fit.PlanOptions{Seed: 1, Kind: "sgld"})
	if err != nil {
		b.Fatal(err)
	}
	if p.Arrow == nil || p.Batch.Taylor != taylor {
		b.Fatalf("not the block-arrow plan with Batch.Taylor = %v (arrow %v, Taylor %v)", taylor, p.Arrow != nil, p.Batch.Taylor)
	}
	s, _, _ := p.Configure(1000000, -1, 0, 0)
	ch, err := s.NewChain(rows, p.MAP, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("batch %d of %d rows, η %.3g", p.Batch.Size, rows.Len(), p.Step.Eta)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ch.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBlockPlanDegenerateExplained: at 10⁵ rows and 1,000 groups (100 rows
// a level, effects non-centred) the joint MAP is degenerate and the block
// plan's chains diverge within a few iterations; the error says so — the
// group scales at the MAP and that the plan cannot be trusted here — not
// "try a smaller step size" alone. Fails if the divergence went unexplained
// or the plan stopped diverging (then the case no longer shows it). The
// default plan (no sampler asked for) sees the degenerate mode before any
// step and runs NUTS with a fallback naming the group sd.
func TestBlockPlanDegenerateExplained(t *testing.T) {
	if testing.Short() {
		t.Skip("~10 s of CPU: the MAP and plan on 10⁵ rows; the full suite runs it")
	}
	rows, _ := scaleModels(t, 100000, 1000, 22)
	ctx := context.Background()
	mp, err := fit.NewLaplace(rows).MAP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The default plan does not take the block-arrow path here: the joint
	// mode is degenerate, and NUTS runs instead, saying why.
	auto, err := fit.NewPlan(ctx, rows, fit.PlanOptions{Seed: 1, MAP: mp})
	if err != nil {
		t.Fatal(err)
	}
	if auto.Kind != "nuts" || !strings.Contains(auto.Fallback, "sd_g__Intercept") {
		t.Errorf("default plan on a degenerate mode: %s", auto)
	}
	p, err := fit.NewPlan(ctx, rows, fit.PlanOptions{Seed: 1, MAP: mp, Kind: "sgld"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Arrow == nil {
		t.Fatal("no block-arrow plan")
	}
	s, burn, _ := p.Configure(200, -1, 0, 0)
	_, runErr := langevin.Run(ctx, rows, s, langevin.Options{Chains: 2, Iters: 200, BurnIn: burn, Seed: 1, Init: p.Init()})
	var de *langevin.DivergenceError
	if !errors.As(runErr, &de) {
		t.Fatalf("run error %v: the case no longer diverges", runErr)
	}
	msg := p.ExplainDivergence(rows, runErr).Error()
	t.Log(msg)
	for _, want := range []string{"a smaller step would not help", "sd_g__Intercept", "cannot be trusted", "{sampler} nuts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q", want)
		}
	}
}
