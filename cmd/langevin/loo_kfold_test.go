package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLooKFold: langevin loo --kfold K refits each run K times with its own
// arguments and scores the held-out folds. On y = 1 + 2x₁ − 1.5x₂ + N(0, 1)
// the full model's elpd_kfold agrees with its elpd_loo within their SE
// (K-fold trains on (K−1)/K of the rows, so it is a little lower), and the
// model without x₂ (--drop x2, a flag the refits must keep) loses by more
// than 20 nats (45 here).
func TestLooKFold(t *testing.T) {
	data := looData(t, 100)
	tmp := t.TempDir()
	full, nox2 := filepath.Join(tmp, "full"), filepath.Join(tmp, "nox2")
	for _, r := range [][]string{{"--out", full}, {"--out", nox2, "--drop", "x2"}} {
		args := append([]string{"run", "--model", "linear", "--data", data, "--target", "y"}, quick...)
		if code, _, errOut := runMain(append(args, r...)...); code != 0 {
			t.Fatalf("run %v: exit %d: %s", r, code, errOut)
		}
	}
	kf := map[string]float64{}
	for _, dir := range []string{full, nox2} {
		code, out, errOut := runMain("loo", dir, "--kfold", "4")
		if code != 0 || !strings.Contains(out, "Based on 4-fold cross-validation") {
			t.Fatalf("loo --kfold: exit %d: %s%s", code, out, errOut)
		}
		kf[dir] = tableValue(t, out, "elpd_kfold", 1)
		if dir == full {
			elpd, se := tableValue(t, out, "elpd_loo", 1), tableValue(t, out, "elpd_loo", 2)
			t.Logf("full model: elpd_kfold %v, elpd_loo %v ± %v", kf[dir], elpd, se)
			if d := kf[dir] - elpd; math.Abs(d) > se || d > 2 {
				t.Errorf("elpd_kfold %v, elpd_loo %v ± %v", kf[dir], elpd, se)
			}
		}
	}
	t.Logf("without x2: elpd_kfold %v", kf[nox2])
	if kf[full]-kf[nox2] < 20 {
		t.Errorf("elpd_kfold: full %v, without x2 %v: the missing predictor does not lose", kf[full], kf[nox2])
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{full, "--kfold", "1"}, "--kfold 1"},
		{[]string{full, "--kfold", "500"}, "expected 2 to 80"},
		{[]string{full, "--kfold", "3", "--subsample", "20"}, "--kfold with --subsample"},
	} {
		if code, _, errOut := runMain(append([]string{"loo"}, c.args...)...); code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("loo %v: exit %d, %q: want exit 2 naming %q", c.args, code, errOut, c.msg)
		}
	}
}

// TestLooKFoldGrouped: --kfold on a --formula run leaves out whole levels
// of the formula's grouping factor by default (printed as an auto: line),
// and rows with --kfold-by rows. On y = 1 + x + a_g + N(0, 1), 8 groups
// with effects a_g spread over ±3, a fold of rows keeps every group in
// the refit, so elpd_kfold agrees with elpd_loo within its SE; a fold of
// whole groups asks each refit for groups it has not seen, whose effects
// it can only draw from the group distribution, and must lose by more than
// 40 nats. Folds that ignored the groups would tie.
func TestLooKFoldGrouped(t *testing.T) {
	if testing.Short() {
		t.Skip("9 NUTS runs of a varying-intercept model (about 10 s of CPU)")
	}
	rng := rand.New(rand.NewPCG(3, 7))
	var b strings.Builder
	b.WriteString("x,g,y\n")
	for i := range 120 {
		g := i % 8
		x := rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,s%d,%.6f\n", x, g, 1+x+0.85*float64(g-4)+rng.NormFloat64())
	}
	csvPath := filepath.Join(t.TempDir(), "g.csv")
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--formula", "y ~ x + (1 | g)", "--data", csvPath, "--sampler", "nuts", "--chains", "2", "--iters", "600", "--burnin", "300", "--seed", "1", "--quiet", "--out", dir}
	if code, _, errOut := runMain(args...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runMain("loo", dir, "--kfold", "4")
	if code != 0 {
		t.Fatalf("loo --kfold 4: exit %d: %s%s", code, out, errOut)
	}
	t.Logf("%s", out)
	for _, want := range []string{"auto: --kfold-by g: folds of whole levels of g", "Based on 4-fold cross-validation (folds of whole levels of g, 8 levels)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	grouped := tableValue(t, out, "elpd_kfold", 1)
	elpd, se := tableValue(t, out, "elpd_loo", 1), tableValue(t, out, "elpd_loo", 2)
	code, out, errOut = runMain("loo", dir, "--kfold", "4", "--kfold-by", "rows")
	if code != 0 || !strings.Contains(out, "(folds of rows)") {
		t.Fatalf("loo --kfold 4 --kfold-by rows: exit %d: %s%s", code, out, errOut)
	}
	rows := tableValue(t, out, "elpd_kfold", 1)
	t.Logf("elpd_loo %.1f ± %.1f; elpd_kfold: folds of rows %.1f, of whole groups %.1f", elpd, se, rows, grouped)
	if d := rows - elpd; math.Abs(d) > se {
		t.Errorf("folds of rows: elpd_kfold %.1f, elpd_loo %.1f ± %.1f", rows, elpd, se)
	}
	if rows-grouped < 40 {
		t.Errorf("elpd_kfold of whole groups %.1f is not 40 below that of rows %.1f: the folds did not hold out whole groups", grouped, rows)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{dir, "--kfold", "9"}, "g has 8 levels"},
		{[]string{dir, "--kfold", "3", "--kfold-by", "nothere"}, `no column "nothere"`},
		{[]string{dir, "--kfold-by", "g"}, "without --kfold"},
	} {
		if code, _, errOut := runMain(append([]string{"loo"}, c.args...)...); code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("loo %v: exit %d, %q: want exit 2 naming %q", c.args, code, errOut, c.msg)
		}
	}
}
