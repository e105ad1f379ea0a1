package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	bin "encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goldenCases are the runs of TestGolden: every registered sampler on the
// default data (Australian credit, logistic regression, seed 1), the default
// job, auto's SGLD branch, a network and two other models. The stochastic-
// gradient samplers run 20,000 iterations (their rules scale burn-in and
// thinning with --iters) to keep the test short.
var goldenCases = []struct {
	name  string
	args  []string
	short bool // also run with -short
}{
	{"default", nil, true},
	{"sgld-planned", []string{"--sampler", "sgld"}, true}, // auto's plan with SGLD forced: the SG-MCMC branch
	{"sgld", []string{"--sampler", "sgld", "--iters", "20000"}, true},
	{"sgld-cv", []string{"--sampler", "sgld", "--iters", "20000", "--cv", "--batch", "50"}, false},
	{"sgld-poly", []string{"--sampler", "sgld", "--iters", "20000", "--schedule", "poly", "--step", "1e-3", "--precond", "none"}, false},
	{"csgld", []string{"--sampler", "csgld", "--iters", "20000"}, false},
	{"psgld", []string{"--sampler", "psgld", "--iters", "20000"}, false},
	{"sghmc", []string{"--sampler", "sghmc", "--iters", "20000"}, false},
	{"sgnht", []string{"--sampler", "sghmc", "--iters", "20000", "--thermostat"}, false},
	{"csghmc", []string{"--sampler", "csghmc", "--iters", "20000"}, false},
	{"baoab", []string{"--sampler", "baoab", "--iters", "20000"}, false},
	{"gd", []string{"--sampler", "gd", "--iters", "2000"}, false},
	{"sgd", []string{"--sampler", "sgd", "--iters", "20000"}, false},
	{"csgd", []string{"--sampler", "csgd", "--iters", "20000"}, false},
	{"csgd-diag", []string{"--sampler", "csgd-diag", "--iters", "20000"}, false},
	{"csgd-full", []string{"--sampler", "csgd-full", "--iters", "20000"}, false},
	{"csgd-sqrt", []string{"--sampler", "csgd-sqrt", "--iters", "20000"}, false},
	{"csgd-momentum", []string{"--sampler", "csgd-momentum", "--iters", "20000"}, false},
	{"sgfs", []string{"--sampler", "sgfs", "--iters", "20000"}, false},
	{"sgfs-diag", []string{"--sampler", "sgfs-diag", "--iters", "20000"}, false},
	{"iasg", []string{"--sampler", "iasg", "--iters", "5000"}, false},
	{"laplace", []string{"--sampler", "laplace"}, false},
	{"swag", []string{"--sampler", "swag", "--iters", "20000"}, false},
	{"vi", []string{"--sampler", "vi"}, false},
	{"rwm", []string{"--sampler", "rwm", "--iters", "8000", "--burnin", "3000"}, false},
	{"mala", []string{"--sampler", "mala", "--iters", "4000", "--burnin", "1000"}, false},
	{"nuts", []string{"--sampler", "nuts"}, false},
	{"mlp", []string{"--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "10", "--iters", "5000", "--map-iters", "2000"}, true},
	{"mlp-csgld", []string{"--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "8", "--sampler", "csgld", "--cycles", "2", "--iters", "4000", "--map-iters", "1000"}, false},
	{"mlp-ensemble", []string{"--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "8", "--sampler", "ensemble", "--map-iters", "1000"}, false},
	{"linear", []string{"--model", "linear", "--data", "lecture"}, false},
	{"probit", []string{"--model", "probit"}, false},
}

// goldenExperiments are the cheap experiments of TestGolden: their printed
// numbers (without times) are pinned as the runs' are.
var goldenExperiments = []struct {
	name string
	args []string
}{
	{"schedules", nil},
	{"lecture-sgd", nil},
	{"lecture-fixed-step", nil},
	{"mandt-fig6", nil},
	{"mixture25", []string{"--iters", "2000"}},
	{"mandt-iasg", []string{"--passes", "4"}},
	{"mandt-fig2", nil},
}

// TestGolden pins, for a fixed seed, every registered sampler's draws (a
// SHA-256 of the float64 bits of every number in the chain and warm-up
// files) and the printed output (without its timing lines) to the fixtures
// in testdata/golden, and the printed numbers of the cheap experiments. A
// refactoring must leave them bit for bit unchanged; with -short only the
// cases marked short run.
//
// A deliberate change of a default or of a sampler (for example a network
// default) changes the fixtures: regenerate them with
//
//	LANGEVIN_UPDATE_GOLDEN=1 go test ./cmd/langevin -run TestGolden
//
// and say in the commit message which cases changed and why (the diff of
// testdata/golden shows the printed numbers before and after).
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && !tc.short && !goldenUpdate() {
				t.Skip("skipped with -short")
			}
			checkGolden(t, tc.name, tc.args, goldenRun(t, tc.args))
		})
	}
	for _, tc := range goldenExperiments {
		name := "experiment-" + tc.name
		t.Run(name, func(t *testing.T) {
			if testing.Short() && !goldenUpdate() {
				t.Skip("skipped with -short")
			}
			checkGolden(t, name, tc.args, goldenExperiment(t, tc.name, tc.args))
		})
	}
}

func goldenUpdate() bool { return os.Getenv("LANGEVIN_UPDATE_GOLDEN") != "" }

// checkGolden compares got with the fixture testdata/golden/NAME.txt, or
// writes it with LANGEVIN_UPDATE_GOLDEN set.
func checkGolden(t *testing.T, name string, args []string, got string) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name+".txt")
	if goldenUpdate() {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (create the fixtures with LANGEVIN_UPDATE_GOLDEN=1 go test ./cmd/langevin -run TestGolden)", err)
	}
	if got != string(want) {
		t.Errorf("%s %s: the draws or the printed numbers differ from %s.\n"+
			"If the change is deliberate (a new default, a fixed sampler), regenerate with\n"+
			"  LANGEVIN_UPDATE_GOLDEN=1 go test ./cmd/langevin -run 'TestGolden/%s$'\n"+
			"and justify it in the commit message; a refactoring must keep them bit for bit.\n%s",
			name, strings.Join(args, " "), file, name, lineDiff(string(want), got))
	}
}

