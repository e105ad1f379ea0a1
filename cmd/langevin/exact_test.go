package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRunExactSamplers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--sampler", "nuts", "--warmup", "300", "--iters", "600"},
			[]string{"NUTS (full data)", "tuning:   dual, target accept_stat 0.8, warm-up 300", "chain 4:  ε =", "divergences", "mean tree depth", "accuracy"}},
		{[]string{"--sampler", "mala", "--warmup", "500", "--iters", "1500", "--target-accept", "0.6"},
			[]string{"MALA (full data)", "target accept_stat 0.6", "chain 1:  η ="}},
		{[]string{"--sampler", "rwm", "--warmup", "450", "--iters", "1500", "--tune", "grid"},
			[]string{"RWM (full data)", "tuning:   grid", "chain 1:  σ ="}},
		{[]string{"--sampler", "mala", "--tune", "none", "--step", "0.01", "--precond", "none", "--burnin", "100", "--iters", "600"},
			[]string{"chain 1:  η = 0.01,"}},
		{[]string{"--sampler", "nuts", "--metric", "dense", "--warmup", "300", "--iters", "600"},
			[]string{"dense metric", "divergences"}},
		{[]string{"--sampler", "mala", "--metric", "dense", "--warmup", "300", "--iters", "1300"},
			[]string{"dense metric", "chain 2:  η ="}},
	} {
		code, out, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// Without --iters/--burnin the exact samplers run their own defaults, not
// SGLD's 500000/50000/450, and write Stan's sampler statistics.
func TestRunExactDefaultsAndCSV(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain("run", "--quiet", "--sampler", "nuts", "--chains", "2", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "2 chains × 1000 kept (iterations 1001–2000, thin 1); 1000 burn-in") {
		t.Errorf("NUTS defaults not 1000 + 1000, thin 1:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,intercept") {
		t.Errorf("chain-1.csv lacks Stan's NUTS columns")
	}
}

func TestRunExactBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampler", "hmc"}, `--sampler "hmc": expected one of gd, sgd, adam, adagrad, rmsprop, momentum, polyak, sgld, `},
		{[]string{"--sampler", "nuts", "--tune", "auto"}, `--tune "auto": expected one of none, dual, grid`},
		{[]string{"--sampler", "nuts", "--metric", "unit"}, `--metric "unit": expected one of diag, dense`},
		{[]string{"--sampler", "nuts", "--target-accept", "1.5"}, "--target-accept 1.5: expected a number in (0, 1)"},
		{[]string{"--sampler", "nuts", "--max-depth", "0"}, "--max-depth 0: expected 1 … 30"},
		{[]string{"--sampler", "nuts", "--warmup", "100", "--burnin", "200"}, "--warmup 100 and --burnin 200: --warmup is an alias of --burnin"},
		{[]string{"--sampler", "nuts", "--warmup", "-1"}, "--warmup -1: expected ≥ 0"},
		{[]string{"--sampler", "mala", "--tune", "none"}, "--tune none: give the step with --step"},
		{[]string{"--sampler", "rwm", "--tune", "grid", "--warmup", "5"}, "--tune grid: the warm-up (--warmup/--burnin 5) must have at least 9 iterations"},
		{[]string{"--sampler", "nuts", "--warmup", "1000", "--iters", "500"}, "--burnin 1000: expected 0 ≤ burn-in < --iters (500)"},
	} {
		code, out, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q, stdout %q", tc.args, code, errOut, out)
			continue
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q: want one line containing %q", tc.args, errOut, tc.want)
		}
		if tc.args[1] == "hmc" && !strings.Contains(errOut, "rwm, mala, nuts") {
			t.Errorf("--sampler hmc: stderr %q does not list rwm, mala, nuts", errOut)
		}
	}
}

// Same seed ⇒ byte-identical chain CSVs with GOMAXPROCS=1 and 2, for the
// adaptive exact samplers too.
func TestRunExactReproducibleAcrossGOMAXPROCS(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	for _, smp := range []string{"nuts", "mala"} {
		dirs := []string{t.TempDir(), t.TempDir()}
		for i, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			code, _, errOut := runMain("run", "--quiet", "--sampler", smp, "--seed", "5", "--warmup", "200", "--iters", "400", "--out", dirs[i])
			if code != 0 {
				t.Fatalf("%s, GOMAXPROCS=%d: exit %d: %s", smp, procs, code, errOut)
			}
		}
		for c := 1; c <= 4; c++ {
			name := fmt.Sprintf("chain-%d.csv", c)
			a, err := os.ReadFile(filepath.Join(dirs[0], name))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dirs[1], name))
			if err != nil {
				t.Fatal(err)
			}
			if !sameDraws(a, b) {
				t.Errorf("%s: %s differs between GOMAXPROCS=1 and 2", smp, name)
			}
		}
	}
}
