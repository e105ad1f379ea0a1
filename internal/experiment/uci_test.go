package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uciRowsAt returns n splits of the default SG-MCMC on set whose test LL
// are ll ± 0.1 (mean ll, standard error 0.1·√(n/(n−1))/√n ≈ 0.023 at n =
// 20), RMSE rmse, function-space R̂ median/max rh.
func uciRowsAt(set string, n int, ll, rmse, rhMed, rhMax float64) []uciRow {
	var out []uciRow
	for k := 0; k < n; k++ {
		d := 0.1
		if k%2 == 1 {
			d = -0.1
		}
		out = append(out, uciRow{set: set, split: k, method: "SG-MCMC (auto)", ll: ll + d, rmse: rmse, cover: 0.95, rhatMax: rhMax, rhatMedian: rhMed, cpu: 5})
	}
	return out
}

// TestUCIAcceptance checks the acceptance lines of the table against hand
// counts: the best published LL of each set (boston −2.40, energy −1.21,
// power −2.79, protein −2.83, wine −0.93, yacht −1.18), our standard error,
// MC dropout 2016's RMSE and the R̂ thresholds. Moving one set from "within
// one SE" to below must turn the LL criterion to "not met".
func TestUCIAcceptance(t *testing.T) {
	build := func(bostonLL float64) []uciRow {
		var rows []uciRow
		rows = append(rows, uciRowsAt("yacht", 20, -0.6, 0.5, 1.01, 1.05)...)      // ≥ best, RMSE ≤ 1.11
		rows = append(rows, uciRowsAt("energy", 20, -0.6, 0.4, 1.01, 1.2)...)      // ≥ best; R̂ max short
		rows = append(rows, uciRowsAt("power", 20, -2.78, 4.0, 1.01, 1.05)...)     // ≥ best (−2.79)
		rows = append(rows, uciRowsAt("protein", 5, -2.80, 4.5, 1.01, 1.05)...)    // ≥ best; RMSE worse than 4.36
		rows = append(rows, uciRowsAt("wine", 20, -0.94, 0.63, 1.01, 1.05)...)     // within one SE of −0.93; RMSE worse
		rows = append(rows, uciRowsAt("boston", 20, bostonLL, 2.8, 1.01, 1.05)...) // −2.41: within one SE of −2.40
		return rows
	}
	sets := uciSets
	out := uciTable(sets, build(-2.41))
	for _, want := range []string{
		"LL ≥ best published on 4 of 6 sets, within one SE on 2 more; RMSE ≤ MC dropout 2016 on 4 of 6",
		"LL criterion (≥ best on 4, the rest within one SE): met",
		"RMSE criterion (≤ MC dropout 2016 on 4): met",
		"function-space R̂ (median ≤ 1.02, max ≤ 1.1): met on 5 of 6 sets",
		"energy: LL -0.600 vs best published -1.21",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out = uciTable(sets, build(-2.50))
	if !strings.Contains(out, "LL criterion (≥ best on 4, the rest within one SE): not met (below: boston 0.100 below") {
		t.Errorf("boston 0.1 below the best (4 SE) did not fail the LL criterion:\n%s", out)
	}
	// The standard error is sd/√n over the splits.
	if m, se, n := meanSE([]float64{1, 2, 3, math.NaN()}); m != 2 || n != 3 || math.Abs(se-1/math.Sqrt(3)) > 1e-15 {
		t.Errorf("meanSE = %v, %v, %v", m, se, n)
	}
}

// TestUCIStopsOnSignal: when a run is stopped by a signal (RunCommand's
// error wraps ErrInterrupted), experiment uci stops — it neither records the
// cut run as a failed row nor starts the next one — and --resume later runs
// it. Before, the command's own handler swallowed SIGTERM and the loop went
// on to the next split.
func TestUCIStopsOnSignal(t *testing.T) {
	saved := RunCommand
	defer func() { RunCommand = saved }()
	var calls []string
	RunCommand = func(args []string, stdout, stderr io.Writer) error {
		split := args[4]
		calls = append(calls, split)
		if split == "1" {
			return fmt.Errorf("langevin run: exit 143: %w", ErrInterrupted)
		}
		fmt.Fprint(stdout, "  BMA (10 draws)      -1.5000    0.7000    0.950\n  MAP network         -1.6000    0.7100    0.900\ncpu:      2.00 s of CPU\n")
		return nil
	}
	out := t.TempDir()
	var so, se bytes.Buffer
	err := runUCI(context.Background(), []string{"--data-dir", "../../data/testdata", "--sets", "uci-tiny", "--methods", "auto", "--out", out}, &so, &se)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if strings.Join(calls, ",") != "0,1" {
		t.Errorf("runs of splits %v, want 0 then 1 and no more", calls)
	}
	b, err := os.ReadFile(filepath.Join(out, "uci.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\n"); got != 4 || strings.Contains(string(b), "uci-tiny,1,") {
		t.Errorf("uci.csv: want the header and split 0's three rows (its equal-weights row empty: the run printed none), got:\n%s", b)
	}
	// --resume runs only split 1.
	calls = nil
	RunCommand = func(args []string, stdout, stderr io.Writer) error {
		calls = append(calls, args[4])
		fmt.Fprint(stdout, "  BMA (10 draws)      -1.5000    0.7000    0.950\n  MAP network         -1.6000    0.7100    0.900\n")
		return nil
	}
	if err := runUCI(context.Background(), []string{"--data-dir", "../../data/testdata", "--sets", "uci-tiny", "--methods", "auto", "--out", out, "--resume"}, &so, &se); err != nil {
		t.Fatal(err)
	}
	if strings.Join(calls, ",") != "1" {
		t.Errorf("--resume ran splits %v, want only 1", calls)
	}
}

// TestUCIReadsStackedRows: the default run's test table has the stacked
// mixture first and equal weights after it; the experiment's "SG-MCMC
// (auto)" row is the stacked one, and R̂ is read from the between-chains
// line of the function-space check.
func TestUCIReadsStackedRows(t *testing.T) {
	saved := RunCommand
	defer func() { RunCommand = saved }()
	RunCommand = func(args []string, stdout, stderr io.Writer) error {
		fmt.Fprint(stdout, `auto:     chain weights: stacking 0.500 0.500 0.000 0.000 (elpd_loo of each chain -24.8 -26.0 -26.1 -25.5)
test set (31 rows; V7 in its units)    log-lik      RMSE   cover95
  stacked (4 chains)             -0.4884    0.1733     1.000
  equal (576 draws)              -0.5147      0.19     1.000
  MAP network                    -0.5598    0.3869     0.968

function space (31 held-out points), each chain alone (144 draws; passes with max split-R̂ ≤ 1.1 and median bulk-ESS ≥ 100):
  chain  split-R̂ median       max  bulk-ESS median       min
  1               1.010     1.050              130        90  ok
  2               1.020     1.210               40        12  fails: split-R̂ 1.210 > 1.1 (point 3)
  between chains: max R̂ 1.373 (point 1), median R̂ 1.036, min bulk-ESS 10: how far the chains' predictions differ
cpu:      2.00 s of CPU
`)
		return nil
	}
	rows, err := runUCISplit(context.Background(), uciSet{name: "yacht", dir: "yacht"}, 0, uciMethods[0], t.TempDir(), 1, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uciRow{}
	for _, r := range rows {
		got[r.method] = r
	}
	if r := got["SG-MCMC (auto)"]; r.err != "" || r.ll != -0.4884 || r.rmse != 0.1733 || r.rhatMax != 1.373 || r.rhatMedian != 1.036 {
		t.Errorf("SG-MCMC (auto): %+v, want the stacked row's -0.4884, 0.1733 and R̂ 1.373, 1.036", r)
	}
	if r := got["SG-MCMC (auto)"]; r.chainsOK != 1 || r.chains != 2 || r.effChains != 2 {
		t.Errorf("SG-MCMC (auto): %d of %d chains pass, %v effective chains; want 1 of 2 and 2 (weights ½, ½, 0, 0)", r.chainsOK, r.chains, r.effChains)
	}
	if r := got["equal weights (auto)"]; r.err != "" || r.ll != -0.5147 || r.rmse != 0.19 {
		t.Errorf("equal weights (auto): %+v, want the equal row's -0.5147, 0.19", r)
	}
	if r := got["MAP network"]; r.ll != -0.5598 {
		t.Errorf("MAP network: %+v", r)
	}
}

// TestUCIStackedAgainstEqual: the table compares the stacked chains with
// equal weights split by split, and names a set where stacking loses by
// more than one paired standard error.
func TestUCIStackedAgainstEqual(t *testing.T) {
	var rows []uciRow
	for k := 0; k < 4; k++ {
		d := 0.01 * float64(k%2) // yacht: stacked ahead by 0.005 on average
		rows = append(rows,
			uciRow{set: "yacht", split: k, method: "SG-MCMC (auto)", ll: -0.5 + d, effChains: 2, chains: 4, chainsOK: 3},
			uciRow{set: "yacht", split: k, method: "equal weights (auto)", ll: -0.5, effChains: math.NaN()},
			uciRow{set: "boston", split: k, method: "SG-MCMC (auto)", ll: -2.5 - 0.1 - d, effChains: 1, chains: 4},
			uciRow{set: "boston", split: k, method: "equal weights (auto)", ll: -2.5, effChains: math.NaN()})
	}
	sets := []uciSet{}
	for _, s := range uciSets {
		if s.name == "yacht" || s.name == "boston" {
			sets = append(sets, s)
		}
	}
	out := uciTable(sets, rows)
	for _, want := range []string{
		"yacht +0.0050 ± 0.0029 (4 splits)",
		"stacked ≥ equal on 1 of 2 sets; worse by more than one paired SE on 1 (boston)",
		"12/16", // yacht's four splits: 3 of 4 chains pass each
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
