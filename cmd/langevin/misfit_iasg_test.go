package main

import (
	"strings"
	"testing"
)

// IASG's two step bounds are checked and named (fit.iasgHint): at the
// default η = 0.05/λmax on credit the window of one pass spans T/τ = 0.082
// correlation times (the lower bound, TestRunMisfitWarning); at --step 0.01,
// η·λmax(Λ) = 0.85, beyond the small-step regime of Mandt et al.'s
// Assumption 5 (the upper bound, 0.1), the warning says so — and not at the
// default step, where only the lower bound fails.
func TestRunIASGStepBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("two IASG runs")
	}
	for _, tc := range []struct {
		args  []string
		upper bool
	}{
		{[]string{"--step", "0.01"}, true},
		{nil, false},
	} {
		args := append([]string{"run", "--quiet", "--sampler", "iasg", "--iters", "3000"}, tc.args...)
		code, out, errOut := runMain(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		if !strings.Contains(out, "warning:  --sampler iasg misfits") {
			t.Errorf("%v: no misfit warning:\n%s", tc.args, out)
		}
		upper := strings.Contains(out, "η·λmax(Λ) = 0.85 exceeds 0.1") && strings.Contains(out, "Assumption 5 the randomness")
		if upper != tc.upper {
			t.Errorf("%v: the upper step bound named %v, want %v:\n%s", tc.args, upper, tc.upper, out)
		}
		if lower := strings.Contains(out, "T/τ = "); lower == tc.upper {
			t.Errorf("%v: the lower bound (T/τ) named %v, want %v", tc.args, lower, !tc.upper)
		}
	}
}
