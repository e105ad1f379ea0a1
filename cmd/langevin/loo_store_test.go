package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestLooStore: langevin loo on a store run streams the store's training
// rows (its hashed split, recoded labels, scaler.json) and prints (and
// writes, LOO-PIT included) what loo gives for the run of the same rows
// from CSV, whose draws are the same bit for bit; the two runs compare (same rows) with elpd_diff 0. The
// default rule subsamples when the log-likelihoods exceed its budget
// (lowered here), saying so in an auto: line.
func TestLooStore(t *testing.T) {
	dir := t.TempDir()
	all, store := filepath.Join(dir, "all.csv"), filepath.Join(dir, "all.lvs")
	logisticCSV(t, all, 1500)
	if code, _, errs := runMain("convert", "--data", all, "--out", store); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	st, err := data.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.SplitRows(st, 0.2, 3)
	trainCSV, testCSV := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writeRowsCSV(t, trainCSV, train, st.Names())
	writeRowsCSV(t, testCSV, test, st.Names())
	st.Close()
	args := []string{"run", "--seed", "3", "--chains", "2", "--sampler", "sgld", "--target-ess", "100", "--quiet"}
	dirS, dirM := filepath.Join(dir, "s"), filepath.Join(dir, "m")
	if code, _, errs := runMain(append(args, "--data", store, "--out", dirS)...); code != 0 {
		t.Fatalf("store run: exit %d: %s", code, errs)
	}
	if code, _, errs := runMain(append(args, "--data", trainCSV, "--test", testCSV, "--out", dirM)...); code != 0 {
		t.Fatalf("csv run: exit %d: %s", code, errs)
	}
	csvS, csvM := filepath.Join(dir, "s.csv"), filepath.Join(dir, "m.csv")
	code, outS, errs := runMain("loo", dirS, "--out", csvS)
	if code != 0 {
		t.Fatalf("loo store: exit %d: %s", code, errs)
	}
	_, outM, _ := runMain("loo", dirM, "--out", csvM)
	outS = strings.ReplaceAll(outS, csvS, "FILE")
	outM = strings.ReplaceAll(outM, csvM, "FILE")
	if outS != outM || !strings.Contains(outS, "by 1259 log-likelihood matrix") {
		t.Errorf("loo of the store run:\n%s\nof the same rows from CSV:\n%s", outS, outM)
	}
	// the pointwise values, LOO-PIT included (the store's rows read a block
	// at a time give the CDF too), are the in-memory run's
	recS, recM := readCSVFile(t, csvS), readCSVFile(t, csvM)
	if len(recS) != 1260 || len(recM) != 1260 {
		t.Fatalf("pointwise CSVs of %d and %d lines, want 1260", len(recS), len(recM))
	}
	for i := 1; i < len(recS); i++ {
		if strings.Join(recS[i][1:], ",") != strings.Join(recM[i][1:], ",") || recS[i][6] == "NaN" {
			t.Fatalf("line %d: store run %v, CSV run %v: want the same, with a LOO-PIT value", i+1, recS[i], recM[i])
		}
	}
	code, out, errs := runMain("loo", dirS, dirM)
	if code != 0 {
		t.Fatalf("loo store csv: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "\ns 0.0       0.0    \nm 0.0       0.0    \n") {
		t.Errorf("not a tie between the same draws on the same rows:\n%s", out)
	}
	// the rule: 1259 rows × 800 draws over a budget of 1e5
	defer func(b float64) { looFullBudget = b }(looFullBudget)
	looFullBudget = 1e5
	code, out, errs = runMain("loo", dirS)
	if code != 0 || !strings.Contains(out, "auto: --subsample ") || !strings.Contains(out, "subsampled log-likelihood\nvalues from 1259 total observations") {
		t.Fatalf("loo by the rule: exit %d: %s%s", code, out, errs)
	}
	full, sub := tableValue(t, outS, "elpd_loo", 1), tableValue(t, out, "elpd_loo", 1)
	sse := tableValue(t, out, "elpd_loo", 3)
	if d := sub - full; d*d > 4*sse*sse+0.01 {
		t.Errorf("subsampled elpd_loo %v (subsampling SE %v), every row %v", sub, sse, full)
	}
}
