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

func TestRunFormula(t *testing.T) {
	path := formulaCSV(t, 150)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runMain("run", "--data", path, "--formula", "y ~ x + (1 | g)", "--target-ess", "100", "--iters", "1500", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"gaussian regression (formula)", "groups:   g: 6 levels, Intercept (uncorrelated)",
		"auto: prior Intercept ~ student_t(3, ", "auto: prior sigma     ~ student_t(3, 0, 2.5)", "auto: prior b         ~ flat",
		"\nb_Intercept ", "\nb_x ", "\nsd_g__Intercept ", "\nsigma ", "\nr_g.6.1 ", "sampler: nuts"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "not validated") {
		t.Error("NUTS run printed the stochastic-gradient caveat")
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
