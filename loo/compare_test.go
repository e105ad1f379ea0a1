package loo_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

func fixtureLOO(t testing.TB, name string) *loo.Result {
	t.Helper()
	r, err := loo.LOO(oneBlock(readMatrix(t, name)), fixtureChains)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var compareNames = map[string]string{"linear": "full", "linear_scaled": "scaled", "linear_nox2": "nox2", "linear_x3": "x3"}

func TestCompareAgainstR(t *testing.T) {
	names := []string{"linear", "linear_scaled", "linear_nox2", "linear_x3"}
	var res []*loo.Result
	for _, n := range names {
		res = append(res, fixtureLOO(t, n))
	}
	cmp, err := loo.Compare(res...)
	if err != nil {
		t.Fatal(err)
	}
	want := readTable(t, "compare")
	diff, se := floats(t, want["elpd_diff"]), floats(t, want["se_diff"])
	var worst float64
	for j, c := range cmp {
		if got := compareNames[names[c.Model]]; got != want["model"][j] {
			t.Fatalf("rank %d: %s, loo %s", j+1, got, want["model"][j])
		}
		for _, e := range [][2]float64{{c.ELPDDiff, diff[j]}, {c.SEDiff, se[j]}} {
			d := math.Abs(e[0] - e[1])
			worst = math.Max(worst, d)
			if d > 1e-4 {
				t.Errorf("%s: %v, loo %v", want["model"][j], e[0], e[1])
			}
		}
	}
	t.Logf("largest absolute error in elpd_diff, se_diff: %.2g", worst)
}

// TestCompareDecides checks the comparison on the fixtures decides what it
// should: a model without a predictor of effect −1.5 loses by more than 4
// se_diff; a model with an extra irrelevant predictor ties within 1 se_diff;
// the same model in another parametrisation, sampled again, differs by less
// than the Monte Carlo error of the two elpd_loo (se_diff, which measures
// the uncertainty from the data, is no yardstick for that).
func TestCompareDecides(t *testing.T) {
	full, scaled := fixtureLOO(t, "linear"), fixtureLOO(t, "linear_scaled")
	nox2, x3 := fixtureLOO(t, "linear_nox2"), fixtureLOO(t, "linear_x3")
	pair := func(a, b *loo.Result) loo.Comparison {
		c, err := loo.Compare(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return c[1]
	}
	if c := pair(full, nox2); c.Model != 1 || -c.ELPDDiff < 4*c.SEDiff {
		t.Errorf("missing predictor: elpd_diff %.2f, se_diff %.2f: does not lose by 4 se_diff", c.ELPDDiff, c.SEDiff)
	} else {
		t.Logf("missing predictor loses: %.1f (se_diff %.1f, %.1f se)", c.ELPDDiff, c.SEDiff, -c.ELPDDiff/c.SEDiff)
	}
	if c := pair(full, x3); -c.ELPDDiff > c.SEDiff {
		t.Errorf("irrelevant predictor: elpd_diff %.2f, se_diff %.2f: not a tie", c.ELPDDiff, c.SEDiff)
	}
	// The tie of equivalent parametrisations: |elpd_diff| within the Monte
	// Carlo error of the difference, √(Σᵢ mcseᵢ² of both), not within
	// se_diff (here 1.01 against se_diff 0.27: the draws' error is shared
	// by the rows, 31 of 40 pointwise differences have one sign, and se_diff
	// sees only its spread). The runs' own MCSE is NaN here (a k̂ > 0.7 in
	// the scaled run), so the pointwise MCSEs are summed.
	c := pair(full, scaled)
	var mc2 float64
	for _, r := range []*loo.Result{full, scaled} {
		for _, p := range r.Pointwise {
			mc2 += p.MCSE * p.MCSE
		}
	}
	mc := math.Sqrt(mc2)
	if math.Abs(c.ELPDDiff) > mc {
		t.Errorf("reparametrised: |elpd_diff| %.2f beyond the Monte Carlo error %.2f", c.ELPDDiff, mc)
	}
	t.Logf("reparametrised: elpd_diff %.2f, se_diff %.2f, Monte Carlo error %.2f", c.ELPDDiff, c.SEDiff, mc)
	// a slip this check catches: 0.05 nats a row (2 in all) off
	off := *scaled
	off.Pointwise = append([]loo.Point(nil), scaled.Pointwise...)
	for i := range off.Pointwise {
		off.Pointwise[i].ELPD -= 0.05
	}
	off.ELPD.Estimate -= 0.05 * float64(len(off.Pointwise))
	if c := pair(full, &off); math.Abs(c.ELPDDiff) <= mc {
		t.Errorf("2 nats off still within the Monte Carlo error: %.2f ≤ %.2f", c.ELPDDiff, mc)
	}
	// and a slip the check catches: shifting one model's elpdᵢ by 0.5 each
	// (20 nats in all) breaks the tie
	shifted := *x3
	shifted.Pointwise = append([]loo.Point(nil), x3.Pointwise...)
	for i := range shifted.Pointwise {
		shifted.Pointwise[i].ELPD -= 0.5
	}
	shifted.ELPD.Estimate -= 0.5 * float64(len(shifted.Pointwise))
	if c := pair(full, &shifted); -c.ELPDDiff <= c.SEDiff {
		t.Errorf("a 20-nat shift still ties: %.2f, se %.2f", c.ELPDDiff, c.SEDiff)
	}
}

func TestCompareErrors(t *testing.T) {
	a := fixtureLOO(t, "linear")
	if _, err := loo.Compare(a); err == nil {
		t.Error("one model: no error")
	}
	b := *a
	b.Pointwise = b.Pointwise[:10]
	if _, err := loo.Compare(a, &b); err == nil {
		t.Error("different rows: no error")
	}
}

func lpdOf(t *testing.T, names ...string) *mat.Dense {
	var res []*loo.Result
	for _, n := range names {
		res = append(res, fixtureLOO(t, n))
	}
	m, err := loo.ELPDMatrix(res...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWeightsAgainstR(t *testing.T) {
	lpd := lpdOf(t, "linear", "linear_scaled", "linear_nox2")
	want := readTable(t, "weights")
	got := make([]float64, 3)
	var worst float64
	check := func(what string, want []float64) {
		for k := range got {
			d := math.Abs(got[k] - want[k])
			worst = math.Max(worst, d)
			if d > 1e-4 {
				t.Errorf("%s weight %d = %.8f, loo %.8f", what, k+1, got[k], want[k])
			}
		}
	}
	loo.Stacking(got, lpd)
	check("stacking", floats(t, want["stacking"]))
	loo.PseudoBMA(got, lpd)
	check("pseudo-BMA", floats(t, want["pseudobma"]))

	got = got[:2]
	loo.Stacking(got, lpdOf(t, "linear_nox2", "linear"))
	check("stacking of two", floats(t, readTable(t, "weights2")["stacking"]))
	t.Logf("largest absolute error in the weights: %.2g", worst)
}

// TestPseudoBMAPlus checks pseudo-BMA+ by its statistical properties, since
// loo's Bayesian-bootstrap draws come from R's generator: the weights lie on
// the simplex, equal models get equal weights, they are shrunk from
// pseudo-BMA towards uniform, and they agree with loo's own value within the
// Monte Carlo error of 1000 bootstrap replicates.
func TestPseudoBMAPlus(t *testing.T) {
	lpd := lpdOf(t, "linear", "linear_scaled", "linear_nox2")
	rng := rand.New(rand.NewPCG(1, 2))
	const reps = 1000
	var runs [20][3]float64
	for r := range runs {
		loo.PseudoBMAPlus(runs[r][:], lpd, reps, 1, rng)
	}
	want := floats(t, readTable(t, "weights")["pseudobma_bb"])
	pb := make([]float64, 3)
	loo.PseudoBMA(pb, lpd)
	for k := range 3 {
		var m, v float64
		for _, w := range runs {
			m += w[k] / float64(len(runs))
		}
		for _, w := range runs {
			v += (w[k] - m) * (w[k] - m) / float64(len(runs)-1)
		}
		// loo's value is one draw of the same estimator: within 4 sd of ours
		if d := math.Abs(want[k] - m); d > 4*math.Sqrt(v)+1e-6 {
			t.Errorf("weight %d: mean %.4f (sd %.4f over runs), loo %.4f", k+1, m, math.Sqrt(v), want[k])
		}
	}
	w := runs[0]
	if s := w[0] + w[1] + w[2]; math.Abs(s-1) > 1e-12 {
		t.Errorf("weights sum to %v", s)
	}
	if !(w[2] > pb[2]) {
		t.Errorf("the worst model's weight %.3g is not shrunk up from pseudo-BMA's %.3g", w[2], pb[2])
	}
	// two identical models share the weight equally
	twin := mat.NewDense(lpd.RawMatrix().Rows, 2, nil)
	twin.Copy(lpd.Slice(0, lpd.RawMatrix().Rows, 0, 1))
	twin.Slice(0, lpd.RawMatrix().Rows, 1, 2).(*mat.Dense).Copy(lpd.Slice(0, lpd.RawMatrix().Rows, 0, 1))
	two := make([]float64, 2)
	loo.PseudoBMAPlus(two, twin, reps, 1, rng)
	if math.Abs(two[0]-0.5) > 1e-12 {
		t.Errorf("identical models: %v", two)
	}
}

// stackObjective is Σᵢ log Σₖ wₖ exp(lpdᵢₖ), the function stacking maximises.
func stackObjective(lpd mat.Matrix, w []float64) float64 {
	n, _ := lpd.Dims()
	var s float64
	for i := range n {
		var q float64
		for k, wk := range w {
			q += wk * math.Exp(lpd.At(i, k))
		}
		s += math.Log(q)
	}
	return s
}

// TestStackChainsAgainstR checks the stacking of the four chains of the
// multimodal fixture (two at a local mode of the frequency) against loo's
// per-chain loo and loo_model_weights. loo's constrOptim stops inside the
// simplex: its weight of chain 1 is 3e-4 where the maximum has 0, so the
// test allows weights up to 1e-3 from loo's provided our weights score
// higher than loo's on the objective.
func TestStackChainsAgainstR(t *testing.T) {
	ll := readMatrix(t, "multimodal")
	w, res, err := loo.StackChains(oneBlock(ll), fixtureChains)
	if err != nil {
		t.Fatal(err)
	}
	want := readTable(t, "multimodal_chains")
	ws, elpd := floats(t, want["stacking"]), floats(t, want["elpd_loo"])
	for c := range w {
		if e := relErr(res[c].ELPD.Estimate, elpd[c]); e > 1e-6 {
			t.Errorf("chain %d elpd_loo %.10g, loo %.10g (rel %.2g)", c+1, res[c].ELPD.Estimate, elpd[c], e)
		}
	}
	lpd, err := loo.ELPDMatrix(res...)
	if err != nil {
		t.Fatal(err)
	}
	fw, fr := stackObjective(lpd, w), stackObjective(lpd, ws)
	for c := range w {
		d := math.Abs(w[c] - ws[c])
		if d > 1e-4 && !(d < 1e-3 && fw > fr) {
			t.Errorf("chain %d weight %.6g, loo %.6g", c+1, w[c], ws[c])
		}
	}
	if fw < fr-1e-9*math.Abs(fr) {
		t.Errorf("objective %.10g at our weights, %.10g at loo's", fw, fr)
	}
	t.Logf("weights %.6g, loo %.6g; objective %.10g, loo's %.10g", w, ws, fw, fr)
	if w[0]+w[1] < 0.99 {
		t.Errorf("the chains at the global mode get %.3g of the weight", w[0]+w[1])
	}
}

func TestPITAgainstR(t *testing.T) {
	ll := readMatrix(t, "linear")
	yrep := readMatrix(t, "linear_yrep")
	y := floats(t, readTable(t, "linear_y")["y"])
	want := floats(t, readTable(t, "linear_pit")["pit"])
	var ws loo.Workspace
	var worst float64
	for i := range y {
		ws.Row(ll.RawRowView(i), fixtureChains)
		got := loo.PIT(ws.Weights(), yrep.RawRowView(i), y[i])
		e := relErr(got, want[i])
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("row %d: PIT %.10g, loo_pit %.10g", i+1, got, want[i])
		}
	}
	t.Logf("largest relative error in LOO-PIT: %.2g", worst)
}
