package main

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// loansPath is the natural-units loans data (formula/testdata/loans.csv,
// written by the formula package's TestLoansData generator): 2,800 rows,
// age in years, income in thousands, the loan amount in currency units.
const loansPath = "../../formula/testdata/loans.csv"

// columnSD returns the sd (divisor n − 1, as R's scale) of a column of a
// CSV file of numbers.
func columnSD(t *testing.T, path, col string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	k := -1
	for j, h := range strings.Split(lines[0], ",") {
		if h == col {
			k = j
		}
	}
	var v []float64
	for _, l := range lines[1:] {
		x, err := strconv.ParseFloat(strings.Split(l, ",")[k], 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, x)
	}
	return stat.StdDev(v, nil)
}

// TestFormulaNaturalUnits: a bernoulli GLM with its predictors in natural
// units (age in years, income in thousands, a loan in currency units:
// spreads 12, 23 and 5,400) samples as cheaply as its scale() version and
// gives the same answer, because the model scales its design inside
// (formula.Model's doc). Unscaled, NUTS ran at the maximum tree depth
// (1,023 gradients an iteration, ε 0.0016; stopped after 580 s of CPU);
// scaled inside: mean n_leapfrog ≈ 6 in every chain (measured 5.9–6.2),
// 4.1 s of CPU against 4.4 s for scale(). The coefficients agree: b_x·sd(x)
// against b_scalex within 4 Monte Carlo standard errors of the difference
// (about 0.1 posterior sd at the bulk-ESS of ~2,000 the runs reach), the
// sds within 4 standard errors of their ratio (about 10%); a tolerance
// looser than 0.2 sd or 20% fails the test as unable to catch a bias.
// With -short both runs warm up for 300 iterations, not 1,000 (half the
// CPU; the kept draws and their ESS stay about the same).
func TestFormulaNaturalUnits(t *testing.T) {
	run := func(formula string) string {
		t.Helper()
		args := []string{"run", "--data", loansPath, "--formula", formula, "--family", "bernoulli", "--quiet"}
		if testing.Short() {
			args = append(args, "--burnin", "300")
		}
		code, stdout, stderr := runMain(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", formula, code, stderr)
		}
		return stdout
	}
	nat := run("default ~ age + income + loan + region")
	for _, line := range strings.Split(nat, "\n") {
		if !strings.HasPrefix(line, "chain ") || !strings.Contains(line, "n_leapfrog") {
			continue
		}
		f := strings.Fields(line)
		leap, _ := strconv.ParseFloat(f[len(f)-1], 64)
		if leap > 15 {
			t.Errorf("natural units: %s: more than 15 gradients an iteration: the design is not scaled inside the model", line)
		}
	}
	if strings.Contains(nat, "saturated the maximum tree depth") {
		t.Errorf("natural units: tree depth saturated:\n%s", nat)
	}
	sc := run("default ~ scale(age) + scale(income) + scale(loan) + region")
	for _, c := range []struct{ nat, sc, col string }{
		{"b_age", "b_scaleage", "age"}, {"b_income", "b_scaleincome", "income"}, {"b_loan", "b_scaleloan", "loan"},
		{"b_regionsouth", "b_regionsouth", ""}, {"b_Intercept", "", ""},
	} {
		if c.sc == "" {
			continue // the intercepts differ: scale() centres the columns
		}
		s := 1.0
		if c.col != "" {
			s = columnSD(t, loansPath, c.col)
		}
		mn, sn, en, essN := summaryStats(t, nat, c.nat)
		ms, ss, es, essS := summaryStats(t, sc, c.sc)
		mn, sn, en = mn*s, sn*s, en*s
		tolM := 4 * math.Hypot(en, es)
		tolS := 4 * (1/math.Sqrt(2*essN) + 1/math.Sqrt(2*essS))
		t.Logf("%s·sd %.4f (sd %.4f, ESS %.0f), %s %.4f (sd %.4f, ESS %.0f): |Δ|/sd %.3f (tol %.3f), sd ratio %.3f (tol ±%.3f)",
			c.nat, mn, sn, essN, c.sc, ms, ss, essS, math.Abs(mn-ms)/ss, tolM/ss, sn/ss, tolS)
		if tolM > 0.2*ss || tolS > 0.2 {
			t.Errorf("%s: tolerances %.3f sd, %.3f too loose to catch a biased run", c.sc, tolM/ss, tolS)
		}
		if math.Abs(mn-ms) > tolM || math.Abs(sn/ss-1) > tolS {
			t.Errorf("%s·sd(%s) = %.4f ± %.4f, %s = %.4f ± %.4f: not the same posterior", c.nat, c.col, mn, sn, c.sc, ms, ss)
		}
	}
}

// TestNUTSTreeDepthWarning: a NUTS run whose trajectories hit the maximum
// tree depth says so after its per-chain lines, as Stan does ("N of M
// iterations saturated the maximum tree depth of D"), with the count and
// what it means for the metric; a run that never hits it does not. When
// the step fell more than 30-fold from the initial metric's to the adapted
// one's (300 loans in natural units, unstandardised: 0.195 → 0.00156), a
// second warning says that the adapted metric, not the initial one, is
// what does not fit.
func TestNUTSTreeDepthWarning(t *testing.T) {
	code, stdout, stderr := runMain("run", "--sampler", "nuts", "--max-depth", "2", "--iters", "400", "--burnin", "200", "--chains", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	re := regexp.MustCompile(`warning:  (\d+) of 400 iterations saturated the maximum tree depth of 2 \(\d+%; mean n_leapfrog \d+\)`)
	m := re.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no tree-depth warning:\n%s", stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 || n > 400 {
		t.Errorf("saturated count %s of 400", m[1])
	}
	if !strings.Contains(stdout, "MH ≈ I does not hold") {
		t.Errorf("the warning does not say the metric does not fit:\n%s", stdout)
	}
	if strings.Contains(stdout, "step fell from") {
		t.Errorf("a step that did not fall is reported as fallen:\n%s", stdout)
	}
	// Natural units without the formula's scaling (a logistic model on
	// unstandardised columns: the loan's coefficient has sd ~10⁻⁵): the
	// initial (Laplace) metric fits, the one warm-up adapts does not.
	b, err := os.ReadFile(loansPath)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.SplitN(string(b), "\n", 302)[:301] {
		f := strings.Split(l, ",")
		sb.WriteString(strings.Join([]string{f[0], f[1], f[2], f[4]}, ",") + "\n")
	}
	path := writeFile(t, t.TempDir(), "loans300.csv", sb.String())
	code, stdout, stderr = runMain("run", "--data", path, "--target", "default", "--standardize=false", "--sampler", "nuts",
		"--chains", "1", "--burnin", "110", "--iters", "130", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "saturated the maximum tree depth of 10") || !regexp.MustCompile(`chain 1's step fell from ε = [0-9.]+ in the first tenth of warm-up, on the initial metric, to ε = 0\.00`).MatchString(stdout) {
		t.Errorf("natural units, unstandardised: no warning that the adapted metric does not fit:\n%s", stdout)
	}
	code, stdout, stderr = runMain("run", "--sampler", "nuts", "--iters", "400", "--burnin", "200", "--chains", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "saturated the maximum tree depth") {
		t.Errorf("a run at tree depth ~3 warns of saturation:\n%s", stdout)
	}
}
