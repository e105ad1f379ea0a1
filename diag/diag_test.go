package diag

import (
	"bufio"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fixtures in testdata were computed by R's posterior package; see
// testdata/gen.R for how to regenerate them. R is not needed to run the
// tests.

const tol = 1e-6

func parseR(t *testing.T, s string) float64 {
	t.Helper()
	if s == "NA" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad number %q: %v", s, err)
	}
	return v
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// readDraws reads a fixture of draws: one column per chain, one row per draw.
func readDraws(t *testing.T, name string) [][]float64 {
	t.Helper()
	recs := readCSV(t, filepath.Join("testdata", "draws", name+".csv"))
	m := len(recs[0])
	chains := make([][]float64, m)
	for _, rec := range recs[1:] {
		if len(rec) != m {
			t.Fatalf("%s: ragged row", name)
		}
		for j, s := range rec {
			chains[j] = append(chains[j], parseR(t, s))
		}
	}
	return chains
}

// relErr returns the relative error of got with respect to want, zero if
// both are NaN or equal, and +Inf if exactly one is NaN.
func relErr(got, want float64) float64 {
	switch {
	case math.IsNaN(got) && math.IsNaN(want):
		return 0
	case math.IsNaN(got) || math.IsNaN(want):
		return math.Inf(1)
	case got == want:
		return 0
	case want == 0 || math.IsInf(want, 0):
		return math.Inf(1)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func TestAgainstPosterior(t *testing.T) {
	recs := readCSV(t, filepath.Join("testdata", "expected.csv"))
	header := recs[0]
	funcs := map[string]func([][]float64) float64{
		"mean": func(c [][]float64) float64 {
			return Summarize([]string{"x"}, [][][]float64{c})[0].Mean
		},
		"sd": func(c [][]float64) float64 {
			return Summarize([]string{"x"}, [][][]float64{c})[0].SD
		},
		"mcse_mean":  MCSEMean,
		"q5":         func(c [][]float64) float64 { return Quantile(c, 0.05) },
		"q50":        func(c [][]float64) float64 { return Quantile(c, 0.5) },
		"q95":        func(c [][]float64) float64 { return Quantile(c, 0.95) },
		"q0":         func(c [][]float64) float64 { return Quantile(c, 0) },
		"q100":       func(c [][]float64) float64 { return Quantile(c, 1) },
		"q33":        func(c [][]float64) float64 { return Quantile(c, 1.0/3) },
		"ess_bulk":   ESSBulk,
		"ess_tail":   ESSTail,
		"ess_basic":  ESSBasic,
		"ess_mean":   ESSMean,
		"rhat":       RHat,
		"rhat_basic": RHatBasic,
		"mcse_q5":    func(c [][]float64) float64 { return MCSEQuantile(c, 0.05) },
		"mcse_q50":   func(c [][]float64) float64 { return MCSEQuantile(c, 0.5) },
		"mcse_q95":   func(c [][]float64) float64 { return MCSEQuantile(c, 0.95) },
		"mcse_q100":  func(c [][]float64) float64 { return MCSEQuantile(c, 1) },
	}
	var maxErr float64
	var maxAt string
	for _, rec := range recs[1:] {
		name := rec[0]
		chains := readDraws(t, name)
		want := make(map[string]float64)
		for i, col := range header[1:] {
			want[col] = parseR(t, rec[i+1])
		}
		for _, col := range header[1:] {
			f, ok := funcs[col]
			if !ok {
				t.Fatalf("no function for column %q", col)
			}
			got := f(chains)
			e := relErr(got, want[col])
			if want[col] > 1e10 && (col == "rhat" || col == "rhat_basic") {
				// Chains that are constant within but differ between
				// them: the within-chain variance is zero up to rounding
				// and R̂ is rounding noise (posterior gives ~1e15, the
				// exact value is +Inf). Only require it to be huge.
				if !(got > 1e10) {
					t.Errorf("%s %s: got %v, want > 1e10", name, col, got)
				}
				continue
			}
			if e > tol {
				t.Errorf("%s %s: got %.17g, want %.17g (rel err %g)", name, col, got, want[col], e)
			}
			if e > maxErr && !math.IsInf(e, 1) {
				maxErr, maxAt = e, name+" "+col
			}
		}

		// Summarize must agree with the individual functions.
		s := Summarize([]string{name}, [][][]float64{chains})[0]
		for col, got := range map[string]float64{
			"mcse_mean": s.MCSEMean, "q5": s.Q5, "q50": s.Q50, "q95": s.Q95,
			"ess_bulk": s.ESSBulk, "ess_tail": s.ESSTail, "rhat": s.RHat,
		} {
			if want[col] > 1e10 && col == "rhat" {
				continue
			}
			if e := relErr(got, want[col]); e > tol {
				t.Errorf("Summarize %s %s: got %.17g, want %.17g", name, col, got, want[col])
			}
		}
	}
	t.Logf("max relative error vs posterior: %.3g (%s)", maxErr, maxAt)
}

func TestAutocorrelationAgainstPosterior(t *testing.T) {
	recs := readCSV(t, filepath.Join("testdata", "acf.csv"))
	var maxErr float64
	for _, rec := range recs {
		name := rec[0]
		x := readDraws(t, name)[0]
		got := Autocorrelation(x, nil)
		if len(got) != len(rec)-1 {
			t.Fatalf("%s: got %d lags, want %d", name, len(got), len(rec)-1)
		}
		// Reuse of dst.
		Autocorrelation(x, got)
		for i, s := range rec[1:] {
			want := parseR(t, s)
			// Autocorrelations are compared relative to ρ_0 = 1.
			var e float64
			if math.IsNaN(want) || math.IsNaN(got[i]) {
				e = relErr(got[i], want)
			} else {
				e = math.Abs(got[i] - want)
			}
			if e > 1e-12 {
				t.Errorf("%s lag %d: got %.17g, want %.17g", name, i, got[i], want)
			}
			maxErr = math.Max(maxErr, e)
		}
	}
	t.Logf("max absolute error vs posterior: %.3g", maxErr)
}

func TestQnormAgainstR(t *testing.T) {
	for _, rec := range readCSV(t, filepath.Join("testdata", "qnorm.csv")) {
		p, want := parseR(t, rec[0]), parseR(t, rec[1])
		got := qnorm(p)
		if e := relErr(got, want); e > 1e-15 {
			t.Errorf("qnorm(%g) = %.17g, want %.17g", p, got, want)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	ramp := func(m, n int) [][]float64 {
		c := make([][]float64, m)
		for j := range c {
			c[j] = make([]float64, n)
			for i := range c[j] {
				// A deterministic, non-constant, non-monotone sequence.
				c[j][i] = math.Sin(float64(1 + i + 7*j))
			}
		}
		return c
	}
	withValue := func(c [][]float64, v float64) [][]float64 {
		c[1][3] = v
		return c
	}
	type fn struct {
		name string
		f    func([][]float64) float64
	}
	all := []fn{
		{"ESSBulk", ESSBulk}, {"ESSTail", ESSTail}, {"ESSBasic", ESSBasic},
		{"ESSMean", ESSMean}, {"RHat", RHat}, {"RHatBasic", RHatBasic},
		{"MCSEMean", MCSEMean},
		{"MCSEQuantile", func(c [][]float64) float64 { return MCSEQuantile(c, 0.5) }},
		{"Quantile", func(c [][]float64) float64 { return Quantile(c, 0.5) }},
	}
	for _, test := range []struct {
		name   string
		chains [][]float64
		nan    map[string]bool // functions that must return NaN
	}{
		{
			name:   "no chains",
			chains: nil,
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHat": true, "RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true, "Quantile": true},
		},
		{
			name:   "empty chains",
			chains: [][]float64{{}, {}},
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHat": true, "RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true, "Quantile": true},
		},
		{
			name:   "constant",
			chains: [][]float64{{2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}},
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHat": true, "RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true},
		},
		{
			name:   "NaN",
			chains: withValue(ramp(4, 20), nan),
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHat": true, "RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true, "Quantile": true},
		},
		{
			name:   "Inf",
			chains: withValue(ramp(4, 20), inf),
			nan: map[string]bool{"ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true},
		},
		{
			name:   "one draw per chain",
			chains: ramp(4, 1),
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"RHat": true, "RHatBasic": true, "MCSEMean": true, "MCSEQuantile": true},
		},
		{
			name:   "four draws per chain",
			chains: ramp(4, 4),
			nan: map[string]bool{"ESSBulk": true, "ESSTail": true, "ESSBasic": true, "ESSMean": true,
				"MCSEMean": true, "MCSEQuantile": true},
		},
		{
			name:   "iid-like",
			chains: ramp(4, 100),
			nan:    map[string]bool{},
		},
	} {
		for _, f := range all {
			got := f.f(test.chains)
			if math.IsNaN(got) != test.nan[f.name] {
				t.Errorf("%s: %s = %v, want NaN: %t", test.name, f.name, got, test.nan[f.name])
			}
		}
	}

	// ESSMean equals ESSBasic, and short chains give nm/2.
	c := ramp(4, 10)
	if got := ESSBasic(c); got != 20 {
		t.Errorf("ESSBasic of 4×10 draws = %v, want 20", got)
	}
	if ESSMean(c) != ESSBasic(c) {
		t.Error("ESSMean != ESSBasic")
	}

	// Quantile outside [0, 1].
	for _, p := range []float64{-0.1, 1.1, nan} {
		if q := Quantile(c, p); !math.IsNaN(q) {
			t.Errorf("Quantile(%v) = %v, want NaN", p, q)
		}
		if q := MCSEQuantile(c, p); !math.IsNaN(q) {
			t.Errorf("MCSEQuantile(%v) = %v, want NaN", p, q)
		}
	}

	// Invariance of the rank-based diagnostics under monotone transforms.
	c = ramp(4, 200)
	e := make([][]float64, len(c))
	for j := range c {
		e[j] = make([]float64, len(c[j]))
		for i, v := range c[j] {
			e[j][i] = math.Exp(3 * v)
		}
	}
	if a, b := ESSBulk(c), ESSBulk(e); relErr(a, b) > 1e-12 {
		t.Errorf("ESSBulk not invariant: %v != %v", a, b)
	}
	if a, b := ESSTail(c), ESSTail(e); relErr(a, b) > 1e-12 {
		t.Errorf("ESSTail not invariant: %v != %v", a, b)
	}

	// Ragged chains are cut to the shortest (TestRaggedChains).

	// Autocorrelation of degenerate series.
	for _, x := range [][]float64{{}, {1}, {3, 3, 3}, {1, nan, 2}, {1, inf, 2}} {
		for i, v := range Autocorrelation(x, nil) {
			if !math.IsNaN(v) {
				t.Errorf("Autocorrelation(%v)[%d] = %v, want NaN", x, i, v)
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic for short dst")
			}
		}()
		Autocorrelation([]float64{1, 2, 3}, make([]float64, 2))
	}()
}

func TestTableOutput(t *testing.T) {
	nan := math.NaN()
	tab := Table{
		{Name: "alpha", Mean: 1.23456, SD: 0.5, MCSEMean: 0.0123, Q5: -0.5, Q50: 1.2, Q95: 2.123,
			ESSBulk: 1234.4, ESSTail: 987.6, RHat: 1.0042},
		{Name: "sigma[1]", Mean: 2e-7, SD: 3e7, MCSEMean: nan, Q5: math.Inf(-1), Q50: 0, Q95: math.Inf(1),
			ESSBulk: nan, ESSTail: nan, RHat: nan},
	}
	want := `variable      mean        sd    mcse      q5   q50   q95  ess_bulk  ess_tail   rhat
alpha         1.23     0.500  0.0123  -0.500  1.20  2.12      1234       988  1.004
sigma[1]  2.00e-07  3.00e+07      NA    -Inf     0   Inf        NA        NA     NA
`
	if got := tab.String(); got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
	var b strings.Builder
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	wantCSV := `variable,mean,sd,mcse_mean,q5,q50,q95,ess_bulk,ess_tail,rhat
alpha,1.23456,0.5,0.0123,-0.5,1.2,2.123,1234.4,987.6,1.0042
sigma[1],2e-07,3e+07,NA,-Inf,0,Inf,NA,NA,NA
`
	if got := b.String(); got != wantCSV {
		t.Errorf("WriteCSV:\n%s\nwant:\n%s", got, wantCSV)
	}
}
