package main

import (
	"strings"
	"testing"
)

// A network with a Bernoulli likelihood is a classifier: the run's first
// line names its likelihood, not "mlp regression" (as it did before).
func TestRunMLPTitleNamesTheLikelihood(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{"moons", "mlp, bernoulli likelihood on moons"},
		{"gap1d", "mlp, gaussian likelihood on gap1d"},
	} {
		code, out, errOut := runMain("run", "--model", "mlp", "--data", tc.data, "--n", "100", "--hidden", "3",
			"--sampler", "sgld", "--iters", "40", "--burnin", "20", "--chains", "1", "--quiet", "--out", t.TempDir()+"/run")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.data, code, errOut)
		}
		first, _, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(first, tc.want) || strings.Contains(first, "regression") {
			t.Errorf("%s: first line %q, want it to start %q", tc.data, first, tc.want)
		}
	}
}
