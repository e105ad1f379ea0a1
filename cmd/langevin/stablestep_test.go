package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/stancsv"
)

// writeInteractionCSV writes a linear-regression design on raw, correlated
// features with an interaction term — x₁ ~ N(30, 8²), x₂ = 0.6x₁ + N(0, 5²),
// x₁x₂, y = 2 + 0.5x₁ − 0.3x₂ + 0.01x₁x₂ + N(0, 18²) — as dir/train.csv
// (434 rows) and dir/test.csv (100 rows). Unstandardised, its posterior
// correlations are near ±1: λmax(MH) = 340 with the diagonal Laplace M.
func writeInteractionCSV(t *testing.T, dir string) (train, test string) {
	rng := rand.New(rand.NewPCG(434, 1))
	for _, f := range []struct {
		name string
		n    int
	}{{"train.csv", 434}, {"test.csv", 100}} {
		var b strings.Builder
		b.WriteString("x1,x2,x1x2,y\n")
		for i := 0; i < f.n; i++ {
			x1 := 30 + 8*rng.NormFloat64()
			x2 := 0.6*x1 + 5*rng.NormFloat64()
			y := 2 + 0.5*x1 - 0.3*x2 + 0.01*x1*x2 + 18*rng.NormFloat64()
			fmt.Fprintf(&b, "%v,%v,%v,%v\n", x1, x2, x1*x2, y)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
}

// interactionRun runs SGLD (--sampler sgld, batch 20) on the interaction design with extra
// flags and returns every column's pooled mean and sd (intercept, beta.1–3,
// log_sigma2, sigma2), the exact posterior's, and the output.
func interactionRun(t *testing.T, extra ...string) (mean, sd, exMean, exSD []float64, out string) {
	dir := t.TempDir()
	train, test := writeInteractionCSV(t, dir)
	outDir := filepath.Join(dir, "out")
	args := append([]string{"run", "--sampler", "sgld", "--model", "linear", "--data", train, "--test", test, "--standardize=false",
		"--batch", "20", "--noise-every", "0", "--quiet", "--out", outDir}, extra...)
	code, out, errOut := runMain(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d, err := data.ReadCSV(train, data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Spec{Kind: "linear"}.Build(d.X, d.Y)
	if err != nil {
		t.Fatal(err)
	}
	p := m.(*model.Linear).Posterior()
	exMean = append(p.Mean(), p.Sigma2Mean())
	exSD = append(p.SD(), p.Sigma2SD())
	names := []string{"intercept", "beta.1", "beta.2", "beta.3", "log_sigma2", "sigma2"}
	s, ss := make([]float64, len(names)), make([]float64, len(names))
	n := 0
	for c := 1; c <= 4; c++ {
		f, err := stancsv.ReadFile(filepath.Join(outDir, fmt.Sprintf("chain-%d.csv", c)))
		if err != nil {
			t.Fatal(err)
		}
		for j, name := range names {
			col, ok := f.Column(name)
			if !ok {
				t.Fatalf("no column %s", name)
			}
			for _, x := range col {
				s[j] += x
				ss[j] += x * x
			}
		}
		n += len(f.Draws)
	}
	mean, sd = make([]float64, len(names)), make([]float64, len(names))
	for j := range names {
		mean[j] = s[j] / float64(n)
		sd[j] = math.Sqrt(ss[j]/float64(n) - mean[j]*mean[j])
	}
	return mean, sd, exMean, exSD, out
}

// interactionCheck returns the columns whose mean is not within 0.1 exact sd
// or whose sd is not within 10% of the exact sd, and a line of all errors.
func interactionCheck(mean, sd, exMean, exSD []float64) (fails []string, all string) {
	names := []string{"intercept", "beta.1", "beta.2", "beta.3", "log_sigma2", "sigma2"}
	for j, name := range names {
		e, r := (mean[j]-exMean[j])/exSD[j], sd[j]/exSD[j]
		all += fmt.Sprintf("%s: mean %+.3f sd, sd ×%.3f; ", name, e, r)
		if !(math.Abs(e) < 0.1 && math.Abs(r-1) < 0.1) {
			fails = append(fails, name)
		}
	}
	return fails, all
}

// TestRunSGLDStabilityCap: on the unstandardised interaction design SGLD's
// default step is capped by η·λmax(MH) ≤ 0.1 (λmax(MH) = 340 with the
// diagonal Laplace preconditioner; the noise-fraction rule's 0.1·B/N =
// 4.6e-3 has η·λmax = 1.57) and the output says so; with it every mean is
// within 0.1 exact sd and every sd (σ² included) within 10% of the exact NIG
// posterior's. The run length is given (3·10⁶ iterations, min bulk-ESS about
// 500): the default 5·10⁵ gives a bulk-ESS near 60 at the capped step, which
// the summary's warnings flag. The same run at the old default step fails
// (log σ² 1.9 sd off, its sd 13% small, σ² 1.13× exact).
func TestRunSGLDStabilityCap(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 12·10⁶ SGLD iterations")
	}
	long := []string{"--iters", "3000000", "--burnin", "100000", "--thin", "1000"}
	mean, sd, exMean, exSD, out := interactionRun(t, long...)
	for _, want := range []string{"step:     η = 0.000294 = κ/λmax(MH), the stability cap η·λmax(MH) ≤ κ = 0.1 (λmax(MH) = 340 at the MAP",
		"the noise-fraction rule's 0.00461 would have η·λmax(MH) = 1.57"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	fails, all := interactionCheck(mean, sd, exMean, exSD)
	t.Logf("capped default step: %s", all)
	if len(fails) > 0 {
		t.Errorf("off the exact posterior: %v", fails)
	}
	// The old default step 0.1·B/N, given explicitly (a shorter run: its
	// bias is many Monte Carlo errors).
	mean, sd, exMean, exSD, out = interactionRun(t, "--step", fmt.Sprint(0.1*20/434.0), "--iters", "500000", "--burnin", "50000", "--thin", "200")
	fails, all = interactionCheck(mean, sd, exMean, exSD)
	t.Logf("old default step 0.1·B/N: %s", all)
	if len(fails) == 0 {
		t.Errorf("the old default step passed: %s", all)
	}
	if !strings.Contains(out, "warning:  --step 0.00461: η·λmax(MH) = 1.57 > 0.1") {
		t.Errorf("no warning for the old step:\n%s", out)
	}
}

// TestRunSGLDStepWarning: a user's --step beyond the budget or the stability
// limit is kept, with a warning naming the step, λmax(MH) and the largest
// stable step — on stderr before the run (an unstable run may diverge and
// leave nothing to summarise) and in the summary.
func TestRunSGLDStepWarning(t *testing.T) {
	dir := t.TempDir()
	train, test := writeInteractionCSV(t, dir)
	for _, tc := range []struct {
		step, want string
		code       int
	}{
		{"0.001", "warning:  --step 0.001: η·λmax(MH) = 0.34 > 0.1 (λmax(MH) = 340) inflates a posterior variance by up to 20%: the largest stable step is 0.00588", 0},
		// Unstable at the MAP's curvature; the chain escapes to a larger σ²,
		// where XᵀX/σ² is flatter, instead of diverging (σ² 522 vs 285).
		{"0.01", "warning:  --step 0.01 is unstable: η·λmax(MH) = 3.4 ≥ 2 (λmax(MH) = 340): the largest stable step is 0.00588", 0},
	} {
		code, out, errOut := runMain("run", "--model", "linear", "--data", train, "--test", test, "--standardize=false",
			"--batch", "20", "--quiet", "--iters", "3000", "--burnin", "1000", "--thin", "10", "--step", tc.step)
		if code != tc.code {
			t.Errorf("--step %s: exit %d, want %d: %s", tc.step, code, tc.code, errOut)
		}
		if !strings.Contains(errOut, "langevin run: "+tc.want) {
			t.Errorf("--step %s: stderr lacks %q:\n%s", tc.step, tc.want, errOut)
		}
		if tc.code == 0 && !strings.Contains(out, tc.want) {
			t.Errorf("--step %s: output lacks %q:\n%s", tc.step, tc.want, out)
		}
	}
}

// TestRunSGLDDefaultPlan: --sampler sgld with no --step, --iters or
// --precond runs on --sampler auto's plan with SGLD forced — the dense
// Laplace preconditioner (MH ≈ I), sampler.ChooseStep's step, control
// variates where they pay, run until --target-ess — and prints its rules.
// On the unstandardised interaction design every mean is within 0.1 exact
// sd and every sd (σ² included) within 10% of the exact NIG posterior's, and
// every R̂ ≤ 1.01. The target ESS 2000 (Monte Carlo error of a mean 0.022
// sd) leaves the 0.1-sd tolerance at 4.5 standard errors. The old default
// (the capped step with the diagonal preconditioner and 500,000 iterations)
// gave R̂ 1.07 and a bulk-ESS of 35 on the real kidiq data.
func TestRunSGLDDefaultPlan(t *testing.T) {
	mean, sd, exMean, exSD, out := interactionRun(t, "--sampler", "sgld", "--target-ess", "2000", "--thin", "10")
	for _, want := range []string{"auto:     sampler: sgld (asked for)",
		"auto:     preconditioner: dense Laplace covariance",
		"auto:     step η =", "auto:     control variates pay",
		"auto:     length: ran until min bulk-ESS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	fails, all := interactionCheck(mean, sd, exMean, exSD)
	t.Logf("default --sampler sgld: %s", all)
	if len(fails) > 0 {
		t.Errorf("off the exact posterior: %v", fails)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "coefficients named after the columns") {
			break // the same coefficients, named after the columns
		}
		f := strings.Fields(line)
		if len(f) != 10 || f[0] == "variable" {
			continue
		}
		var rhat float64
		if _, err := fmt.Sscan(f[9], &rhat); err != nil {
			continue
		}
		rows++
		if !(rhat <= 1.01) {
			t.Errorf("%s: R-hat %v > 1.01", f[0], rhat)
		}
	}
	if rows != 6 {
		t.Errorf("%d summary rows, want 6:\n%s", rows, out)
	}
}
