package formula

import (
	"context"
	"math"
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