// goldenRun runs langevin run with args and returns the fixture's text: the
// hash of the draws, then the output without the lines that hold times.
// The runs are shared with the other tests that run the same (sharedRun);
// the default job (no args) is defaultRun's, whose --report adds only the
// report (its "report:" line is a timing line).
func goldenRun(t *testing.T, args []string) string {
	t.Helper()
	if len(args) == 0 {
		out, dir := defaultRun(t)
		return goldenText(t, dir, out)
	}
	out, dir := sharedRun(t, args...)
	return goldenText(t, dir, out)
}

// goldenText is goldenRun's text of a run directory and its output.
func goldenText(t *testing.T, dir, out string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var names []string
	n := 0
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasPrefix(base, "chain-") && !strings.HasPrefix(base, "warmup-") {
			continue
		}
		names = append(names, base)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += hashDraws(t, h, b)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "draws sha256 %s (%d numbers in %s)\n", hex.EncodeToString(h.Sum(nil)), n, strings.Join(names, " "))
	sb.WriteString(untimed(out))
	return sb.String()
}

// goldenExperiment runs langevin experiment NAME args (with --out a
// temporary folder when the experiment takes one) and returns its output
// without times.
func goldenExperiment(t *testing.T, name string, args []string) string {
	t.Helper()
	all := append([]string{"experiment", name}, args...)
	if name != "mandt-iasg" {
		all = append(all, "--out", t.TempDir())
	}
	code, out, errOut := runMain(all...)
	if code != 0 {
		t.Fatalf("langevin %s: exit %d: %s", strings.Join(all, " "), code, errOut)
	}
	return untimed(out)
}

// seconds matches a time in parentheses, "(3.6 s)" or "; 0.1s)".
var seconds = regexp.MustCompile(`[0-9.]+ ?s\)`)

// untimed returns out without the lines that hold wall or CPU times (or
// the output's paths), and with the times in parentheses replaced by "… s)".
func untimed(out string) string {
	var sb strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if timingLine(line) {
			continue
		}
		sb.WriteString(seconds.ReplaceAllString(line, "… s)"))
	}
	return sb.String()
}

// hashDraws writes the float64 bits of every number of a CmdStan CSV file's
// draw lines (not its comments or header) into h and returns how many.
func hashDraws(t *testing.T, h interface{ Write([]byte) (int, error) }, b []byte) int {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	var buf [8]byte
	n, header := 0, true
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if header {
			header = false
			continue
		}
		for _, f := range strings.Split(line, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("draw line %q: %v", line, err)
			}
			bin.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			h.Write(buf[:])
			n++
		}
	}
	return n
}

// timingLine reports whether an output line holds wall or CPU times (or the
// run directory's path), which differ from run to run.
func timingLine(line string) bool {
	for _, p := range []string{"sampling:", "time:", "cpu:", "written:", "report:", "wrote ", "figures:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// lineDiff lists the lines of got that are not in want and the reverse.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			sb.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			sb.WriteString("+ " + l + "\n")
		}
	}
	return sb.String()
}
