package experiment

import (
	"strings"
	"testing"
)

// From θ = 0 the report's MALA (η = 0.01) rejects every proposal for its
// 100 burn-in iterations and the first 22 kept draws (acceptance below
// 10⁻⁷): the experiment must say so, with its rule. From the MAP (the
// default) no method of the comparison has a stuck stretch.
func TestExperimentCreditStuckWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	for _, tc := range []struct {
		start string
		want  string // "" no stuck warning
	}{
		{"zero", "warning: MALA: chain 1 sat at one point for 22 kept draws (1–22)"},
		{"map", ""},
	} {
		code, out, errOut := runMain("experiment", "credit", "--draws", "300", "--start", tc.start)
		if code != 0 {
			t.Fatalf("--start %s: exit %d: %s", tc.start, code, errOut)
		}
		got := strings.Contains(out, "sat at one point")
		if tc.want == "" && got || tc.want != "" && !strings.Contains(out, tc.want) {
			t.Errorf("--start %s: want %q in:\n%s", tc.start, tc.want, out)
		}
		if tc.want != "" && !strings.Contains(out, "rule: ≥ max(20, log(0.01/n)/log p)") {
			t.Errorf("--start %s: the warning does not state its rule:\n%s", tc.start, out)
		}
	}
}
