package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formulaCSV writes a gaussian varying-intercept data set: y = 1 + 0.5 x +
// a_g + ε, 6 groups with text labels.
func formulaCSV(t *testing.T, n int) string {
	rng := rand.New(rand.NewPCG(4, 4))
	a := []float64{-1, -0.5, 0, 0.3, 0.8, 1.2}
	var b strings.Builder
	b.WriteString("y,x,g\n")
	for i := 0; i < n; i++ {
		g := rng.IntN(len(a))
		x := rng.NormFloat64()
		fmt.Fprintf(&b, "%g,%g,s%d\n", 1+0.5*x+a[g]+0.5*rng.NormFloat64(), x, g+1)
	}
	return writeFile(t, t.TempDir(), "d.csv", b.String())
}

// shortWarmup returns args, with --burnin 300 appended under -short: a
// formula run's 1,000 warm-up iterations are most of its CPU, and the tests
// that use it check what the run prints and writes, not its precision.
func shortWarmup(args ...string) []string {
	if testing.Short() {
		return append(args, "--burnin", "300")
	}
	return args
}

func TestRunFormula(t *testing.T) {
	path := formulaCSV(t, 150)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runMain(append(shortWarmup("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--target-ess", "100", "--iters", "1500", "--quiet", "--out", out), "--report")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"gaussian regression (formula)", "groups:   g: 6 levels, Intercept (uncorrelated)",
		"auto: prior Intercept ~ student_t(3, ", "auto: prior sigma     ~ student_t(3, 0, 2.5)", "auto: prior b         ~ flat",
		"\nb_Intercept ", "\nb_x ", "\nsd_g__Intercept ", "\nsigma ", "\nr_g[s1,Intercept] ", "\nr_g[s6,Intercept] ", "sampler: nuts"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The summary prints brms's names only: not θ's internal columns of
	// the scaled design, nor the group effects' CmdStan names.
	for _, not := range []string{"\nb.1 ", "\nIntercept ", "\nsd_1.1 ", "\nz_1.", "\nr_1.", "\nr_g.1.1 "} {
		if strings.Contains(stdout, not) {
			t.Errorf("output prints the internal row %q:\n%s", strings.TrimSpace(not), stdout)
		}
	}
	if strings.Contains(stdout, "not validated") {
		t.Error("NUTS run printed the stochastic-gradient caveat")
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "r_g[s6,Intercept]") || strings.Contains(string(page), "z_1.") {
		t.Errorf("report.html does not show the brms names only")
	}
	head, err := os.ReadFile(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(head), ",b_Intercept,b_x,sd_g__Intercept,sigma,r_g.1.1,") {
		t.Errorf("chain-1.csv header lacks the brms names in order")
	}
	checkFormulaHeader(t, string(head), "glmm", "y ~ x + (1 | g)", "gaussian")
}

// checkFormulaHeader checks that a --formula run's chain file names the
// model that was run — model = kind (glmm or glm), its formula and family —
// and not --model's default (logistic) nor the settings the formula path
// does not read (standardize, intercept).
func checkFormulaHeader(t *testing.T, chain, kind, formula, family string) {
	t.Helper()
	chain = "\n" + chain
	for _, want := range []string{"\n# model = " + kind + "\n", "\n# formula = " + formula + "\n", "\n# family = " + family + "\n"} {
		if !strings.Contains(chain, want) {
			t.Errorf("chain file lacks %q", want)
		}
	}
	for _, bad := range []string{"\n# model = logistic", "\n# standardize = ", "\n# intercept = "} {
		if strings.Contains(chain, bad) {
			t.Errorf("chain file has %q: not what the --formula run ran", bad)
		}
	}
	if t.Failed() {
		head, _, _ := strings.Cut(chain, "lp__")
		t.Logf("chain file's header:%s", head)
	}
}

// TestRunFormulaModelHeader: bernoulli formula runs (the family also given
// by its alias, logistic) record the model that was run in their chain
// files — glmm with a group-level term, glm without, the formula and the
// canonical family — not --model's default.
func TestRunFormulaModelHeader(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var b strings.Builder
	b.WriteString("y,x,g\n")
	for i := 0; i < 120; i++ {
		g, x := i%4, rng.NormFloat64()
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-(0.3*float64(g-2)+0.8*x))) {
			y = 1
		}
		fmt.Fprintf(&b, "%d,%g,g%d\n", y, x, g)
	}
	path := writeFile(t, t.TempDir(), "bern.csv", b.String())
	for _, c := range []struct{ formula, family, kind string }{
		{"y ~ x + (1 | g)", "logistic", "glmm"},
		{"y ~ x", "bernoulli", "glm"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, stderr := runMain("run", "--data", path, "--formula", c.formula, "--family", c.family,
			"--sampler", "nuts", "--chains", "2", "--iters", "200", "--burnin", "100", "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.formula, code, stderr)
		}
		chain, err := os.ReadFile(filepath.Join(out, "chain-2.csv"))
		if err != nil {
			t.Fatal(err)
		}
		checkFormulaHeader(t, string(chain), c.kind, c.formula, "bernoulli")
	}
}

