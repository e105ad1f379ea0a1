package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
)

// TestOneLaplacePerRun counts the MAPs and Hessians of runs whose initial
// points, preconditioner, dense metric or Mandt recipe all need the Laplace
// approximation: each is computed once per run.
func TestOneLaplacePerRun(t *testing.T) {
	var got []*approx.RunLaplace
	fit.LaplaceHook = func(l *approx.RunLaplace) { got = append(got, l) }
	defer func() { fit.LaplaceHook = nil }()
	short := "--quiet --chains 2 --iters 400 --burnin 200 --thin 1"
	for _, c := range []struct {
		args     string
		hessians int
	}{
		{"", 1},                              // Laplace start + SGLD's preconditioner
		{"--sampler sghmc --cv", 1},          // start, inverse mass and control variates
		{"--sampler csgd", 1},                // start + Mandt's recipe
		{"--sampler iasg", 1},                // start + the Laplace precision's λmax
		{"--sampler laplace", 1},             // start + the Laplace draws
		{"--sampler mala --metric dense", 1}, // start + the dense Laplace covariance
		{"--sampler rwm --metric dense --init map", 1},
		{"--sampler sgd --init map --precond none", 0}, // MAP only
	} {
		got = nil
		args := strings.Fields(short + " " + c.args)
		if code := Main(append([]string{"run"}, args...), io.Discard, io.Discard); code != 0 {
			t.Fatalf("run %s: exit code %d", c.args, code)
		}
		if len(got) != 1 {
			t.Fatalf("run %s: %d Laplace approximations, want 1", c.args, len(got))
		}
		maps, hes := got[0].Counts()
		if maps != 1 || hes != c.hessians {
			t.Errorf("run %s: %d MAPs and %d Hessians, want 1 and %d", c.args, maps, hes, c.hessians)
		}
	}
}

// TestNoLaplaceBypass keeps the count above honest: no command file finds a
// MAP or a Hessian except through approx.RunLaplace (the experiments,
// which reproduce their sources step by step, excepted).
func TestNoLaplaceBypass(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "experiment_") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"approx.FindMAP(", "approx.LaplacePrecond(", "approx.LaplaceCov(", "approx.Laplace(", "approx.LaplaceAt(", "HessianFD("} {
			if strings.Contains(string(b), call) {
				t.Errorf("%s calls %s: use the run's approx.RunLaplace", f, call)
			}
		}
	}
}
