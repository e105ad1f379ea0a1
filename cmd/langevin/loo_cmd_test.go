package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

// TestLooPrintAsR checks that formatLOO prints loo's fixtures as R's loo
// 2.5.1 printed them (loo/testdata/*_print.txt), but for the last line,
// which points to docs/loo.md instead of R's help page.
func TestLooPrintAsR(t *testing.T) {
	for _, name := range []string{"linear", "linear_nox2", "logistic", "varying", "multimodal", "mlp"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "loo", "testdata")
			m := readGz(t, filepath.Join(dir, name+".csv.gz"))
			res, err := loo.LOO(func(yield func(*mat.Dense, error) bool) { yield(m, nil) }, 4)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			formatLOO(&got, res)
			want, err := os.ReadFile(filepath.Join(dir, name+"_print.txt"))
			if err != nil {
				t.Fatal(err)
			}
			g := strings.Split(strings.TrimRight(got.String(), "\n"), "\n")
			w := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
			if len(g) != len(w) {
				t.Fatalf("%d lines, R %d:\n%s\nR:\n%s", len(g), len(w), got.String(), want)
			}
			for i := range len(g) - 1 {
				if g[i] != w[i] {
					t.Errorf("line %d:\n%q\nR:\n%q", i+1, g[i], w[i])
				}
			}
		})
	}
}

// TestLooSubsamplePrintAsR checks formatSubsampled against loo's print of
// loo_subsample on 15 of the 40 rows of the linear fixture (but for the
// last line).
func TestLooSubsamplePrintAsR(t *testing.T) {
	dir := filepath.Join("..", "..", "loo", "testdata")
	ll := readGz(t, filepath.Join(dir, "linear.csv.gz"))
	var approx []float64
	for _, r := range readCSVFile(t, filepath.Join(dir, "subsample_approx.csv"))[1:] {
		v, _ := strconv.ParseFloat(r[0], 64)
		approx = append(approx, v)
	}
	var idx []int
	for _, r := range readCSVFile(t, filepath.Join(dir, "subsample_idx.csv"))[1:] {
		i, _ := strconv.Atoi(r[0])
		idx = append(idx, i-1)
	}
	var w loo.Workspace
	pts := make([]loo.Point, len(idx))
	for j, i := range idx {
		pts[j] = w.Row(ll.RawRowView(i), 4)
	}
	s, err := loo.Subsample(approx, idx, pts)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	formatSubsampled(&got, s, loo.Summarize(pts, 400))
	want, err := os.ReadFile(filepath.Join(dir, "subsample_print.txt"))
	if err != nil {
		t.Fatal(err)
	}
	g := strings.Split(strings.TrimRight(got.String(), "\n"), "\n")
	wl := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
	if len(g) != len(wl) {
		t.Fatalf("%d lines, R %d:\n%s\nR:\n%s", len(g), len(wl), got.String(), want)
	}
	for i := range len(g) - 1 {
		if g[i] != wl[i] {
			t.Errorf("line %d:\n%q\nR:\n%q", i+1, g[i], wl[i])
		}
	}
}

// readGz reads a gzipped CSV of numbers.
func readGz(t *testing.T, path string) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(z).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := mat.NewDense(len(recs), len(recs[0]), nil)
	for i, r := range recs {
		for j, s := range r {
			v, _ := strconv.ParseFloat(s, 64)
			m.Set(i, j, v)
		}
	}
	return m
}

