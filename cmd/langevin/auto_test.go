package main

import (
	"strings"
	"testing"
)

// --iters alone reaches the length rules (fit's TestResolveLength holds
// them): a proportional burn-in and thinning for a hand-tuned sampler; for
// auto, --iters is a maximum (TestRunAutoFlags' run ends there).
func TestRunItersAlone(t *testing.T) {
	code, out, errOut := runMain("run", "--model", "gauss2", "--sampler", "sgld", "--iters", "10000", "--quiet")
	if want := "draws:    4 chains × 1000 kept (iterations 1001–10000, thin 9); 1000 burn-in iterations per chain discarded"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d: output lacks %q:\n%s%s", code, want, out, errOut)
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
