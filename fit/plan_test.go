package fit_test

import (
	"context"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/testmodel"
)

// The plan on the small interaction regression picks NUTS by the cost rule;
// forced to SGLD it runs, with no setting by hand, until the smallest bulk-ESS
// reaches 1000 and recovers the exact posterior (means within 0.1 sd, sds
// within 10%), and the same seed gives the same draws.
func TestPlanSGLDToTarget(t *testing.T) {
	m := testmodel.InteractionLinear(t)
	exact := m.Posterior()
	ctx := context.Background()
	auto, err := fit.NewPlan(ctx, m, fit.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if auto.Kind != "nuts" {
		t.Errorf("N = 434, d = 5: plan chose %s: %s", auto.Kind, auto.Why)
	}
	p, err := fit.NewPlan(ctx, m, fit.PlanOptions{Kind: "sgld", Batch: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", p)
	run := func() (*langevin.Trace, string) {
		var why string
		tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{
			Chains: 4, Iters: 10_000_000, BurnIn: p.BurnIn, Seed: 5,
			Init:       fit.InitGaussian{Mean: p.MAP, Cov: p.Cov},
			Until:      fit.UntilESS(m.Dim(), 1000, time.Now(), 0, &why),
			CheckEvery: 2000, MaxKeep: 4000,
		})
		if err != nil {
			t.Fatal(err)
		}
		return tr, why
	}
	tr, why := run()
	ess, _ := fit.MinESSBulk(tr, m.Dim())
	t.Logf("stopped: %s after %d iterations, thin %d, %d draws per chain", why, tr.Iters[0][len(tr.Iters[0])-1], tr.Thin, len(tr.Draws[0]))
	if ess < 1000 {
		t.Errorf("min bulk-ESS %.0f < 1000", ess)
	}
	sum, err := testmodel.CloseMoments(tr, exact.Mean(), exact.SD())
	t.Log(sum)
	if err != nil {
		t.Error(err)
	}
	tr2, _ := run()
	if d := sameTrace(tr, tr2); d != "" {
		t.Errorf("same seed, different runs: %s", d)
	}
}

func sameTrace(a, b *langevin.Trace) string {
	if len(a.Draws[0]) != len(b.Draws[0]) {
		return "lengths differ"
	}
	for c := range a.Draws {
		for i := range a.Draws[c] {
			for j, v := range a.Draws[c][i] {
				if v != b.Draws[c][i][j] {
					return "draws differ"
				}
			}
		}
	}
	return ""
}