// looData writes a CSV of y = 1 + 2x₁ − 1.5x₂ + N(0, 1) with an irrelevant
// x₃, n rows.
func looData(t *testing.T, n int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("x1,x2,x3,y\n")
	for range n {
		x1, x2, x3 := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%.6f\n", x1, x2, x3, 1+2*x1-1.5*x2+rng.NormFloat64())
	}
	path := filepath.Join(t.TempDir(), "lin.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLooCommand runs langevin loo on small linear runs: one run's table,
// the comparison of the full model with one missing a predictor (which
// loses by more than 4 se_diff), the pointwise CSV, and the refusals (runs
// on different rows, a model without pointwise log-likelihoods, a missing
// directory), which exit 2 and write nothing.
func TestLooCommand(t *testing.T) {
	data := looData(t, 150)
	tmp := t.TempDir()
	full, nox2, other := filepath.Join(tmp, "full"), filepath.Join(tmp, "nox2"), filepath.Join(tmp, "other")
	for _, r := range [][]string{
		{"--out", full},
		{"--out", nox2, "--drop", "x2"},
		{"--out", other, "--seed", "7"}, // another train/test split: other rows
	} {
		args := append([]string{"run", "--model", "linear", "--data", data, "--target", "y"}, quick...)
		if code, _, errOut := runMain(append(args, r...)...); code != 0 {
			t.Fatalf("run %v: exit %d: %s", r, code, errOut)
		}
	}
	code, out, errOut := runMain("loo", full)
	if code != 0 {
		t.Fatalf("loo: exit %d: %s", code, errOut)
	}
	for _, s := range []string{"by 120 log-likelihood matrix", "elpd_loo", "p_loo", "looic", "Monte Carlo SE of elpd_loo"} {
		if !strings.Contains(out, s) {
			t.Errorf("loo output lacks %q:\n%s", s, out)
		}
	}
	// --chain-weights: one line per chain, weights summing to 1
	code, out, errOut = runMain("loo", full, "--chain-weights")
	if code != 0 {
		t.Fatalf("loo --chain-weights: exit %d: %s", code, errOut)
	}
	_, tab, ok := strings.Cut(out, "chain    elpd_loo")
	if !ok {
		t.Fatalf("no chain table:\n%s", out)
	}
	var sum float64
	lines := strings.Split(strings.TrimSpace(tab), "\n")[1:]
	for _, l := range lines {
		f := strings.Fields(l)
		w, _ := strconv.ParseFloat(f[len(f)-1], 64)
		sum += w
	}
	if len(lines) != 2 || math.Abs(sum-1) > 0.002 {
		t.Errorf("chain weights: %d lines summing to %v:\n%s", len(lines), sum, tab)
	}
	pw := filepath.Join(tmp, "pointwise.csv")
	code, out, errOut = runMain("loo", full, nox2, "--out", pw)
	if code != 0 {
		t.Fatalf("loo full nox2: exit %d: %s", code, errOut)
	}
	var diff, se float64
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "nox2" && se == 0 {
			diff, _ = strconv.ParseFloat(f[1], 64)
			se, _ = strconv.ParseFloat(f[2], 64)
		}
	}
	if !(se > 0 && -diff > 4*se) {
		t.Errorf("the model without x2: elpd_diff %v, se_diff %v: does not lose by 4 se_diff\n%s", diff, se, out)
	}
	recs := readCSVFile(t, pw)
	if len(recs) != 1+2*120 || strings.Join(recs[0], ",") != "run,row,elpd_loo,p_loo,pareto_k,n_eff,pit" {
		t.Fatalf("%s: %d lines, header %v", pw, len(recs), recs[0])
	}
	for _, r := range recs[1:] {
		pit, err := strconv.ParseFloat(r[6], 64)
		if err != nil || !(pit >= 0 && pit <= 1) {
			t.Errorf("pit %q not in [0, 1]", r[6])
		}
	}
	// --subsample 40: within 4 subsampling SE of the full estimate; 40 lines
	code, out, errOut = runMain("loo", full)
	if code != 0 {
		t.Fatal(errOut)
	}
	fullELPD := tableValue(t, out, "elpd_loo", 1)
	spw := filepath.Join(tmp, "sub.csv")
	code, out, errOut = runMain("loo", full, "--subsample", "40", "--out", spw)
	if code != 0 || !strings.Contains(out, "by 40 subsampled log-likelihood\nvalues from 120 total observations.") {
		t.Fatalf("loo --subsample: exit %d: %s%s", code, out, errOut)
	}
	if e, sse := tableValue(t, out, "elpd_loo", 1), tableValue(t, out, "elpd_loo", 3); math.Abs(e-fullELPD) > 4*sse+0.1 {
		t.Errorf("subsampled elpd_loo %v (subsampling SE %v), full %v", e, sse, fullELPD)
	}
	if recs := readCSVFile(t, spw); len(recs) != 41 {
		t.Errorf("%s: %d lines, want 41", spw, len(recs))
	}
	// a count model: PSIS-LOO, no PIT
	counts := filepath.Join(tmp, "counts.csv")
	var cb strings.Builder
	cb.WriteString("x,y\n")
	for i := range 80 {
		fmt.Fprintf(&cb, "%d,%d\n", i%5, (i*7)%4+i%5)
	}
	if err := os.WriteFile(counts, []byte(cb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pois := filepath.Join(tmp, "pois")
	if code, _, errOut := runMain(append([]string{"run", "--model", "poisson", "--data", counts, "--target", "y", "--out", pois}, quick...)...); code != 0 {
		t.Fatalf("poisson run: exit %d: %s", code, errOut)
	}
	ppw := filepath.Join(tmp, "pois.csv")
	if code, out, errOut := runMain("loo", pois, "--out", ppw); code != 0 || !strings.Contains(out, "by 64 log-likelihood matrix") {
		t.Fatalf("loo poisson: exit %d: %s%s", code, out, errOut)
	}
	if recs := readCSVFile(t, ppw); len(recs) != 65 || recs[1][6] != "NaN" {
		t.Errorf("%s: %d lines, pit %q: want 65 and NaN", ppw, len(recs), recs[1][6])
	}
	// refusals
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{full, other}, "different rows"},
		{[]string{filepath.Join(tmp, "nothere")}, "nothere"},
		{nil, "no run directory"},
		{[]string{full, "--block", "0"}, "--block"},
		{[]string{full, "--subsample", "1"}, "--subsample"},
		{[]string{full, nox2, "--subsample", "30"}, "one run at a time"},
	} {
		bad := filepath.Join(tmp, "bad.csv")
		code, _, errOut := runMain(append(append([]string{"loo"}, c.args...), "--out", bad)...)
		if code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("loo %v: exit %d, %q: want exit 2 naming %q", c.args, code, errOut, c.msg)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("loo %v: wrote %s", c.args, bad)
		}
	}
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// tableValue returns the col-th number (1-based) after the row name in the
// first line of out that starts with name.
func tableValue(t *testing.T, out, name string, col int) float64 {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > col && f[0] == name {
			v, err := strconv.ParseFloat(f[col], 64)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			return v
		}
	}
	t.Fatalf("no line %q in:\n%s", name, out)
	return 0
}

