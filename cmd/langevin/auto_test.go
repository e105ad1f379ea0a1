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
	// auto takes them: here a short run that ends at --iters first and
	// says so; the default job (the shared run) stops at its ESS target.
	code, out, errOut := runMain(append([]string{"run", "--target-ess", "200", "--max-time", "1h"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "auto:     length: ran until --iters 600 reached before min bulk-ESS 200 (--target-ess 200, --max-time 1h0m0s)"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	out, _ = defaultRun(t)
	for _, want := range []string{"auto:     sampler: nuts (exact NUTS is cheap here", "auto:     length: ran until min bulk-ESS", "ksd:", "time:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
