package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/runctl"
)

func runMain(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

// fast are flags that keep CLI tests short.
var fast = []string{"--iters", "3000", "--burnin", "1000", "--thin", "2", "--quiet"}

// quick are flags for the tests of what the command does with its input
// and output, where the draws only need to exist: the default sampler, 2
// chains of 600 iterations (about a fifth of fast's CPU).
var quick = []string{"--iters", "600", "--burnin", "200", "--thin", "1", "--chains", "2", "--quiet"}

// shared is a directory for the runs that several tests read (removed by
// TestMain).
var shared struct {
	once sync.Once
	dir  string
	err  error
}

// sharedDir returns shared.dir, made on first use.
func sharedDir(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() { shared.dir, shared.err = os.MkdirTemp("", "langevin-test") })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir
}

// defaultJobRun is the default job run once for the tests that read its
// output, its run directory or its report: langevin run --quiet --report
// --out DIR, no other flag. Tests must not write into DIR.
var defaultJobRun struct {
	once             sync.Once
	code             int
	out, errOut, dir string
}

// defaultRun returns the default job's standard output and run directory
// (DIR/report.html the report); the test fails if the run did not exit 0.
func defaultRun(t *testing.T) (out, dir string) {
	t.Helper()
	base := sharedDir(t)
	r := &defaultJobRun
	r.once.Do(func() {
		r.dir = filepath.Join(base, "default")
		r.code, r.out, r.errOut = runMain("run", "--quiet", "--report", "--out", r.dir)
	})
	if r.code != 0 {
		t.Fatalf("langevin run --quiet --report --out DIR: exit %d: %s", r.code, r.errOut)
	}
	return r.out, r.dir
}

// sharedRuns are the runs of sharedRun, by their flags.
var sharedRuns struct {
	mu   sync.Mutex
	runs map[string]*sharedRunResult
}

type sharedRunResult struct {
	once             sync.Once
	code             int
	out, errOut, dir string
}

// sharedRun runs langevin run --quiet --out DIR args once for all the tests
// that ask for the same args, and returns its standard output and DIR; the
// test fails if the run did not exit 0. Tests must not write into DIR.
func sharedRun(t *testing.T, args ...string) (out, dir string) {
	t.Helper()
	base := sharedDir(t)
	key := strings.Join(args, "\x00")
	sharedRuns.mu.Lock()
	if sharedRuns.runs == nil {
		sharedRuns.runs = map[string]*sharedRunResult{}
	}
	r := sharedRuns.runs[key]
	if r == nil {
		r = &sharedRunResult{dir: filepath.Join(base, fmt.Sprint("run", len(sharedRuns.runs)))}
		sharedRuns.runs[key] = r
	}
	sharedRuns.mu.Unlock()
	r.once.Do(func() {
		r.code, r.out, r.errOut = runMain(append([]string{"run", "--quiet", "--out", r.dir}, args...)...)
	})
	if r.code != 0 {
		t.Fatalf("langevin run --quiet --out DIR %s: exit %d: %s", strings.Join(args, " "), r.code, r.errOut)
	}
	return r.out, r.dir
}

