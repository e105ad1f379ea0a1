package main

import (
	"math"
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
