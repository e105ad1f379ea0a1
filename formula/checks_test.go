package formula

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestResponseAmongPredictors: y ~ y and its variants are refused, naming
// the column and its position in the formula.
func TestResponseAmongPredictors(t *testing.T) {
	fr := simFrame(40, 4, "gaussian", 1)
	for _, tc := range []struct {
		form string
		col  int
	}{{"y ~ y", 5}, {"log(y + 10) ~ x + y", 19}, {"y ~ x + I(y^2)", 11}, {"y ~ x + (1 + y | g)", 14}, {"y ~ x + offset(y)", 16}, {"y ~ x + (1 | y)", 9}} {
		f, err := Parse(tc.form)
		if err != nil {
			t.Fatalf("%s: %v", tc.form, err)
		}
		_, err = New(f, fr, Options{})
		se, ok := err.(*SyntaxError)
		if !ok || se.Col != tc.col || !strings.Contains(se.Msg, "the response's column y is also") {
			t.Errorf("%s: err %v, want a SyntaxError at column %d", tc.form, err, tc.col)
		}
	}
}

// TestSeparation: a predictor that separates a bernoulli response
// (a threshold, or a level whose rows are all one outcome) is an error
// under brms's flat prior on b, naming it, and a warning under a proper
// prior; overlapping data pass.
func TestSeparation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := 200
	y, x, z := make([]float64, n), make([]float64, n), make([]float64, n)
	lvl := make([]int, n)
	for i := range n {
		z[i] = rng.NormFloat64()
		x[i] = rng.NormFloat64()
		if rng.Float64() < 0.5 {
			y[i] = 1
		}
		lvl[i] = rng.IntN(3)
	}
	sepX := make([]float64, n)
	for i := range n { // s separates y: s > 1 iff y = 1
		if y[i] == 1 {
			sepX[i] = 1 + rng.Float64()
		} else {
			sepX[i] = -rng.Float64()
		}
		if lvl[i] == 2 {
			lvl[i] = 1 // level c only ...
		}
	}
	for i := range n {
		if y[i] == 1 && rng.Float64() < 0.2 {
			lvl[i] = 2 // ... on rows with y = 1
		}
	}
	fr := &Frame{}
	fr.AddNumeric("y", y)
	fr.AddNumeric("x", x)
	fr.AddNumeric("z", z)
	fr.AddNumeric("s", sepX)
	fr.AddFactor("f", lvl, []string{"a", "b", "c"})
	for _, tc := range []struct{ form, want string }{
		{"y ~ x + z", ""},
		{"y ~ x + s", "the predictor s separates"},
		{"y ~ z + f", "the predictor fc separates"},
	} {
		f, _ := Parse(tc.form)
		_, err := New(f, fr, Options{Family: "bernoulli"})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.form, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "flat prior") {
			t.Errorf("%s: err %v, want %q", tc.form, err, tc.want)
		}
		pri, _ := ParsePriors("b ~ normal(0, 2.5)")
		m, err := New(f, fr, Options{Family: "bernoulli", Priors: pri})
		if err != nil || len(m.Warnings()) != 1 || !strings.Contains(m.Warnings()[0], tc.want) {
			t.Errorf("%s with a proper prior: err %v, warnings %q", tc.form, err, m.Warnings())
		}
	}
}

// TestManyLevelsRefused: a categorical population-level predictor with
// 10⁵ levels in 10⁶ rows is refused, naming it and the group-level term to
// use instead, before its 800 GB of columns are taken; the design-size
// bound refuses a formula whose columns would not fit.
func TestManyLevelsRefused(t *testing.T) {
	n, L := 1_000_000, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	y, x := make([]float64, n), make([]float64, n)
	codes := make([]int, n)
	for i := range n {
		y[i], x[i], codes[i] = rng.NormFloat64(), rng.NormFloat64(), i%L
	}
	levels := make([]string, L)
	for k := range levels {
		levels[k] = "l" + strconv.Itoa(100000+k)
	}
	fr := &Frame{}
	fr.AddNumeric("y", y)
	fr.AddNumeric("x", x)
	fr.AddFactor("lvl", codes, levels)
	f, _ := Parse("y ~ x + lvl")
	var err error
	got := allocated(func() { _, err = New(f, fr, Options{}) })
	if err == nil || !strings.Contains(err.Error(), "lvl has 100000 levels in 1000000 rows") || !strings.Contains(err.Error(), "(1 | lvl)") {
		t.Errorf("err %v", err)
	}
	if got > 200<<20 {
		t.Errorf("refusing it allocated %d MB", got>>20)
	}
	// 40 levels of 25,000 rows pass the rule, but not a 100 MB bound.
	for i := range codes {
		codes[i] = i % 40
	}
	fr.AddFactor("lvl", codes, levels[:40])
	_, err = New(f, fr, Options{MaxDesignBytes: 100 << 20})
	if err == nil || !strings.Contains(err.Error(), "more than the bound of 100 MiB") {
		t.Errorf("design bound: %v", err)
	}
}
