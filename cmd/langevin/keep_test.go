package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	checkRstanCounts(t, dir)
}

// TestAutoChainHeaders: the chain files of a --sampler auto run record the
// run as planned — the sampler it chose, its batch and burn-in — not the
// flags' defaults (algorithm = auto, batch = 10, num_warmup = 0), since they
// are written before the run ends and read by Stan's and ArviZ's tools;
// and at the end they count the draws kept (the run stopped by its ESS rule
// long before the cap its header planned, num_samples = 9999000), as
// rstan::read_stan_csv reads them.
func TestAutoChainHeaders(t *testing.T) {
	out, dir := defaultRun(t) // the default job, shared
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
	checkRstanCounts(t, dir)
}

// rstanCheck reads a chain file as rstan::read_stan_csv does and returns
// its complaint, nil if none: the header's comments up to "Adaptation
// terminated" (all but the last when there is none), with '#'s, spaces and
// "(Default)" removed, split at the first '='; num_samples + num_warmup is
// iter, and the draws after the warm-up must number
// n_kept0 = 1 + (iter − warmup − 1) %/% thin, the rows of a save_warmup = 1
// file less its 1 + (warmup − 1) %/% thin warm-up rows (rstan warns, then
// takes the rows for the iterations: an ESS of 0 in its summary).
func rstanCheck(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var comments []string
	rows, header := 0, false
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			comments = append(comments, line[i:])
			continue
		}
		if !header {
			header = true
		} else if strings.TrimSpace(line) != "" {
			rows++
		}
	}
	end := len(comments)
	for i, c := range comments {
		if strings.Contains(c, "Adaptation terminated") {
			end = i + 1
			break
		}
	}
	values := map[string]string{}
	for _, c := range comments[:max(end-1, 0)] {
		if !strings.Contains(c, "=") {
			continue
		}
		c = strings.TrimLeft(c, "#")
		c = strings.Join(strings.Fields(c), "")
		c = strings.ReplaceAll(c, "(Default)", "")
		k, v, _ := strings.Cut(c, "=")
		switch k {
		case "num_warmup":
			k = "warmup"
		case "num_samples":
			k = "iter"
		}
		if _, seen := values[k]; !seen {
			values[k] = v
		}
	}
	num := func(k string) (int, error) {
		n, err := strconv.Atoi(values[k])
		if err != nil {
			return 0, fmt.Errorf("%s: %s = %q: not an integer", path, k, values[k])
		}
		return n, nil
	}
	var iter, warmup, thin, save int
	for k, p := range map[string]*int{"iter": &iter, "warmup": &warmup, "thin": &thin, "save_warmup": &save} {
		if *p, err = num(k); err != nil {
			return err
		}
	}
	iter += warmup
	floorDiv := func(a, b int) int {
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return q
	}
	nKept0 := 1 + floorDiv(iter-warmup-1, thin)
	nKept := rows
	if save == 1 {
		nKept = rows - (1 + floorDiv(warmup-1, thin))
	}
	if nKept != nKept0 {
		return fmt.Errorf("%s: the number of iterations after warmup found (%d) does not match iter/warmup/thin from CSV comments (%d)", path, nKept, nKept0)
	}
	return nil
}

// checkRstanCounts applies rstanCheck to the chain and warm-up files of
// the run directory dir.
func checkRstanCounts(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*-[0-9]*.csv"))
	if len(files) == 0 {
		t.Fatalf("%s: no chain files", dir)
	}
	for _, f := range files {
		if err := rstanCheck(f); err != nil {
			t.Error(err)
		}
	}
}
