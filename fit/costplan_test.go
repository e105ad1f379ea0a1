package fit_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// TestCostPlanPilot: the pilot of the SG-MCMC plan passes the block-arrow
// plan as chosen (8,000 bernoulli rows in 4 centred groups; gaussian rows
// collapse to sufficient statistics, where NUTS is cheaper) and catches
// the same plan at 100× its step, which diverges — the check that turns a
// cheaper but untrustworthy plan into NUTS with a fallback line.
func TestCostPlanPilot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	fr := &formula.Frame{}
	var y, x []float64
	var g []int
	for j := 0; j < 4; j++ {
		a := 0.8 * rng.NormFloat64()
		for i := 0; i < 2000; i++ {
			xi := rng.NormFloat64()
			yi := 0.0
			if a+0.5*xi+rng.NormFloat64() > 0 {
				yi = 1
			}
			x, y, g = append(x, xi), append(y, yi), append(g, j)
		}
	}
	fr.AddNumeric("y", y)
	fr.AddNumeric("x", x)
	fr.AddFactor("g", g, []string{"g1", "g2", "g3", "g4"})
	f, err := formula.Parse("y ~ x + (1 | g)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := formula.New(f, fr, formula.Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := fit.NewPlan(ctx, m, fit.PlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "sgld" || p.Arrow == nil {
		t.Fatalf("plan: %s", p)
	}
	if msg, err := fit.Pilot(ctx, m, p, 1); err != nil || msg != "" {
		t.Errorf("the plan as chosen: pilot %q, %v", msg, err)
	}
	hot := *p
	s := hot.Sampler.(sampler.SGLD)
	s.Step = schedule.Constant(100 * p.Step.Eta)
	hot.Sampler = s
	msg, err := fit.Pilot(ctx, m, &hot, 1)
	if err != nil || !strings.Contains(msg, "diverged (chain ") {
		t.Errorf("100× the step (η·λmax(MH) = %s): pilot %q, %v", strconv.FormatFloat(100*p.Step.Eta*p.Step.LambdaMaxMH, 'g', 3, 64), msg, err)
	}
}
