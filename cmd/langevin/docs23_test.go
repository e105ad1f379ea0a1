package main

import (
	"strconv"
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

// cSGLD on the 25-mode mixture: by default the run no longer takes the
// Laplace preconditioner of one mode (which kept every chain in one mode:
// sd 0.17 against the mixture's 2.8), and it says so.
func TestRunMultimodalDefaultPrecond(t *testing.T) {
	args := []string{"run", "--model", "mixture25", "--sampler", "csgld", "--step", "0.07", "--cycles", "10",
		"--iters", "20000", "--burnin", "0", "--thin", "10", "--grad-noise", "1", "--chains", "2", "--quiet", "--out", t.TempDir() + "/run"}
	code, out, errOut := runMain(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "auto:     precond: none (the target has 25 modes") {
		t.Errorf("the output does not say why the preconditioner is off:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && strings.HasPrefix(f[0], "theta.") {
			sd, err := strconv.ParseFloat(f[2], 64)
			// One mode: sd ≈ 0.17; the 25 modes at (2i, 2j): sd ≈ 2.8.
			if err != nil || sd < 1.2 {
				t.Errorf("%s: sd %s: the chains stayed near one mode\n%s", f[0], f[2], out)
			}
		}
	}
}
