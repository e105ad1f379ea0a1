package main

import (
	"strings"
	"testing"
)

// --iters alone runs: a proportional burn-in for SGLD, a maximum for auto.
func TestRunItersAlone(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--sampler", "sgld", "--iters", "10000", "--quiet"},
		{"run", "--iters", "10000", "--quiet", "--target-ess", "100"},
	} {
		code, out, errOut := runMain(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, "draws:") {
			t.Errorf("%v: no draws line:\n%s", args, out)
		}
	}
}

// --target-ess and --max-time belong to --sampler auto and an untuned
// --sampler sgld.
func TestRunAutoFlags(t *testing.T) {
	code, _, errOut := runMain("run", "--sampler", "sgld", "--iters", "1000", "--target-ess", "100")
	if code != 2 || !strings.Contains(errOut, "--target-ess: only for --sampler auto") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := runMain("run", "--quiet", "--target-ess", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"auto:     sampler: nuts (exact NUTS is cheap here", "auto:     length: ran until min bulk-ESS", "ksd:", "time:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
