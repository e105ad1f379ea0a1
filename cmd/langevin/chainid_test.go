package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// timing matches CmdStan's timing comment lines, the only lines of a chain
// file that differ between two runs of the same analysis.
var timing = regexp.MustCompile(`(?m)^#\s+(Elapsed Time: )?[0-9.e+-]+ seconds \((Warm-up|Sampling|Total)\)\n`)

// padding matches rundir's padding comment lines ("#" and spaces), placed by
// file offset: a timing line of another length after the draws may move one.
var padding = regexp.MustCompile(`(?m)^# *\n`)

// sameButTiming reports whether two chain files are byte for byte equal once
// their timing lines, and the padding lines after them, are removed.
func sameButTiming(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(b []byte) []byte {
		i := bytes.Index(b, []byte("\n#  Elapsed")) // the draws end here
		if i < 0 {
			return b
		}
		return append(b[:i:i], padding.ReplaceAll(timing.ReplaceAll(b[i:], nil), nil)...)
	}
	return bytes.Equal(strip(x), strip(y))
}

// TestChainIDGivesTheChainsOfOneRun: three processes with --chain-id 1, 2, 3
// write the chain and warm-up files of one --chains 3 run (byte for byte but
// for the timing lines), and summary, predict and report combine their
// directories into the same results; a directory of another analysis is
// refused.
func TestChainIDGivesTheChainsOfOneRun(t *testing.T) {
	tmp := t.TempDir()
	// --target-ess 0: no ESS rule, the run of all chains goes to --iters,
	// as each chain run alone does.
	args := []string{"run", "--iters", "300", "--burnin", "100", "--thin", "5", "--chains", "3", "--seed", "7", "--quiet", "--target-ess", "0"}
	whole := filepath.Join(tmp, "whole")
	if code, _, errs := runMain(append(args, "--out", whole)...); code != 0 {
		t.Fatal(errs)
	}
	var dirs []string
	for k := 3; k >= 1; k-- {
		dir := filepath.Join(tmp, "chain"+strconv.Itoa(k))
		code, out, errs := runMain(append(args, "--chain-id", strconv.Itoa(k), "--out", dir)...)
		if code != 0 {
			t.Fatal(errs)
		}
		if !strings.Contains(out, "chain "+strconv.Itoa(k)+" of 3") {
			t.Errorf("output does not say which chain ran:\n%s", out)
		}
		for _, f := range []string{"chain-", "warmup-"} {
			name := f + strconv.Itoa(k) + ".csv"
			if !sameButTiming(t, filepath.Join(whole, name), filepath.Join(dir, name)) {
				t.Errorf("%s of --chain-id %d differs from the 3-chain run's", name, k)
			}
		}
		dirs = append([]string{dir}, dirs...)
	}
	// The check can fail: chain 2 is not chain 1.
	if sameButTiming(t, filepath.Join(whole, "chain-1.csv"), filepath.Join(dirs[1], "chain-2.csv")) {
		t.Fatal("chains 1 and 2 are equal")
	}
	same := func(what string, a, b []string, skip int) {
		t.Helper()
		ca, oa, ea := runMain(a...)
		cb, ob, eb := runMain(b...)
		if ca != 0 || cb != 0 {
			t.Fatalf("%s: %s %s", what, ea, eb)
		}
		la, lb := strings.SplitN(oa, "\n", skip+1), strings.SplitN(ob, "\n", skip+1)
		if la[len(la)-1] != lb[len(lb)-1] {
			t.Errorf("%s differs:\n%s\n%s", what, oa, ob)
		}
	}
	same("summary", []string{"summary", whole}, append([]string{"summary"}, dirs[2], dirs[0], dirs[1]), 1)
	same("predict", []string{"predict", "--samples", whole, "--data", "australian", "--split", "all"},
		[]string{"predict", "--samples", strings.Join(dirs, ","), "--data", "australian", "--split", "all"}, 1)
	if code, _, errs := runMain(append([]string{"report", "-o", filepath.Join(tmp, "r.html")}, dirs...)...); code != 0 {
		t.Errorf("report: %s", errs)
	}

	other := filepath.Join(tmp, "other")
	if code, _, errs := runMain("run", "--iters", "300", "--burnin", "100", "--thin", "5", "--chains", "3", "--seed", "8", "--quiet",
		"--chain-id", "3", "--out", other); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs := runMain("summary", dirs[0], dirs[1], other)
	if code != 2 || !strings.Contains(errs, "not chains of one analysis: setting seed differs") {
		t.Errorf("mixed analyses: exit %d, %s", code, errs)
	}
	code, _, errs = runMain("summary", dirs[0], dirs[0])
	if code != 2 || !strings.Contains(errs, "chain 1 appears twice") {
		t.Errorf("a chain twice: exit %d, %s", code, errs)
	}
	if code, _, errs := runMain(append(args, "--chain-id", "4")...); code != 2 || !strings.Contains(errs, "--chain-id 4: expected a chain number from 1 to --chains (3)") {
		t.Errorf("--chain-id 4: exit %d, %s", code, errs)
	}
	// A chain run alone cannot follow a rule that needs all chains.
	for _, bad := range [][]string{
		{"run", "--chains", "2", "--chain-id", "1", "--quiet"},
		{"run", "--chains", "2", "--chain-id", "1", "--iters", "300", "--target-ess", "300", "--quiet"},
		{"run", "--sampler", "sgld", "--chains", "2", "--chain-id", "1", "--quiet"},
	} {
		if code, _, errs := runMain(bad...); code != 2 || !strings.Contains(errs, "--chain-id") {
			t.Errorf("%v: exit %d, %s", bad, code, errs)
		}
	}
}

// TestChainIDAutoSGLD: with --sampler auto's SGLD plan (control variates,
// the bound on kept draws), chains run alone with --iters equal the chains
// of one run with --iters and --target-ess 0, byte for byte but for the
// timing lines.
func TestChainIDAutoSGLD(t *testing.T) {
	tmp := t.TempDir()
	args := []string{"run", "--data", "moons", "--n", "60000", "--model", "logistic", "--iters", "3000", "--chains", "2", "--seed", "5", "--quiet"}
	whole := filepath.Join(tmp, "whole")
	code, out, errs := runMain(append(args, "--target-ess", "0", "--out", whole)...)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "auto:     sampler: sgld") || !strings.Contains(out, "(no ESS rule)") {
		t.Fatalf("expected auto's SGLD plan run to --iters:\n%s", out)
	}
	for k := 1; k <= 2; k++ {
		if k == 2 && testing.Short() {
			break // chain 1 alone shows the rule; the long suite runs both
		}
		dir := filepath.Join(tmp, "chain"+strconv.Itoa(k))
		if code, _, errs := runMain(append(args, "--chain-id", strconv.Itoa(k), "--out", dir)...); code != 0 {
			t.Fatal(errs)
		}
		name := "chain-" + strconv.Itoa(k) + ".csv"
		if !sameButTiming(t, filepath.Join(whole, name), filepath.Join(dir, name)) {
			t.Errorf("%s of --chain-id %d differs from the 2-chain run's", name, k)
		}
	}
}