func TestRunDefaultJobShape(t *testing.T) {
	out, _ := defaultRun(t)
	for _, want := range []string{"variable", "ess_bulk", "rhat", "beta.14", "intercept", "accuracy", "mean log pred. density", "MAP", "draws:", "auto:", "ksd:", "time:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Same seed ⇒ byte-identical chain CSVs with GOMAXPROCS=1 and 2.
func TestRunReproducibleAcrossGOMAXPROCS(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	for i, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		code, _, errOut := runMain(append([]string{"run", "--sampler", "sgld", "--seed", "7", "--out", dirs[i]}, fast...)...)
		if code != 0 {
			t.Fatalf("GOMAXPROCS=%d: exit %d: %s", procs, code, errOut)
		}
	}
	for c := 1; c <= 4; c++ {
		name := "chain-" + string(rune('0'+c)) + ".csv"
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !sameDraws(a, b) {
			t.Errorf("%s differs between GOMAXPROCS=1 and 2", name)
		}
		if bytes.Count(a, []byte("\n")) < 1000 {
			t.Errorf("%s has too few lines", name)
		}
	}
	// summary reads them back: same table as the run's summary.csv.
	code, out, errOut := runMain("summary", "--csv", filepath.Join(dirs[0], "chain-1.csv"), filepath.Join(dirs[0], "chain-2.csv"),
		filepath.Join(dirs[0], "chain-3.csv"), filepath.Join(dirs[0], "chain-4.csv"))
	if code != 0 {
		t.Fatalf("summary: exit %d: %s", code, errOut)
	}
	want, _ := os.ReadFile(filepath.Join(dirs[0], "summary.csv"))
	if out != string(want) {
		t.Errorf("summary of the chain files differs from summary.csv:\n%s\nvs\n%s", out, want)
	}
}

func TestSummaryOfStanFile(t *testing.T) {
	f := filepath.Join("..", "..", "stancsv", "testdata", "cmdstan-2.32-nuts-save-warmup.csv")
	code, out, errOut := runMain("summary", f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "1 chains × 10 draws") || !strings.Contains(out, "mu") {
		t.Errorf("unexpected summary:\n%s", out)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bad input exits with code 2 and one line naming file:line:column or the
// flag, and what was expected.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	good := "a,b,y\n1,2,0\n2,1,1\n3,3,0\n4,1,1\n0,0,1\n"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"empty file", []string{"--data", writeFile(t, dir, "empty.csv", "")}, "empty.csv: empty file"},
		{"ragged row", []string{"--data", writeFile(t, dir, "ragged.csv", "a,b,y\n1,2,0\n1,2\n")}, "ragged.csv:3: row has 2 fields, header has 3"},
		{"non-numeric", []string{"--data", writeFile(t, dir, "text.csv", "a,b,y\n1,2,0\n1,x,1\n")}, `text.csv:3:2: cannot parse "x" as a number`},
		{"NaN cell", []string{"--data", writeFile(t, dir, "nan.csv", "a,b,y\n1,2,0\nNaN,1,1\n")}, `nan.csv:3:1: missing value ("NaN") in column "a": 1 row has one`},
		{"Inf cell", []string{"--data", writeFile(t, dir, "inf.csv", "a,b,y\n1,2,0\n1,-Inf,1\n")}, "inf.csv:3:2: Inf is not allowed"},
		{"missing target", []string{"--data", writeFile(t, dir, "good.csv", good), "--target", "label"}, `good.csv:1: target column "label" not found; columns are: a, b, y`},
		{"bad labels", []string{"--data", writeFile(t, dir, "labels.csv", "a,b,y\n1,2,0\n2,1,2\n3,3,1\n")}, `labels.csv:3: label 2 in column "y": logistic regression expects labels 0/1 or −1/+1`},
		{"mixed labels", []string{"--data", writeFile(t, dir, "mixed.csv", "a,b,y\n1,2,0\n2,1,-1\n3,3,1\n")}, "mixed.csv:3: label -1"},
		{"batch > N", []string{"--batch", "600"}, "--batch 600: expected at most N = 552 training rows"},
		{"burn-in ≥ iters", []string{"--iters", "100", "--burnin", "100"}, "--burnin 100: expected 0 ≤ burn-in < --iters (100)"},
		{"drop on an embedded set", []string{"--drop", "8"}, "--drop 8: australian is an embedded data set, read whole"},
		{"id on an embedded set", []string{"--id", "A1"}, "--id A1: australian is an embedded data set"},
		{"zero step", []string{"--step", "0"}, "--step 0: expected a positive number"},
		{"negative step", []string{"--step", "-0.1"}, "--step -0.1: expected a positive number"},
		{"bad number", []string{"--batch", "ten"}, `invalid value "ten" for flag --batch`},
		{"unknown flag", []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{"bad model", []string{"--model", "weibull"}, `--model "weibull": expected one of linear, logistic`},
		{"missing file", []string{"--data", filepath.Join(dir, "nope.csv")}, "nope.csv: no such file"},
		{"test dims", []string{"--data", writeFile(t, dir, "g2.csv", good), "--test", writeFile(t, dir, "t.csv", "a,y\n1,0\n")}, "--test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q, stdout %q", code, errOut, out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", errOut, tc.want)
			}
		})
	}
}

// A diverging chain stops with an error naming the iteration and the
// parameter (exit 1), and the draws before it are written.
func TestRunDivergenceWritesDraws(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("x,y\n")
	for i := 0; i < 50; i++ {
		sb.WriteString(strings.Repeat("1", 1+i%3) + "," + strings.Repeat("2", 1+i%2) + "\n")
	}
	f := writeFile(t, dir, "lin.csv", sb.String())
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runMain("run", "--quiet", "--data", f, "--model", "linear", "--sampler", "sgld", "--precond", "none",
		"--schedule", "const", "--step", "0.5", "--temperature", "1e300", "--burnin", "0", "--iters", "500", "--chains", "2", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
	}
	errLines := 0 // besides the step's stability warning
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(l, "langevin run: warning:  --step 0.5 is unstable") {
			errLines++
		}
	}
	if !strings.Contains(errOut, "diverged at iteration") || !strings.Contains(errOut, "parameter") || errLines != 1 {
		t.Errorf("stderr %q: want one line naming the iteration and parameter (and the stability warning)", errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatalf("draws not written: %v (stdout %s)", err, stdout)
	}
	if n := bytes.Count(b, []byte("\n")) - bytes.Count(b, []byte("#")); n < 2 {
		t.Errorf("chain-1.csv holds %d lines of draws", n)
	}
	// A failed run leaves no summary.csv to be read as its answer.
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); !os.IsNotExist(err) {
		t.Errorf("a run that exits 1 left summary.csv (stat: %v)", err)
	}
	if strings.Contains(stdout, "summary.csv") {
		t.Errorf("stdout names summary.csv:\n%s", stdout)
	}
}

