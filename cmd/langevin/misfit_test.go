package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var misfitLine = regexp.MustCompile(`misfit:   sd / (?:Laplace|exact-posterior) sd ([0-9.]+) \(([^)]+)\) to ([0-9.]+) \(([^)]+)\)`)

// Two approximate samplers misfit the default data (logistic regression on
// Australian credit) and must say so: IASG's sd of beta.14 is 0.10× the
// Laplace sd (its window of N/S = 55 iterates is far shorter than constant
// SGD's correlation time 668), csgd-full's 7.4× (heavy-tailed draws from the
// inverse gradient covariance); ESS, R̂ and the KSD line are all quiet. The
// correct approximate samplers (SGLD at the planned step, pSGLD, SGFS-d, the
// default's SGLD branch) stay within sd ratios 0.84–1.10 and must not warn.
// The golden cases' settings (seed 1).
func TestRunMisfitWarning(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		warn   bool
		why    string  // the sampler's known failure, named in the warning
		lo, hi float64 // the sd ratios' range [min, max] must meet [lo, hi]
	}{
		{[]string{"--sampler", "iasg", "--iters", "5000"}, true, "T/τ = 0.082", 0.05, 1.2},
		{[]string{"--sampler", "csgd-full", "--iters", "20000"}, true, "Theorem 2", 0.5, 15},
		{[]string{"--sampler", "sgld", "--iters", "20000"}, false, "", 0.8, 1.25},
		{[]string{"--sampler", "psgld", "--iters", "20000"}, false, "", 0.8, 1.25},
		{[]string{"--sampler", "sgfs-diag", "--iters", "20000"}, false, "", 0.7, 1.25},
		{[]string{"--sampler", "sgld"}, false, "", 0.8, 1.25}, // auto's plan with SGLD forced
	} {
		name := strings.Join(tc.args, " ")
		if testing.Short() && tc.args[1] == "iasg" {
			continue // 2.5 s
		}
		code, out, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		m := misfitLine.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("%s: no misfit line:\n%s", name, out)
			continue
		}
		lo, err1 := strconv.ParseFloat(m[1], 64)
		hi, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil || lo < tc.lo || hi > tc.hi {
			t.Errorf("%s: sd ratios %.2f–%.2f, want within [%g, %g]", name, lo, hi, tc.lo, tc.hi)
		}
		warned := strings.Contains(out, "warning:  --sampler "+tc.args[1]+" misfits")
		if warned != tc.warn {
			t.Errorf("%s: misfit warning %v, want %v:\n%s", name, warned, tc.warn, out)
		}
		if tc.warn && !strings.Contains(out, tc.why) {
			t.Errorf("%s: the warning does not name the known failure %q:\n%s", name, tc.why, out)
		}
	}
}

// MALA from θ = 0 at the report's η = 0.01 without a preconditioner rejects
// every proposal through its 100 burn-in iterations and its first 22 kept
// draws (acceptance below 10⁻⁷): langevin run names the chain and the
// draws. Started at the MAP (the default --init) it has no stuck stretch.
func TestRunStuckChainWarning(t *testing.T) {
	for _, tc := range []struct {
		init string
		want bool
	}{{"zero", true}, {"map", false}} {
		code, out, errOut := runMain("run", "--quiet", "--sampler", "mala", "--init", tc.init, "--step", "0.01", "--tune", "none",
			"--precond", "none", "--burnin", "100", "--iters", "1100", "--chains", "1")
		if code != 0 {
			t.Fatalf("--init %s: exit %d: %s", tc.init, code, errOut)
		}
		got := strings.Contains(out, "warning:  chain 1 sat at one point for 22 kept draws (1–22)")
		if got != tc.want || !tc.want && strings.Contains(out, "sat at one point") {
			t.Errorf("--init %s: stuck warning %v, want %v:\n%s", tc.init, got, tc.want, out)
		}
	}
}

// On a hierarchical model the Laplace approximation at the joint mode is no
// reference (its draws' KSD is over 100× an SGLD run's): the misfit line
// says it is not checked, and no misfit warning is given against it.
func TestRunMisfitNoLaplaceReference(t *testing.T) {
	// 30 rows in 6 levels: non-centred (κ < formula.GaussianCentredKappa),
	// where the joint mode is no centre.
	path := formulaCSV(t, 30)
	code, out, errOut := runMain("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--sampler", "sgld", "--iters", "3000", "--burnin", "1000", "--thin", "5", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "misfit:   not checked: the Laplace approximation is no reference here") || strings.Contains(out, "misfits the Laplace") {
		t.Errorf("want the misfit check declined:\n%s", out)
	}
}