// TestLooFormula runs langevin loo on --formula runs (rows left out one at a
// time; formula.Model.RowLogLik): y ~ x1 + x2 + (1 | g) against y ~ x1 +
// (1 | g), which lacks a predictor and must lose by more than 4 se_diff, and
// against itself with another seed, which must tie within 2 se_diff.
func TestLooFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var b strings.Builder
	b.WriteString("x1,x2,g,y\n")
	for i := range 120 {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		g := i % 6
		fmt.Fprintf(&b, "%.6f,%.6f,g%d,%.6f\n", x1, x2, g, 1+2*x1-1.5*x2+0.5*float64(g-3)+rng.NormFloat64())
	}
	data := filepath.Join(t.TempDir(), "g.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	full, nox2, again := filepath.Join(tmp, "full"), filepath.Join(tmp, "nox2"), filepath.Join(tmp, "again")
	for _, r := range []struct {
		dir, formula, seed string
	}{
		{full, "y ~ x1 + x2 + (1 | g)", "1"},
		{nox2, "y ~ x1 + (1 | g)", "1"},
		{again, "y ~ x1 + x2 + (1 | g)", "2"},
	} {
		iters, burnin := "1000", "500"
		if testing.Short() {
			iters, burnin = "700", "350" // 700 draws: the PSIS fits and the elpd's MC error stay small beside se_diff
		}
		args := []string{"run", "--formula", r.formula, "--data", data, "--sampler", "nuts", "--chains", "2", "--iters", iters, "--burnin", burnin, "--seed", r.seed, "--quiet", "--out", r.dir}
		if code, _, errOut := runMain(args...); code != 0 {
			t.Fatalf("run %s: exit %d: %s", r.formula, code, errOut)
		}
	}
	diff := func(a, b string) (float64, float64) {
		t.Helper()
		code, out, errOut := runMain("loo", a, b)
		if code != 0 {
			t.Fatalf("loo: exit %d: %s", code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == filepath.Base(b) {
				d, _ := strconv.ParseFloat(f[1], 64)
				s, _ := strconv.ParseFloat(f[2], 64)
				if s > 0 {
					return d, s
				}
			}
		}
		t.Fatalf("no comparison row for %s:\n%s", b, out)
		return 0, 0
	}
	if d, s := diff(full, nox2); !(-d > 4*s) {
		t.Errorf("y ~ x1 + (1 | g): elpd_diff %v, se_diff %v: does not lose by 4 se_diff", d, s)
	}
	if d, s := diff(full, again); math.Abs(d) > 2*s {
		t.Errorf("the same model, another seed: elpd_diff %v, se_diff %v", d, s)
	}
	code, out, errOut := runMain("loo", full)
	if code != 0 || !strings.Contains(out, "by 120 log-likelihood matrix") {
		t.Fatalf("loo full: exit %d: %s%s", code, out, errOut)
	}
}