func TestRunFormulaErrors(t *testing.T) {
	path := formulaCSV(t, 30)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--formula", "y ~ x + (1 | g"}, "--formula: formula: column 15: expected ')'"},
		{[]string{"--formula", "y ~ x + z"}, "column 9: no column \"z\" in the data"},
		{[]string{"--formula", "y ~ x", "--family", "weibull"}, "family \"weibull\": expected one of"},
		{[]string{"--formula", "y ~ x", "--family", "poisson"}, "the poisson family expects a count"},
		{[]string{"--formula", "y ~ x", "--priors", "b ~ normal(0)"}, "--priors: prior \"normal(0)\": normal takes 2 arguments"},
		{[]string{"--formula", "y ~ x", "--priors", "sd ~ normal(0, 1)"}, "prior on sd: the model has no parameter of that class"},
		// flags a --formula run does not read, and --formula's flags without it
		{[]string{"--formula", "y ~ x", "--model", "linear"}, "--model: not used here: --formula names the model"},
		{[]string{"--formula", "y ~ x", "--target", "x"}, "--target: not used here: --formula names"},
		{[]string{"--formula", "y ~ x", "--standardize=false"}, "--standardize: not used here: --formula names"},
		{[]string{"--formula", "y ~ x", "--test-frac", "0.2"}, "--test-frac: not used here: --formula names"},
		{[]string{"--family", "poisson"}, "--family: not used here: only with --formula"},
		{[]string{"--priors", "b ~ normal(0, 1)"}, "--priors: not used here: only with --formula"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(append([]string{"run", "--data", path, "--quiet"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunFormulaSGLDCaveat: a stochastic-gradient sampler on a model with
// group-level terms prints the caveat; NUTS does not (TestRunFormula).
func TestRunFormulaSGLDCaveat(t *testing.T) {
	path := formulaCSV(t, 150)
	code, stdout, stderr := runMain("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--sampler", "sgld", "--iters", "3000", "--burnin", "1000", "--thin", "5", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "warning:  a stochastic-gradient sampler on a model with group-level terms is not validated") {
		t.Errorf("no caveat:\n%s", stdout)
	}
}

// TestPredictFormula: predict on a --formula run rebuilds the model from
// model.json's record and predicts new rows; a level the training data did
// not have is named and predicted by the rule: at the population level by
// default (the interval of a known level's row is no wider), from the
// group distribution with --new-levels sample (its interval wider: the
// between-group spread), refused with --new-levels error (exit 2). A
// changed training file is refused.
func TestPredictFormula(t *testing.T) {
	path := formulaCSV(t, 150)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runMain(shortWarmup("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--target-ess", "100", "--iters", "1500", "--quiet", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	newData := writeFile(t, t.TempDir(), "new.csv", "y,x,g\n1.5,0.2,s3\n1.5,0.2,s99\n")
	width := func(args ...string) (known, unseen float64, stdout string) {
		code, stdout, stderr := runMain(append([]string{"predict", "--samples", out, "--data", newData}, args...)...)
		if code != 0 {
			t.Fatalf("predict %v: exit %d: %s", args, code, stderr)
		}
		for _, line := range strings.Split(stdout, "\n") {
			var row int
			var m, lo, hi float64
			if n, _ := fmt.Sscanf(strings.TrimSpace(line), "%d %g %g %g", &row, &m, &lo, &hi); n == 4 {
				if row == 1 {
					known = hi - lo
				} else {
					unseen = hi - lo
				}
			}
		}
		return known, unseen, stdout
	}
	k1, u1, s1 := width()
	if !strings.Contains(s1, "new level: g: s99") || !strings.Contains(s1, "new levels: population") {
		t.Errorf("predict does not name the new level and the rule:\n%s", s1)
	}
	_, u2, _ := width("--new-levels", "sample")
	if !(k1 > 0 && u1 > 0 && u2 > 1.5*u1) {
		t.Errorf("interval widths: known level %.3g, new level population %.3g, sampled %.3g: sampling the new level's effect should widen it", k1, u1, u2)
	}
	if code, _, stderr := runMain("predict", "--samples", out, "--data", newData, "--new-levels", "error"); code != 2 || !strings.Contains(stderr, `level "s99"`) {
		t.Errorf("--new-levels error: exit %d, %s", code, stderr)
	}
	if err := os.WriteFile(path, []byte("y,x,g\n1,1,s1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain("predict", "--samples", out, "--data", newData); code != 2 || !strings.Contains(stderr, "changed since the run") {
		t.Errorf("changed training data: exit %d, %s", code, stderr)
	}
}

// TestRunFormulaBlockPlan: a hierarchical logistic model with 50 groups of
// 400 rows (d = 105 > 100, exact NUTS too costly by the rule) takes the
// plan's block-arrow path with no tuning flag: centred effects, the
// block-arrow preconditioner, batch and step by rule printed as auto:
// lines, no stochastic-gradient caveat, and it stops at the ESS target.
func TestRunFormulaBlockPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("SGLD on 20,000 rows, ≈ 7 s of CPU")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	b.WriteString("y,x,g\n")
	a, s := make([]float64, 50), make([]float64, 50)
	for j := range a {
		a[j], s[j] = 0.8*rng.NormFloat64(), 0.5*rng.NormFloat64()
	}
	for i := 0; i < 20000; i++ {
		g, x := i%50, rng.NormFloat64()
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-(-0.5+a[g]+(0.7+s[g])*x))) {
			y = 1
		}
		fmt.Fprintf(&b, "%d,%g,g%02d\n", y, x, g)
	}
	path := writeFile(t, t.TempDir(), "blk.csv", b.String())
	code, stdout, stderr := runMain("run", "--data", path, "--formula", "y ~ x + (1 + x | g)", "--family", "bernoulli", "--target-ess", "100", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"effects centred", "auto:     preconditioner: block-arrow Laplace", "auto:     batch: ", "ran until min bulk-ESS", "auto:     stop: min bulk-ESS ≥ 100 over all 105 parameters; R̂ ≤ 1.01", "on the population-level parameters and"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "not validated") {
		t.Error("the block-arrow path printed the caveat of the unvalidated stochastic-gradient path")
	}
}
