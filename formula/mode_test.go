package formula

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
)

// sleepFrame returns data shaped like lme4's sleepstudy: J subjects
// observed rows times on days 0–9 in turn, Reaction = 250 + 10·Days +
// subject intercept (sd 25) and slope (sd 6, correlation 0.1) + N(0, 25²).
func sleepFrame(J, rows int, seed uint64) *Frame {
	rng := rand.New(rand.NewPCG(seed, 31))
	var y, days []float64
	var subj []int
	levels := make([]string, J)
	for j := 0; j < J; j++ {
		levels[j] = "s" + strconv.Itoa(300+j)
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		a := 25 * z1
		b := 6 * (0.1*z1 + math.Sqrt(1-0.01)*z2)
		for i := 0; i < rows; i++ {
			d := float64(i % 10)
			days = append(days, d)
			y = append(y, 250+a+(10+b)*d+25*rng.NormFloat64())
			subj = append(subj, j)
		}
	}
	f := &Frame{}
	f.AddNumeric("Reaction", y)
	f.AddNumeric("Days", days)
	f.AddFactor("Subject", subj, levels)
	return f
}

// wideFrame returns J groups of rows each: y = 1 + 0.5x + a_g + b_g·x +
// N(0, 1), a_g ~ N(0, 0.8²), b_g ~ N(0, 0.5²), x ~ N(0, 1).
func wideFrame(J, rows int, seed uint64) *Frame {
	rng := rand.New(rand.NewPCG(seed, 37))
	var y, x []float64
	var g []int
	levels := make([]string, J)
	for j := 0; j < J; j++ {
		levels[j] = "g" + strconv.Itoa(j+1)
		a, b := 0.8*rng.NormFloat64(), 0.5*rng.NormFloat64()
		for i := 0; i < rows; i++ {
			xi := rng.NormFloat64()
			x = append(x, xi)
			y = append(y, 1+a+(0.5+b)*xi+rng.NormFloat64())
			g = append(g, j)
		}
	}
	f := &Frame{}
	f.AddNumeric("y", y)
	f.AddNumeric("x", x)
	f.AddFactor("g", g, levels)
	return f
}

func sleepModel(t *testing.T, J, rows int, seed uint64, centring string) *Model {
	t.Helper()
	f, err := Parse("Reaction ~ Days + (Days | Subject)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(f, sleepFrame(J, rows, seed), Options{Centring: centring})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDegenerateMode: the non-centred joint mode of a sleepstudy-shaped
// model puts the group sds several times above the spread of the effects
// they scale, and DegenerateMode says so naming them; RescaleMode keeps
// every effect r_j (to 1e-9) with each sd at the spread of its effects,
// where the check passes — so the check can fail both ways. GradientWork
// counts a row's nonzeros (Intercept, Days, 2 group coefficients), not d.
func TestDegenerateMode(t *testing.T) {
	m := sleepModel(t, 18, 10, 1, "")
	mode, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	why := m.DegenerateMode(mode)
	t.Log(why)
	for _, want := range []string{"sd_Subject__Intercept", "sd_Subject__Days", "spread"} {
		if !strings.Contains(why, want) {
			t.Errorf("DegenerateMode lacks %q: %q", want, why)
		}
	}
	at := make([]float64, m.Dim())
	m.RescaleMode(at, mode)
	if w := m.DegenerateMode(at); w != "" {
		t.Errorf("the rescaled point is called degenerate: %s", w)
	}
	names := m.DerivedNames()
	before, after := make([]float64, len(names)), make([]float64, len(names))
	m.Derive(mode, before)
	m.Derive(at, after)
	g := m.groups[0]
	for i, nm := range names {
		switch {
		case strings.HasPrefix(nm, "r_"), strings.HasPrefix(nm, "b_"), nm == "sigma":
			if math.Abs(after[i]-before[i]) > 1e-9*(1+math.Abs(before[i])) {
				t.Errorf("%s moved from %g to %g", nm, before[i], after[i])
			}
		}
	}
	r := after[g.genR.Off : g.genR.Off+g.J*g.K]
	for k := 0; k < g.K; k++ {
		sd := after[g.genSD.Off+k]
		if want := math.Max(rmsCoef(r, g.J, g.K, k), 0.1*m.sdScale()); math.Abs(sd/want-1) > 1e-9 {
			t.Errorf("sd %d at the rescaled point %g, want the spread %g", k, sd, want)
		}
	}
	// Gaussian: a full-data gradient reads the M pseudo-rows of the
	// collapsed statistics; a minibatch row, the row itself.
	if want := float64(len(m.coll.y))*4 + float64(m.Dim()); m.GradientWork() != want {
		t.Errorf("GradientWork %g, want M·4 + d = %g", m.GradientWork(), want)
	}
	if want := (float64(m.Len())*4 + float64(m.Dim())) / float64(m.Len()); m.RowWork() != want {
		t.Errorf("RowWork %g, want (N·4 + d)/N = %g", m.RowWork(), want)
	}
}

// TestCostPlanChooses: fit.NewPlan on a formula model with group terms
// prints both predicted costs, and picks the cheaper. With 8,000 rows in 4
// groups (centred: ≥ 200 rows a level, the mode is not degenerate) the
// SG-MCMC plan's predicted work is below NUTS's and it runs; on the
// sleepstudy shape (non-centred, degenerate mode) NUTS runs with a
// fallback that names the group sd, from the rescaled start, on the
// metric adapted in warm-up.
func TestCostPlanChooses(t *testing.T) {
	ctx := context.Background()
	f, err := Parse("y ~ x + (1 + x | g)")
	if err != nil {
		t.Fatal(err)
	}
	wide := wideFrame(4, 2000, 2)
	// The same rows as bernoulli outcomes: y > 1.
	yb := make([]float64, wide.Len())
	for i, v := range wide.cols["y"].Num {
		if v > 1 {
			yb[i] = 1
		}
	}
	wide.AddNumeric("yb", yb)
	fb, err := Parse("yb ~ x + (1 + x | g)")
	if err != nil {
		t.Fatal(err)
	}
	big, err := New(fb, wide, Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := fit.NewPlan(ctx, big, fit.PlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p)
	if p.Kind != "sgld" || p.Fallback != "" || !strings.Contains(p.Why, "NUTS 14,000 full gradients") || !strings.Contains(p.Why, "SGLD") || !strings.Contains(p.Why, "SGLD is cheaper") {
		t.Errorf("8,000 bernoulli rows in 4 centred groups: plan %s", p)
	}
	// Gaussian rows collapse to 4 levels × 4 pseudo-rows: NUTS's predicted
	// work is under a second's, so exact NUTS.
	gauss, err := New(f, wide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err = fit.NewPlan(ctx, gauss, fit.PlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p)
	if p.Kind != "nuts" || p.Fallback != "" || !strings.Contains(p.Why, "× 78 = 1.1e+06 ≤ 1e+07, under a second: exact NUTS") {
		t.Errorf("8,000 gaussian rows in 4 centred groups: plan %s", p)
	}
	small := sleepModel(t, 18, 10, 1, "")
	p, err = fit.NewPlan(ctx, small, fit.PlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p)
	if p.Kind != "nuts" || !strings.Contains(p.Fallback, "sd_Subject__Intercept") || p.Init() == nil || !strings.Contains(p.PrecondWhy, "adapted to the posterior variances") {
		t.Errorf("sleepstudy shape: plan %s", p)
	}
}
