package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const uciTiny = "../../data/testdata/uci-tiny"

// ensembleArgs is a short deep ensemble on a UCI folder's split.
func ensembleArgs(dir string, split int) []string {
	return []string{"run", "--data", dir, "--split", strconv.Itoa(split), "--model", "mlp", "--learn-noise",
		"--sampler", "ensemble", "--map-iters", "300", "--quiet"}
}

var bmaRow = regexp.MustCompile(`(?m)^\s+BMA \(\d+ draws\)\s+(\S+)\s+(\S+)\s+(\S+)$`)

// bmaScores returns the test log-likelihood and RMSE of the run's BMA row.
func bmaScores(t *testing.T, out string) (ll, rmse float64) {
	t.Helper()
	g := bmaRow.FindStringSubmatch(out)
	if g == nil {
		t.Fatalf("no BMA row in:\n%s", out)
	}
	ll, _ = strconv.ParseFloat(g[1], 64)
	rmse, _ = strconv.ParseFloat(g[2], 64)
	return ll, rmse
}

// TestRunUCIFolder: --data a UCI folder --split K reads the split (32 + 8
// rows of the fixture, 3 features, the folder's 8 hidden units: d = 3·8 + 8
// + 8 + 1 + log σ² = 42), and the test scores are in the target's units: the
// same folder with the target y replaced by 10y + 5 gives the same
// standardised problem, so its log-likelihood is lower by exactly log 10
// (the Jacobian of y ↦ 10y + 5) and its RMSE 10 times larger. A score left
// in standardised units, or a Jacobian slip, fails by far more than the
// tolerance.
func TestRunUCIFolder(t *testing.T) {
	code, out, errOut := runMain(ensembleArgs(uciTiny, 1)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"split 1 (train) (N = 32 train, 8 test, d = 42)", "ENSEMBLE", "V3 in its units"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	ll, rmse := bmaScores(t, out)

	// The folder with y → 10y + 5 (column 3 of data.txt).
	dir := t.TempDir()
	entries, err := os.ReadDir(uciTiny)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(uciTiny, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "data.txt" {
			var sb strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.Fields(line)
				y, _ := strconv.ParseFloat(f[2], 64)
				f[2] = strconv.FormatFloat(10*y+5, 'g', -1, 64)
				fmt.Fprintln(&sb, strings.Join(f, " "))
			}
			b = []byte(sb.String())
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out10, errOut := runMain(ensembleArgs(dir, 1)...)
	if code != 0 {
		t.Fatalf("y·10 + 5: exit %d: %s", code, errOut)
	}
	ll10, rmse10 := bmaScores(t, out10)
	if math.Abs(ll10-(ll-math.Log(10))) > 2e-3 || math.Abs(rmse10/rmse-10) > 1e-2 {
		t.Errorf("y → 10y + 5: LL %v → %v (want %v), RMSE %v → %v (want ×10)", ll, ll10, ll-math.Log(10), rmse, rmse10)
	}

	// Bad input: exit 2, naming the flag.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--data", uciTiny, "--split", "2", "--model", "mlp"}, "--split 2"},
		{[]string{"run", "--data", uciTiny, "--test", "x.csv", "--model", "mlp"}, "--test: not used here"},
		{[]string{"run", "--data", "../../data/testdata", "--split", "1"}, "--split: not used here"},
		{[]string{"run", "--data", uciTiny, "--model", "linear", "--sampler", "ensemble"}, "only for --model mlp"},
		{[]string{"run", "--data", uciTiny, "--model", "linear", "--init", "random"}, "--init random: only for --model mlp"},
	} {
		if code, _, errOut := runMain(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestExperimentUCITiny runs experiment uci end to end on the fixture's
// split 0 (the default SG-MCMC shortened by --run-args, and the ensemble):
// the per-split CSV holds a finite row per method, the page and the figure
// are written.
func TestExperimentUCITiny(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "uci", "--data-dir", "../../data/testdata", "--sets", "uci-tiny", "--splits", "0",
		"--methods", "auto,ensemble", "--run-args", "--iters 1000 --map-iters 300 --learn-noise", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	f, err := os.Open(filepath.Join(dir, "uci.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, r := range recs[1:] {
		ll, err1 := strconv.ParseFloat(r[3], 64)
		rmse, err2 := strconv.ParseFloat(r[4], 64)
		if r[0] != "uci-tiny" || r[1] != "0" || err1 != nil || err2 != nil || math.IsNaN(ll) || !(rmse > 0) || r[9] != "" {
			t.Errorf("row %v", r)
		}
		methods[r[2]] = true
	}
	for _, m := range []string{"SG-MCMC (auto)", "MAP network", "deep ensemble (5)"} {
		if !methods[m] {
			t.Errorf("uci.csv lacks %s: %v", m, recs)
		}
	}
	for _, file := range []string{"uci.png", "uci.svg", "index.md"} {
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out, "uci-tiny SG-MCMC (auto)") {
		t.Errorf("no summary table:\n%s", out)
	}
}

var mapRow = regexp.MustCompile(`(?m)^\s+MAP network\s+(\S+)\s+(\S+)\s+(\S+)$`)

// TestRunLaplaceNetworkLinearised: --sampler laplace on a regression
// network is the linearised (GLM) Laplace approximation, says so, and
// predicts like its MAP network (the linearised predictive's mean is the
// MAP's: RMSE within 2% of it; its log-likelihood within 0.5 nats). The
// weight-space Laplace pushed through the network, what it did before,
// gave log-likelihoods in the thousands below the MAP's on the UCI sets.
// The prior is 2 on every layer (--prior-scale 2): with the default output
// scale 4 the tiny set leaves directions to the prior and the linearised
// predictive is rightly wider than the MAP's (LL −2.28 against −1.88).
func TestRunLaplaceNetworkLinearised(t *testing.T) {
	code, out, errOut := runMain("run", "--data", uciTiny, "--split", "0", "--model", "mlp", "--sampler", "laplace",
		"--iters", "200", "--burnin", "0", "--thin", "1", "--map-iters", "500", "--quiet", "--prior-scale", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "linearised (GLM) Laplace approximation at the MAP network") {
		t.Errorf("no linearised-Laplace note:\n%s", out)
	}
	ll, rmse := bmaScores(t, out)
	g := mapRow.FindStringSubmatch(out)
	if g == nil {
		t.Fatalf("no MAP row:\n%s", out)
	}
	mll, _ := strconv.ParseFloat(g[1], 64)
	mrmse, _ := strconv.ParseFloat(g[2], 64)
	if math.Abs(ll-mll) > 0.5 || math.Abs(rmse/mrmse-1) > 0.02 {
		t.Errorf("linearised Laplace LL %v RMSE %v vs MAP network %v %v", ll, rmse, mll, mrmse)
	}
}

// TestPredictUCIFolderUnits: langevin predict of a network run on a UCI
// folder scores the split's test rows (a CSV of them, columns named as the
// folder's) with the run's own RMSE, in the target's units. It used to
// standardise the new rows' response again by their own mean and sd, and
// the predictions were then off by orders of magnitude (yacht split 0:
// RMSE 245.8 against the run's 0.37).
func TestPredictUCIFolderUnits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errOut := runMain(append(ensembleArgs(uciTiny, 1), "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, rmse := bmaScores(t, stdout)
	b, err := os.ReadFile(filepath.Join(uciTiny, "data.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	idx, err := os.ReadFile(filepath.Join(uciTiny, "index_test_1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("V1,V2,V5,V3\n") // index_features 0, 1, 4; index_target 2
	for _, s := range strings.Fields(string(idx)) {
		i, _ := strconv.Atoi(s)
		f := strings.Fields(lines[i])
		fmt.Fprintf(&sb, "%s,%s,%s,%s\n", f[0], f[1], f[4], f[2])
	}
	csvPath := filepath.Join(t.TempDir(), "test1.csv")
	if err := os.WriteFile(csvPath, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, pred, errOut := runMain("predict", "--samples", out, "--data", csvPath)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	g := regexp.MustCompile(`test set \(8 rows\): RMSE (\S+);`).FindStringSubmatch(pred)
	if g == nil {
		t.Fatalf("predict printed no RMSE:\n%s", pred)
	}
	got, _ := strconv.ParseFloat(g[1], 64)
	if math.Abs(got-rmse) > 1e-3*rmse+5e-4 {
		t.Errorf("predict's RMSE %v, the run's %v", got, rmse)
	}
}
