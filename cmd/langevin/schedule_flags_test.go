package main

import (
	"strings"
	"testing"
)

// TestScheduleWarningAndFloor: a polynomial decay outside 0.5 < γ ≤ 1 is
// warned about (before the run, on stderr, and with the summary); a floor
// needs the polynomial schedule and a non-negative step.
func TestScheduleWarningAndFloor(t *testing.T) {
	base := []string{"run", "--data", "lecture", "--model", "linear", "--sampler", "sgld", "--schedule", "poly", "--iters", "400", "--burnin", "100", "--chains", "1"}
	code, out, errOut := runMain(append(base, "--decay", "1.2")...)
	if code != 0 || !strings.Contains(errOut, "warning: --decay: polynomial step decay γ = 1.2 > 1") || !strings.Contains(out, "warning: --decay") {
		t.Errorf("--decay 1.2: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if code, _, errOut := runMain(append(base, "--decay", "0.55")...); code != 0 || strings.Contains(errOut, "--decay") {
		t.Errorf("--decay 0.55: exit %d, stderr %q; want no warning", code, errOut)
	}
	if code, _, errOut := runMain(append(base, "--step-floor", "1e-7")...); code != 0 {
		t.Errorf("--step-floor 1e-7: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"run", "--data", "lecture", "--model", "linear", "--sampler", "sgld", "--step-floor", "1e-4", "--iters", "400", "--burnin", "100"}},
		{append(base, "--step-floor", "-1")},
	} {
		if code, _, errOut := runMain(tc.args...); code != 2 || !strings.Contains(errOut, "--step-floor") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --step-floor", tc.args, code, errOut)
		}
	}
}
