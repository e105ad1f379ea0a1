package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFilesHoldTheSummarisedDraws: auto's bound on the kept draws thins
// them further after they were written (thin 1 → 8 here); the chain files
// end with the draws the run summarised, so that langevin summary (and
// Stan, ArviZ) read the run's table, not another one.
func TestRunFilesHoldTheSummarisedDraws(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := runMain("run", "--sampler", "sgld", "--seed", "2", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := drawsLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "thin 8)") {
		t.Fatalf("expected a run thinned to 8 by the bound on kept draws:\n%s", out)
	}
	code, sum, errs := runMain("summary", dir)
	if code != 0 {
		t.Fatalf("summary: exit %d: %s", code, errs)
	}
	table := func(s string) string { // the lines of the variables
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "intercept ") || strings.HasPrefix(line, "beta.") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	if got, want := table(sum), table(out); got == "" || got != want {
		t.Errorf("langevin summary of the run's files:\n%s\nthe run printed:\n%s", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
	if err != nil || !strings.Contains(string(b), "#     thin = 8\n") || !strings.HasSuffix(string(b), "# Run finished\n") {
		t.Errorf("chain-1.csv: no thin = 8 or no status line (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestAutoChainHeaders: the chain files of a --sampler auto run record the
// run as planned — the sampler it chose, its batch and burn-in — not the
// flags' defaults (algorithm = auto, batch = 10, num_warmup = 0), since they
// are written before the run ends and read by Stan's and ArviZ's tools.
func TestAutoChainHeaders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := runMain("run", "--seed", "2", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "auto:     sampler: nuts") {
		t.Fatalf("expected the plan to choose NUTS:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#     algorithm = nuts\n", "#     num_warmup = 1000\n", "# batch = 0\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("chain-1.csv's header lacks %q", want)
		}
	}
}
