package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// A network with a Bernoulli likelihood is a classifier: the run's first
// line names its likelihood, not "mlp regression" (as it did before).
func TestRunMLPTitleNamesTheLikelihood(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{"moons", "mlp, bernoulli likelihood on moons"},
		// gaussian: the noise rule may make a 3-unit network heteroscedastic
		// (its misfit of sin 2x + 0.5x leaves residuals that vary with x),
		// which the title then says after the likelihood.
		{"gap1d", "mlp, gaussian likelihood"},
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

// cSGLD on the 25-mode mixture at the default step and cycles: the run no
// longer takes the Laplace preconditioner of one mode (which kept every
// chain in one mode: sd 0.17 against the mixture's 2.8), its cycles' peak
// η₀ = 7/(3λ) = 0.07 exceeds a mode's stability limit 2/λ = 0.06 (the old
// default 0.01 stayed in the starting mode: sd 0.18), there are 30 cycles
// (the old default 1 explored once), and it says so. A --step within the
// stability limit is warned about, and so is csghmc at its default (its
// momentum diverges beyond the limit instead of moving between modes).
func TestRunMultimodalDefaultPrecond(t *testing.T) {
	args := []string{"run", "--model", "mixture25", "--sampler", "csgld",
		"--iters", "20000", "--burnin", "0", "--thin", "10", "--chains", "2", "--quiet", "--out", t.TempDir() + "/run"}
	code, out, errOut := runMain(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "auto:     precond: none (the target has 25 modes") {
		t.Errorf("the output does not say why the preconditioner is off:\n%s", out)
	}
	if !strings.Contains(out, "auto:     step: η₀ = 0.07 = 7/(3λ)") || !strings.Contains(out, "30 cycles") {
		t.Errorf("the output does not give the exploring step rule and the cycles:\n%s", out)
	}
	code, hmc, errOut := runMain("run", "--model", "mixture25", "--sampler", "csghmc",
		"--iters", "2000", "--burnin", "0", "--chains", "1", "--quiet", "--out", t.TempDir()+"/hmc")
	if code != 0 || !strings.Contains(hmc, "its cycles will not leave the starting mode") || !strings.Contains(hmc, "--sampler csgld leaves the modes by default") {
		t.Errorf("csghmc at the default: exit %d, no note that it stays in one mode and what would not:\n%s%s", code, hmc, errOut)
	}
	code, low, errOut := runMain("run", "--model", "mixture25", "--sampler", "csgld", "--step", "0.01",
		"--iters", "2000", "--burnin", "0", "--chains", "1", "--quiet", "--out", t.TempDir()+"/low")
	if code != 0 || !strings.Contains(low, "will not leave its starting mode; the default η₀ = 0.07 would") {
		t.Errorf("--step 0.01: exit %d, no warning that the chain stays in one mode:\n%s%s", code, low, errOut)
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

// predict --split test scores exactly the rows the run held out: its
// accuracy and NLL equal the run's test-set table. A run's data of another
// length, or a generated data set, are input errors naming --split.
func TestPredictSplitTest(t *testing.T) {
	dir := t.TempDir() + "/run"
	code, out, errOut := runMain("run", "--sampler", "nuts", "--iters", "200", "--burnin", "100", "--chains", "1", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	var acc, lpd string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "accuracy":
			acc = f[1]
		case len(f) >= 5 && f[0] == "mean" && f[1] == "log":
			lpd = strings.TrimPrefix(f[4], "-")
		}
	}
	code, pout, errOut := runMain("predict", "--samples", dir, "--data", "australian", "--split", "test")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	if acc == "" || !strings.Contains(pout, "138 test rows") || !strings.Contains(pout, "accuracy "+acc+" ") || !strings.Contains(pout, "NLL "+lpd+" ") {
		t.Errorf("predict --split test does not score the run's test rows (run: accuracy %s, NLL %s):\n%s", acc, lpd, pout)
	}
	csv := t.TempDir() + "/short.csv"
	_, part := data.TrainTest(data.Australian(), 0.3, 1)
	perm := make([]int, part.Dim())
	for j := range perm {
		perm[j] = j
	}
	writeDatasetCSV(t, csv, part, perm, true)
	for _, args := range [][]string{
		{"--data", csv, "--target", part.Target, "--split", "test"},
		{"--data", "australian", "--split", "held-out"},
	} {
		code, _, errOut := runMain(append([]string{"predict", "--samples", dir}, args...)...)
		if code != 2 || !strings.Contains(errOut, "--split") {
			t.Errorf("%v: exit %d, %q; want 2 naming --split", args, code, errOut)
		}
	}
}

// compare warns when a run's density would be drawn from fewer than 100
// draws (the documented example kept 8 SGLD draws and drew their "density"
// without a word), and not when every run has enough.
func TestCompareWarnsOnFewDraws(t *testing.T) {
	dir := t.TempDir()
	for _, r := range [][]string{
		{"--sampler", "sgld", "--iters", "2000", "--burnin", "500", "--chains", "2", "--out", dir + "/sgld"}, // thin 450: 8 draws
		{"--sampler", "mala", "--iters", "300", "--burnin", "100", "--chains", "2", "--out", dir + "/mala"},
	} {
		if code, _, errOut := runMain(append([]string{"run", "--quiet"}, r...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", r, code, errOut)
		}
	}
	code, out, errOut := runMain("compare", dir+"/sgld", dir+"/mala", "--names", "SGLD,MALA", "--out", dir+"/cmp")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "warning: SGLD has 8 draws") || strings.Contains(out, "warning: MALA") {
		t.Errorf("compare does not warn about SGLD's 8 draws alone:\n%s", out)
	}
	code, out, _ = runMain("compare", dir+"/mala", dir+"/mala", "--names", "a,b")
	if code != 0 || strings.Contains(out, "warning:") {
		t.Errorf("compare of two 400-draw runs: exit %d, warned:\n%s", code, out)
	}
}

// A decaying-step run's summary has the step-weighted estimator
// Σηₜθₜ/Σηₜ (lecture notes (3.8)); a constant-step run's has not (there it
// is the plain mean). Main printed neither.
func TestRunStepWeightedEstimator(t *testing.T) {
	base := []string{"run", "--sampler", "sgld", "--step", "0.01", "--iters", "2000", "--burnin", "200", "--thin", "5", "--chains", "2", "--quiet"}
	code, out, errOut := runMain(append(base, "--schedule", "poly", "--out", t.TempDir()+"/poly")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "weighted: step-weighted means Σηₜθₜ/Σηₜ") || !strings.Contains(out, "intercept ") {
		t.Errorf("a decaying-step run prints no step-weighted means:\n%s", out)
	}
	code, out, errOut = runMain(append(base, "--schedule", "const", "--out", t.TempDir()+"/const")...)
	if code != 0 || strings.Contains(out, "weighted:") {
		t.Errorf("constant step: exit %d (%s), weighted line printed:\n%s", code, errOut, out)
	}
}

// --sampler adam, adagrad and rmsprop (lecture notes' Note 15; main had
// none of them in the command) run from zero to the MAP: 20,000 steps end
// within 0.05 of L-BFGS's MAP; 200 steps of Adam do not (the check can
// fail).
func TestRunAdamOptimiser(t *testing.T) {
	for _, opt := range []string{"adagrad", "rmsprop"} {
		code, out, errOut := runMain("run", "--sampler", opt, "--iters", "20000", "--init", "zero", "--chains", "1", "--quiet", "--out", t.TempDir()+"/"+opt)
		_, after, _ := strings.Cut(out, "max |θ − MAP| = ")
		if f := strings.Fields(after); code != 0 || len(f) == 0 {
			t.Errorf("--sampler %s: exit %d: %s%s", opt, code, out, errOut)
		} else if v, err := strconv.ParseFloat(f[0], 64); err != nil || v > 0.05 {
			t.Errorf("--sampler %s after 20,000 steps: %s from the MAP; want ≤ 0.05", opt, f[0])
		}
	}
	dist := func(iters string) float64 {
		code, out, errOut := runMain("run", "--sampler", "adam", "--iters", iters, "--init", "zero", "--chains", "1", "--quiet", "--out", t.TempDir()+"/adam"+iters)
		if code != 0 {
			t.Fatalf("--iters %s: exit %d: %s", iters, code, errOut)
		}
		_, after, ok := strings.Cut(out, "max |θ − MAP| = ")
		if !ok {
			t.Fatalf("no distance to the MAP in:\n%s", out)
		}
		v, err := strconv.ParseFloat(strings.Fields(after)[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if d := dist("20000"); d > 0.05 {
		t.Errorf("Adam after 20,000 steps: %g from the MAP; want ≤ 0.05", d)
	}
	if d := dist("200"); d <= 0.05 {
		t.Errorf("Adam after 200 steps from zero: %g from the MAP: the check cannot fail", d)
	}
}

// run --sampler psgld --gamma adds Li et al.'s correction Γ (main could not
// ask for it): the same seed gives other draws with it than without, and the
// flag is refused by another sampler.
func TestRunPSGLDGamma(t *testing.T) {
	args := []string{"run", "--sampler", "psgld", "--iters", "1000", "--burnin", "200", "--thin", "5", "--chains", "1", "--quiet"}
	code, plain, errOut := runMain(append(args, "--out", t.TempDir()+"/plain")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, gamma, errOut := runMain(append(args, "--gamma", "--out", t.TempDir()+"/gamma")...)
	if code != 0 {
		t.Fatalf("--gamma: exit %d: %s", code, errOut)
	}
	table := func(out string) string { s, _, _ := strings.Cut(out, "\n\ndraws:"); return s }
	if table(plain) == table(gamma) {
		t.Error("--gamma changed no draw: the correction is not applied")
	}
	if code, _, errOut := runMain("run", "--sampler", "sgld", "--gamma", "--quiet"); code != 2 || !strings.Contains(errOut, "--gamma") {
		t.Errorf("--sampler sgld --gamma: exit %d, %q; want 2 naming --gamma", code, errOut)
	}
}

// The noise model of a regression network: --noise-model hetero and homo
// are obeyed, --noise-var means homoscedastic, with no flag the rule's
// auto: noise: line is printed with its numbers, and a bad value is a
// usage error naming the flag.
func TestRunNoiseModelFlags(t *testing.T) {
	base := []string{"run", "--model", "mlp", "--data", "gap1d", "--n", "100", "--hidden", "3",
		"--sampler", "sgld", "--iters", "40", "--burnin", "20", "--chains", "1", "--quiet"}
	for _, tc := range []struct {
		args        []string
		title, note string
	}{
		{[]string{"--noise-model", "hetero"}, "with heteroscedastic noise", "as --noise-model asks"},
		{[]string{"--noise-model", "homo"}, "mlp, gaussian likelihood on gap1d", ""},
		{[]string{"--noise-var", "0.01"}, "mlp, gaussian likelihood on gap1d", "as --noise-var/--learn-noise ask"},
		{nil, "mlp, gaussian likelihood", "held-out log density per row"},
	} {
		code, out, errOut := runMain(append(append(base, tc.args...), "--out", t.TempDir()+"/run")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		first, _, _ := strings.Cut(out, "\n")
		if !strings.Contains(first, tc.title) {
			t.Errorf("%v: first line %q, want %q in it", tc.args, first, tc.title)
		}
		if tc.note != "" && !strings.Contains(out, "auto:     noise: ") || !strings.Contains(out, tc.note) {
			t.Errorf("%v: no auto: noise: line with %q:\n%s", tc.args, tc.note, out)
		}
	}
	code, _, errOut := runMain(append(base, "--noise-model", "both", "--out", t.TempDir()+"/run")...)
	if code != 2 || !strings.Contains(errOut, "--noise-model") {
		t.Errorf("--noise-model both: exit %d, %q: want exit 2 naming the flag", code, errOut)
	}
}
