package main

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/internal/budget"
)

// wideCSV writes n rows of d numeric features and a 0/1 target y.
func wideCSV(t *testing.T, n, d int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	var sb strings.Builder
	for j := range d {
		sb.WriteString("x" + strconv.Itoa(j+1) + ",")
	}
	sb.WriteString("y\n")
	for range n {
		for range d {
			sb.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'f', 3, 64) + ",")
		}
		sb.WriteString(strconv.Itoa(rng.IntN(2)) + "\n")
	}
	return writeFile(t, t.TempDir(), "wide.csv", sb.String())
}

// The memory check counts the d×d matrices of the dense curvature (a wide
// file's default run, d = 20,001, peaked at 4.6 GB in them with a memory
// check that counted only the draws): at d = 701 the dense Laplace
// approximation's 4 matrices (15.7 MB) and auto's dense plan's 10 (39 MB)
// do not fit an 8 MiB budget that the draws fit, and the refusal names them
// and what to change.
func TestMemoryCheckCountsDenseCurvature(t *testing.T) {
	path := wideCSV(t, 60, 700)
	budget.Hook = func() int64 { return 8 << 20 }
	defer func() { budget.Hook = nil }()
	expectExit2(t, "--precond laplace at d = 701", []string{"run", "--data", path, "--sampler", "sgld", "--precond", "laplace",
		"--iters", "2000", "--burnin", "500", "--thin", "10", "--chains", "2", "--quiet", "--out", filepath.Join(t.TempDir(), "o")},
		"dense Laplace approximation at d = 701", "4 d×d matrices", "--precond laplace")
	expectExit2(t, "auto at d = 701", []string{"run", "--data", path, "--chains", "1", "--target-ess", "100", "--quiet", "--out", filepath.Join(t.TempDir(), "o")},
		"the plan's dense curvature at d = 701", "10 d×d matrices")
}
