package stan

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// rowsRun samples m by the plan of --sampler auto forced to minibatches
// (SGLD with the plan's control variates, step and preconditioner; 4
// chains) and returns the summary of θ.
func rowsRun(t *testing.T, m langevin.Model, seed uint64, iters int) diag.Table {
	t.Helper()
	ctx := context.Background()
	p, err := fit.NewPlan(ctx, m, fit.PlanOptions{Kind: "sgld", Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	s, burn, _ := p.Configure(iters, -1, 0, 0)
	tr, err := langevin.Run(ctx, m, s, langevin.Options{Chains: 4, Iters: iters, BurnIn: burn, Seed: seed, Init: p.Init(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, m.Dim())
	for j := range names {
		names[j] = fmt.Sprint("theta.", j+1)
	}
	return diag.Summarize(names, tr.Params()[:m.Dim()])
}

// rowsMatch compares two summaries as the acceptance of a Stan program on
// minibatches does: every mean within 0.1 sd of the reference plus three
// Monte Carlo standard errors of the difference, every sd within 10% plus
// three standard errors of the ratio (about 1/√(2 ESS) each). It returns
// what does not match.
func rowsMatch(got, ref diag.Table) []string {
	var bad []string
	for j := range ref {
		g, r := got[j], ref[j]
		se := math.Hypot(g.MCSEMean, r.MCSEMean)
		if d := math.Abs(g.Mean - r.Mean); d > 0.1*r.SD+3*se {
			bad = append(bad, fmt.Sprintf("%s: mean %.5g vs %.5g (|Δ| = %.2g sd, allowed 0.1 + 3 MCSE = %.2g sd)", r.Name, g.Mean, r.Mean, d/r.SD, 0.1+3*se/r.SD))
		}
		seRatio := math.Sqrt(1/(2*g.ESSBulk) + 1/(2*r.ESSBulk))
		if q := g.SD / r.SD; math.Abs(q-1) > 0.1+3*seRatio {
			bad = append(bad, fmt.Sprintf("%s: sd %.4g vs %.4g (ratio %.3f, allowed 1 ± %.3f)", r.Name, g.SD, r.SD, q, 0.1+3*seRatio))
		}
	}
	return bad
}

// doubled is a Stan model whose minibatch likelihood is scaled twice over
// (N/|B| applied twice, say): the slip the comparison must catch.
type doubled struct{ *Model }

func (d doubled) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if batch == nil {
		return d.Model.LogLik(theta, nil, grad)
	}
	g := make([]float64, len(theta))
	v := d.Model.LogLik(theta, batch, g)
	for j := range g {
		if grad != nil {
			grad[j] += 2 * g[j]
		}
	}
	return 2 * v
}

func (d doubled) LogLikPair(a, b []float64, batch []int, ga, gb []float64) (float64, float64) {
	return d.LogLik(a, batch, ga), d.LogLik(b, batch, gb)
}

// TestRowsSamplingMatchesLogistic runs a Stan logistic regression on
// minibatches (NewRows) and model.Logistic on the same 2,000 rows of 3
// correlated features, each by the minibatch plan of --sampler auto with
// seeds of its own, and compares the posteriors: means within 0.1 sd and sds
// within 10%, up to Monte Carlo error. A Stan model whose minibatch
// likelihood is scaled twice over must fail the same comparison.
func TestRowsSamplingMatchesLogistic(t *testing.T) {
	js, X, y := logisticData(2000, 3, 5)
	d, err := ParseData("rows.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Parse("rows.stan", rowsPrograms["vectorised"])
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewRows(prog, d, "N")
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.NewLogistic(X, y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	iters := 3000
	ref := rowsRun(t, h, 1, iters)
	got := rowsRun(t, m, 2, iters)
	if bad := rowsMatch(got, ref); len(bad) > 0 {
		t.Errorf("the Stan program on minibatches differs from model.Logistic:\n%v\nStan:\n%v\nmodel.Logistic:\n%v", bad, got, ref)
	}
	slip := rowsRun(t, doubled{m}, 2, iters)
	t.Logf("Stan program on minibatches:\n%vmodel.Logistic:\n%vscaled twice over:\n%v", got, ref, slip)
	if bad := rowsMatch(slip, ref); len(bad) == 0 {
		t.Errorf("a minibatch likelihood scaled twice over passes the comparison:\n%v\nmodel.Logistic:\n%v", slip, ref)
	}
}
