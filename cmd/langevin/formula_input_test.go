package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// trigamma returns ψ′(x) for x > 0: the recurrence up to x ≥ 10, then the
// asymptotic series (error below 1e-12 there).
func trigamma(x float64) float64 {
	var s float64
	for ; x < 10; x++ {
		s += 1 / (x * x)
	}
	x2 := 1 / (x * x)
	return s + 1/x + x2/2 + (1/x)*x2*(1.0/6-x2*(1.0/30-x2*(1.0/42-x2/30)))
}

// summaryStats returns the mean, sd, mcse and bulk-ESS of a summary row.
func summaryStats(t *testing.T, out, name string) (mean, sd, mcse, ess float64) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 8 && f[0] == name {
			v := make([]float64, 8)
			for k := 1; k < 8; k++ {
				v[k], _ = strconv.ParseFloat(f[k], 64)
			}
			return v[1], v[2], v[3], v[7]
		}
	}
	t.Fatalf("no row %q in\n%s", name, out)
	return
}

// TestRunFormulaTrials: y | trials(n) on the command line (--family
// binomial), against the exact posterior. With the flat prior on the
// intercept, y ~ Binomial(n, p) in cells of 3–12 trials and p = logistic(α),
// the posterior of p is Beta(S, N − S) (S successes of N trials), so
// b_Intercept = logit(p) has mean ψ(S) − ψ(N − S) and variance
// ψ′(S) + ψ′(N − S). The run's mean must lie within 4 MCSE and its sd
// within 4 Monte Carlo sds (sd/√(2·ESS)). A formula with trials under
// another family is an input error (exit 2) that says to use the binomial
// family.
func TestRunFormulaTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	b.WriteString("succ,n\n")
	S, N := 0, 0
	for i := 0; i < 40; i++ {
		n := 3 + rng.IntN(10)
		s := 0
		for k := 0; k < n; k++ {
			if rng.Float64() < 0.3 {
				s++
			}
		}
		S, N = S+s, N+n
		fmt.Fprintf(&b, "%d,%d\n", s, n)
	}
	path := writeFile(t, t.TempDir(), "cells.csv", b.String())
	code, stdout, stderr := runMain("run", "--data", path, "--formula", "succ | trials(n) ~ 1", "--family", "binomial",
		"--priors", "Intercept ~ flat", "--quiet", "--target-ess", "1000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantMean := mathext.Digamma(float64(S)) - mathext.Digamma(float64(N-S))
	wantSD := math.Sqrt(trigamma(float64(S)) + trigamma(float64(N-S)))
	mean, sd, mcse, ess := summaryStats(t, stdout, "b_Intercept")
	sdErr := wantSD / math.Sqrt(2*ess)
	t.Logf("S = %d of N = %d: b_Intercept %.4f ± %.4f (mcse %.4f, ESS %.0f), exact %.4f ± %.4f", S, N, mean, sd, mcse, ess, wantMean, wantSD)
	if math.Abs(mean-wantMean) > 4*mcse || math.Abs(sd-wantSD) > 4*sdErr {
		t.Errorf("b_Intercept %.4f ± %.4f, exact Beta(%d, %d) posterior of the logit: %.4f ± %.4f (mcse %.4f, sd's MC sd %.4f)", mean, sd, S, N-S, wantMean, wantSD, mcse, sdErr)
	}
	if !strings.Contains(stdout, "binomial regression (formula)") {
		t.Errorf("output does not name the binomial family:\n%s", stdout)
	}

	code, _, stderr = runMain("run", "--data", path, "--formula", "succ | trials(n) ~ 1", "--quiet")
	if code != 2 || !strings.Contains(stderr, "trials(n)") || !strings.Contains(stderr, "--family binomial") {
		t.Errorf("trials with the gaussian family: exit %d, %s", code, stderr)
	}
}

// TestRunFormulaMissing: --missing drop with --formula drops the rows with
// a missing value in a column the formula uses (not in the others), says
// how many per column, and gives the draws of the file without those rows
// bit for bit; without it the error (exit 2) names the line and column,
// the count per column, and --missing drop.
func TestRunFormulaMissing(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var full, kept strings.Builder
	full.WriteString("y,x,note,z\n")
	kept.WriteString("y,x,note,z\n")
	for i := 0; i < 120; i++ {
		x, z := rng.NormFloat64(), rng.NormFloat64()
		y := fmt.Sprintf("%.4f", 1+0.5*x-0.3*z+0.4*rng.NormFloat64())
		xs, zs, note := fmt.Sprintf("%.4f", x), fmt.Sprintf("%.4f", z), "ok"
		drop := false
		switch {
		case i%17 == 5:
			xs, drop = "NA", true
		case i%23 == 7:
			y, drop = "", true
		case i%29 == 3:
			xs, y, drop = "NA", "NA", true
		case i%11 == 2:
			note = "NA" // not a column of the formula: kept
		}
		line := y + "," + xs + "," + note + "," + zs + "\n"
		full.WriteString(line)
		if !drop {
			kept.WriteString(line)
		}
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "na.csv", full.String())
	clean := writeFile(t, dir, "clean.csv", kept.String())
	args := []string{"--formula", "y ~ x + z", "--quiet", "--target-ess", "100", "--chains", "2"}

	code, _, stderr := runMain(append([]string{"run", "--data", path}, args...)...)
	if code != 2 || !strings.Contains(stderr, `na.csv:5:1: missing value ("NA") in column "y"`) || !strings.Contains(stderr, `column "x": 11 rows have one`) ||
		!strings.Contains(stderr, `column "y": 9 rows have one`) || !strings.Contains(stderr, "--missing drop") {
		t.Errorf("without --missing drop: exit %d, %s", code, stderr)
	}
	code, dropped, stderr := runMain(append([]string{"run", "--data", path, "--missing", "drop", "--out", filepath.Join(dir, "run")}, args...)...)
	if code != 0 {
		t.Fatalf("--missing drop: exit %d: %s", code, stderr)
	}
	if !strings.Contains(dropped, `warning:  rows containing missing values were excluded from the model (--missing drop): 16 of 120 rows dropped for a missing value in a column the formula uses (by column: "y" 9, "x" 11)`) {
		t.Errorf("--missing drop: no count of the rows dropped:\n%s", dropped)
	}
	code, want, stderr := runMain(append([]string{"run", "--data", clean}, args...)...)
	if code != 0 {
		t.Fatalf("the file without those rows: exit %d: %s", code, stderr)
	}
	table := func(out string) string { // the summary's rows
		var rows []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "b_") || strings.HasPrefix(l, "sigma ") {
				rows = append(rows, l)
			}
		}
		return strings.Join(rows, "\n")
	}
	if got, w := table(dropped), table(want); got != w || got == "" {
		t.Errorf("--missing drop's summary:\n%s\nthe file without those rows:\n%s", got, w)
	}
}
