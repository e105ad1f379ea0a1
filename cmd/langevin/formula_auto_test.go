package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sleepCSV writes data shaped like lme4's sleepstudy: J subjects observed
// on days 0–9, Reaction = 250 + 10·Days + a subject's intercept (sd 25)
// and slope (sd 6, correlation 0.1) + N(0, 25²).
func sleepCSV(t *testing.T, J int) string {
	rng := rand.New(rand.NewPCG(8, 8))
	var b strings.Builder
	b.WriteString("Reaction,Days,Subject\n")
	for j := 0; j < J; j++ {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		a, s := 25*z1, 6*(0.1*z1+math.Sqrt(0.99)*z2)
		for d := 0; d < 10; d++ {
			fmt.Fprintf(&b, "%.4f,%d,%d\n", 250+a+(10+s)*float64(d)+25*rng.NormFloat64(), d, 300+j)
		}
	}
	return writeFile(t, t.TempDir(), "sleep.csv", b.String())
}

// summaryRows reads DIR/summary.csv: variable → mean, sd, mcse_mean,
// ess_bulk.
func summaryRows(t *testing.T, dir string) map[string][4]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][4]float64{}
	for _, r := range recs[1:] {
		var v [4]float64
		for i, col := range []int{1, 2, 3, 7} {
			v[i], _ = strconv.ParseFloat(r[col], 64)
		}
		out[r[0]] = v
	}
	return out
}

// TestRunFormulaAutoDegenerate: with no flag, a sleepstudy-shaped model
// (12 subjects × 10 days, Reaction ~ Days + (Days | Subject)) runs and
// exits 0 — before, the plan's Laplace approximation at the joint mode
// (sd_Subject__Intercept in the hundreds, the negative Hessian not positive
// definite) stopped it with exit 1, and --sampler nuts too. The auto:
// lines name the predicted cost and the fallback to NUTS off the
// degenerate mode. The full test
// compares the population-level, sd, correlation and σ parameters with a
// long NUTS run started at zero on the identity metric (the only set-up
// that ran before): means within 4 combined MCSEs, sds within 4 combined
// relative errors 1/√(2·ESS) — tolerances of at most 0.3 posterior sd and
// 30%, so a run left at the mode's scales (sds 3–6× too large) fails.
func TestRunFormulaAutoDegenerate(t *testing.T) {
	path := sleepCSV(t, 12)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--data", path, "--formula", "Reaction ~ Days + (Days | Subject)", "--quiet", "--out", out}
	if testing.Short() {
		args = append(args, "--target-ess", "100", "--chains", "2")
	}
	code, stdout, stderr := runMain(shortWarmup(args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"auto:     sampler: nuts (predicted work per chain in multiply-adds: NUTS 14,000 full gradients × ",
		"auto:     fallback: the joint mode is degenerate: sd_Subject__Intercept = ", "adapted to the posterior variances in Stan's warm-up windows"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); err != nil {
		t.Fatalf("no summary.csv: %v", err)
	}
	// --sampler nuts alone runs too: the Laplace diagonal at that mode
	// stopped it (exit 1) before.
	code, stdout, stderr = runMain("run", "--data", path, "--formula", "Reaction ~ Days + (Days | Subject)", "--sampler", "nuts",
		"--chains", "2", "--iters", "600", "--burnin", "300", "--quiet")
	if code != 0 || !strings.Contains(stdout, "nuts:     the joint mode is degenerate: sd_Subject__Intercept = ") {
		t.Errorf("--sampler nuts: exit %d: %s\n%s", code, stderr, stdout)
	}
	if testing.Short() {
		return
	}
	ref := filepath.Join(t.TempDir(), "ref")
	code, _, stderr = runMain("run", "--data", path, "--formula", "Reaction ~ Days + (Days | Subject)", "--sampler", "nuts",
		"--precond", "none", "--init", "zero", "--iters", "4000", "--seed", "2", "--quiet", "--out", ref)
	if code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	got, want := summaryRows(t, out), summaryRows(t, ref)
	for _, name := range []string{"b_Intercept", "b_Days", "sd_Subject__Intercept", "sd_Subject__Days", "cor_Subject__Intercept__Days", "sigma"} {
		g, w := got[name], want[name]
		if w[1] == 0 || g[1] == 0 {
			t.Errorf("%s missing from a summary", name)
			continue
		}
		tolM := 4 * math.Hypot(g[2], w[2])
		tolS := 4 * (1/math.Sqrt(2*g[3]) + 1/math.Sqrt(2*w[3]))
		dm, ratio := math.Abs(g[0]-w[0]), g[1]/w[1]
		t.Logf("%-30s default %9.4g (sd %7.4g, ESS %4.0f)  NUTS %9.4g (sd %7.4g, ESS %4.0f)  |Δ|/sd %.3f (tol %.3f)  sd ratio %.3f (tol ±%.3f)",
			name, g[0], g[1], g[3], w[0], w[1], w[3], dm/w[1], tolM/w[1], ratio, tolS)
		if tolM > 0.3*w[1] || tolS > 0.3 {
			t.Errorf("%s: tolerances %.3f sd, %.3f too loose to catch a biased run", name, tolM/w[1], tolS)
		}
		if dm > tolM || math.Abs(ratio-1) > tolS {
			t.Errorf("%s: the default run disagrees with NUTS", name)
		}
	}
}

// TestRunFormulaAutoCosts: on data whose joint mode is not degenerate (4
// groups of 250 bernoulli rows: centred effects; gaussian rows would
// collapse to sufficient statistics, where NUTS costs under a second), the auto: sampler line gives both
// predicted costs — NUTS's and the block-arrow SGLD plan's — in
// multiply-adds of a gradient that counts a row's nonzeros, not N·d.
func TestRunFormulaAutoCosts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	b.WriteString("y,x,g\n")
	for j := 0; j < 4; j++ {
		a, s := 0.8*rng.NormFloat64(), 0.5*rng.NormFloat64()
		for i := 0; i < 250; i++ {
			x := rng.NormFloat64()
			y := 0
			if a+(0.5+s)*x+rng.NormFloat64() > 0 {
				y = 1
			}
			fmt.Fprintf(&b, "%d,%.5f,g%d\n", y, x, j+1)
		}
	}
	path := writeFile(t, t.TempDir(), "wide.csv", b.String())
	code, stdout, stderr := runMain("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--family", "bernoulli", "--target-ess", "100", "--chains", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := ""
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "auto:     sampler: ") {
			line = l
		}
	}
	for _, want := range []string{"predicted work per chain in multiply-adds: NUTS 14,000 full gradients × 3.01e+03 = 4.2e+07", "SGLD (block-arrow plan) ", " is cheaper)"} {
		if !strings.Contains(line, want) {
			t.Errorf("the sampler line lacks %q: %q", want, line)
		}
	}
	if strings.Contains(stdout, "fallback") || strings.Contains(stdout, "not validated") {
		t.Errorf("a fallback or the stochastic-gradient caveat on a mode that is not degenerate:\n%s", stdout)
	}
}