func TestUsage(t *testing.T) {
	if code, _, _ := runMain(); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	if code, _, errOut := runMain("frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
	if code, out, _ := runMain("run", "-h"); code != 0 || !strings.Contains(out, "--batch") && !strings.Contains(out, "-batch") {
		t.Errorf("run -h: exit %d, %q", code, out)
	}
	if code, out, _ := runMain("datasets"); code != 0 || !strings.Contains(out, "australian") {
		t.Errorf("datasets: exit %d, %q", code, out)
	}
}

// Without a terminal, progress is a periodic log line on stderr; --quiet
// prints none.
func TestProgressLog(t *testing.T) {
	old := runctl.LogEvery
	runctl.LogEvery = time.Millisecond
	defer func() { runctl.LogEvery = old }()
	// A millisecond's interval: a run of a fraction of a second logs
	// (quick's run, without --quiet).
	code, _, errOut := runMain(append([]string{"run"}, quick[:len(quick)-1]...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "langevin: ") || !strings.Contains(errOut, "iterations") {
		t.Errorf("no progress log line in %q", errOut)
	}
	_, _, errOut = runMain(append([]string{"run"}, quick...)...)
	if errOut != "" {
		t.Errorf("--quiet printed %q", errOut)
	}
}

// When chains stop at different iterations the summary uses their common
// length instead of failing.
func TestCommonLength(t *testing.T) {
	tr := &langevin.Trace{Names: []string{"a"}, Dim: 1,
		Draws: [][][]float64{{{1}, {2}, {3}}, {{4}}}}
	params, note := fit.CommonLength(tr)
	if len(params[0][0]) != 1 || len(params[0][1]) != 1 || !strings.Contains(note, "first 1 draws") {
		t.Errorf("params %v, note %q", params, note)
	}
}

// sameDraws reports whether two chain files hold the same header and draws,
// byte for byte; the comment lines (the run's identifier, its timings)
// differ between runs.
func sameDraws(a, b []byte) bool {
	strip := func(x []byte) []byte {
		var out [][]byte
		for _, l := range bytes.Split(x, []byte("\n")) {
			if !bytes.HasPrefix(l, []byte("#")) {
				out = append(out, l)
			}
		}
		return bytes.Join(out, []byte("\n"))
	}
	return bytes.Equal(strip(a), strip(b))
}

// A run whose chains diverge at different iterations (SGLD with η = 0.5 on
// gauss2 blows up after about 512 iterations, a little later or earlier per
// chain) exits 1 with the divergence, after a summary of the common draws
// that names every chain's count: no panic, and not the average count.
func TestRunDivergedChainsCounts(t *testing.T) {
	code, out, errOut := runMain("run", "--model", "gauss2", "--sampler", "sgld", "--step", "0.5",
		"--iters", "2000", "--burnin", "0", "--thin", "1", "--quiet")
	if code != 1 || !strings.Contains(errOut, "diverged at iteration") {
		t.Fatalf("exit %d, stderr %q: want exit 1 and the divergence", code, errOut)
	}
	m := regexp.MustCompile(`draws: +4 chains × ([0-9, ]+) kept \(a chain stopped early: last kept iterations ([0-9, ]+) of 2000`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no per-chain draw counts in:\n%s", out)
	}
	var kept []int
	for _, s := range strings.Split(m[1], ", ") {
		n, _ := strconv.Atoi(s)
		kept = append(kept, n)
	}
	if len(kept) != 4 || slices.Min(kept) == slices.Max(kept) || m[1] != m[2] {
		t.Errorf("kept %q, last iterations %q: want 4 different counts equal to the last iterations (thin 1, no burn-in)", m[1], m[2])
	}
	if want := fmt.Sprintf("the table uses the first %d draws of each chain", slices.Min(kept)); !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if want := fmt.Sprintf("for %d iterations", kept[0]+kept[1]+kept[2]+kept[3]); !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	t.Logf("\n%s", out)
}
