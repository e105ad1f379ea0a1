package main

import (
	"strings"
	"testing"
)

// TestChainWeightsFlag: --chain-weights equal keeps the pooled draws (one
// BMA row, the auto: line says why the weights are equal) where the default
// prints the stacked mixture first and equal weights after it, with the
// same draws; a value other than stacking or equal, or the flag on a model
// other than mlp, is an input error naming it.
func TestChainWeightsFlag(t *testing.T) {
	args := []string{"run", "--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "10", "--iters", "5000", "--map-iters", "2000", "--quiet"}
	code, out, errOut := runMain(append(args, "--chain-weights", "equal")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"auto:     chain weights: equal (--chain-weights equal): 0.250 0.250 0.250 0.250", "  BMA (1252 draws) "} {
		if !strings.Contains(out, want) {
			t.Errorf("--chain-weights equal: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "stacked (") {
		t.Errorf("--chain-weights equal printed a stacked row:\n%s", out)
	}
	def, _ := sharedRun(t, args[1:len(args)-1]...) // TestGolden's mlp run
	for _, want := range []string{"auto:     chain weights: stacking ", "  stacked (4 chains) ", "  equal (1252 draws) "} {
		if !strings.Contains(def, want) {
			t.Errorf("default: no %q in\n%s", want, def)
		}
	}
	// the same draws: the equal row of the default is the BMA row of equal
	row := func(s, prefix string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.TrimSpace(strings.TrimPrefix(l, prefix))
			}
		}
		return ""
	}
	if a, b := row(out, "  BMA (1252 draws)"), row(def, "  equal (1252 draws)"); a == "" || a != b {
		t.Errorf("equal weights' scores differ: %q (--chain-weights equal) vs %q (default)", a, b)
	}
	for _, bad := range [][]string{
		append(args, "--chain-weights", "bma"),
		{"run", "--model", "logistic", "--chain-weights", "equal", "--quiet"},
	} {
		code, _, errOut := runMain(bad...)
		if code != 2 || !strings.Contains(errOut, "--chain-weights") {
			t.Errorf("%v: exit %d, %q: want exit 2 naming --chain-weights", bad, code, errOut)
		}
	}
}
