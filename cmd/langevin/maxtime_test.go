package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
)

// TestMaxTimeWarmup: --max-time holds during a warm-up, which the ESS rule
// does not watch (NUTS's warm-up took a 5 s budget to 17.4 s): a budget that
// ends in the warm-up is an error saying so, not a run to the end of it.
// Nothing times it.
func TestMaxTimeWarmup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runMain("run", "--max-time", "400ms", "--quiet", "--out", dir) // auto: NUTS, 1.4 s of CPU in its warm-up
	if code != 1 || !strings.Contains(errOut, "--max-time 400ms reached during the warm-up (burn-in), before a draw was kept") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestMaxTimeAnySampler: --max-time is taken by a sampler the user names
// (it was refused unless --sampler auto, and so for every --stan program,
// whose default is NUTS), and holds in its warm-up and sampling as under
// auto.
func TestMaxTimeAnySampler(t *testing.T) {
	for _, s := range []string{"nuts", "mala"} {
		dir := filepath.Join(t.TempDir(), "out")
		code, _, errOut := runMain("run", "--sampler", s, "--iters", "1000000", "--max-time", "400ms", "--quiet", "--out", dir)
		// exit 1 when the budget ends in the warm-up, 0 with the draws so far
		if code == 2 || !strings.Contains(errOut, "--max-time 400ms reached") {
			t.Errorf("--sampler %s: exit %d: %s", s, code, errOut)
		}
	}
}

// TestMaxTimePredictionsAndChecks: the test-set predictions and the checks
// (KSD, misfit) come within --max-time too; when the budget is spent they
// are skipped and the output says so (they ran 3 s past a 3 s budget
// before). The hook holds the run until its budget has ended.
func TestMaxTimePredictionsAndChecks(t *testing.T) {
	fit.BeforeChecksHook = func(ctx context.Context) { <-ctx.Done() }
	beforePredictions = func(ctx context.Context) { <-ctx.Done() }
	defer func() { beforePredictions, fit.BeforeChecksHook = nil, nil }()
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runMain("run", "--sampler", "sgld", "--target-ess", "100", "--quiet", "--max-time", "2s", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"test set: not scored: --max-time 2s reached", "ksd:      not checked: --max-time 2s reached"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "mean log pred. density") {
		t.Errorf("test set scored after the budget:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); err != nil {
		t.Errorf("run directory incomplete: %v", err)
	}
}

// TestRunNAToken: --na ? declares a missing marker, and --decimal , reads
// a European file (';' between cells); before, neither flag existed.
func TestRunNAToken(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("a;b;y\n")
	for i := range 60 {
		b := "?"
		if i%7 != 0 {
			b = strconv.Itoa(i%5) + ",5"
		}
		fmt.Fprintf(&sb, "%d,%d;%s;%d\n", i%9, i%4, b, (i/3)%2)
	}
	p := filepath.Join(t.TempDir(), "eu.csv")
	os.WriteFile(p, []byte(sb.String()), 0o644)
	expectExit2(t, "--na ?", []string{"run", "--data", p, "--na", "?", "--decimal", ",", "--quiet", "--out", filepath.Join(t.TempDir(), "o")}, `("?") in column "b"`, "9 rows")
	code, out, errOut := runMain(append(append([]string(nil), smallRun...), "--data", p, "--na", "?", "--decimal", ",", "--missing", "drop", "--batch", "0", "--out", filepath.Join(t.TempDir(), "o2"))...)
	if code != 0 || !strings.Contains(out, "beta.2") {
		t.Errorf("--missing drop: exit %d: %s", code, errOut)
	}
	expectExit2(t, "--decimal ;", []string{"run", "--data", p, "--decimal", ";"}, "--decimal")
}

// TestNetworkWeightsCollapsed: a network run printed every weight's row
// (R̂ and ESS that mean nothing for a network) before the test table; now
// one line says how many and where they are, and the test table and the
// function-space check follow. summary.csv still lists every weight.
func TestNetworkWeightsCollapsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "net")
	code, out, errOut := runMain("run", "--model", "mlp", "--data", "moons", "--n", "120", "--hidden", "3", "--sampler", "sghmc", "--iters", "600", "--burnin", "200", "--thin", "4", "--chains", "2", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "\nw.1.1.1 ") || !strings.Contains(out, "network:  13 weights and biases (w.1.1.1 … b.2.1), in summary.csv, not listed") {
		t.Errorf("output:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil || !strings.Contains(string(b), "w.1.1.1") {
		t.Errorf("summary.csv: %v\n%s", err, b)
	}
}
