package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/budget"
)

// help -h, help help, -h -h print the usage instead of recursing.
func TestHelpDoesNotRecurse(t *testing.T) {
	for _, args := range [][]string{{"help", "-h"}, {"help", "help"}, {"-h", "-h"}, {"--help", "help"}, {"help", "--help"}} {
		code, out, errOut := runMain(args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	if code, out, _ := runMain("help", "summary"); code != 0 || !strings.Contains(out, "-csv") {
		t.Errorf("help summary: exit %d, %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version", "-version"} {
		code, out, _ := runMain(arg)
		if code != 0 || !strings.HasPrefix(out, "langevin ") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: exit %d, %q", arg, code, out)
		}
	}
}

// Limits: --chains is bounded, --thin beyond the sampling iterations is an
// error (and the default thin adapts to a short run), a run whose draws
// would not fit in memory is refused before any work with the size and the
// flags that change it, --test-frac 0 fits on all the data.
func TestRunLimits(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chains", "100000"}, "--chains 100000: expected 1 to 1024"},
		{[]string{"--iters", "3000", "--burnin", "1000", "--thin", "2001"}, "--thin 2001: more than the 2000 sampling iterations"},
		{[]string{"--iters", "3000", "--burnin", "1000", "--thin", "2", "--test", "x.csv", "--test-frac", "0.5"}, "--test-frac: not used here"},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	budget.Hook = func() int64 { return 1 << 20 }
	code, _, errOut := runMain(append([]string{"run"}, fast...)...)
	budget.Hook = nil
	if code != 2 || !regexp.MustCompile(`4 × 1500 kept draws of 23 columns would take [0-9.]+ MiB in memory, more than 1.0 MiB .*raise --thin, or lower --iters or --chains`).MatchString(errOut) {
		t.Errorf("oversized run: exit %d, %q", code, errOut)
	}
	code, out, errOut := runMain(append([]string{"run", "--test-frac", "0"}, quick...)...)
	if code != 0 || !strings.Contains(out, "(N = 690 train, 0 test") {
		t.Errorf("--test-frac 0: exit %d, %s%s", code, out, errOut)
	}
	code, out, errOut = runMain("run", "--iters", "300", "--burnin", "100", "--quiet")
	if code != 0 || !strings.Contains(out, "4 chains × 200 kept") {
		t.Errorf("short run with the default thin: exit %d, %s%s", code, out, errOut)
	}
}

// A flag the chosen sampler or model would ignore is an error naming it.
func TestRunFlagThatDoesNotApply(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--sampler", "nuts", "--temperature", "2"}, "--temperature"},
		{[]string{"--sampler", "rwm", "--batch", "5"}, "--batch"},
		{[]string{"--sampler", "mala", "--schedule", "poly"}, "--schedule"},
		{[]string{"--sampler", "gd", "--temperature", "2"}, "--temperature"},
		{[]string{"--temperature", "2"}, "--temperature"}, // auto may pick NUTS (τ = 1)
		{[]string{"--clip", "5"}, "--clip"},               // auto may pick NUTS: nothing to clip (was silently ignored)
		{[]string{"--clip-value", "5"}, "--clip-value"},   // likewise
		{[]string{"--sampler", "swag", "--temperature", "2"}, "--temperature"},
		{[]string{"--sampler", "csgd", "--temperature-start", "5"}, "--temperature-start"},
		{[]string{"--sampler", "vi", "--temperature", "0.5"}, "--temperature"},
		{[]string{"--sampler", "gd", "--batch", "5"}, "--batch"},
		{[]string{"--model", "logistic", "--hidden", "10"}, "--hidden"},
		{[]string{"--model", "gauss2", "--data", "moons"}, "--data"},
		{[]string{"--model", "mixture25", "--rho", "0.5"}, "--rho"},
		{[]string{"--k", "4"}, "--k"},
		{[]string{"--sampler", "sgld", "--thermostat"}, "--thermostat"},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.flag) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", tc.args, code, errOut, tc.flag)
		}
	}
}

// writeDatasetCSV writes d with its column names, the target last, the feature
// columns in the order perm.
func writeDatasetCSV(t *testing.T, path string, d *data.Dataset, perm []int, header bool) {
	t.Helper()
	var sb strings.Builder
	if header {
		for _, j := range perm {
			sb.WriteString(d.Names[j] + ",")
		}
		sb.WriteString(d.Target + "\n")
	}
	for i := range d.Len() {
		for _, j := range perm {
			fmt.Fprintf(&sb, "%v,", d.X.At(i, j))
		}
		fmt.Fprintf(&sb, "%v\n", d.Y[i])
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

var accuracyLine = regexp.MustCompile(`accuracy +[0-9.]+ +[0-9.]+`)

// --test and predict match columns by name: a test file with two columns
// swapped gives the same accuracy; a missing column is an error naming it.
func TestColumnsMatchedByName(t *testing.T) {
	dir := t.TempDir()
	all := data.Australian()
	train, test := data.TrainTest(all, 0.3, 1)
	id := make([]int, all.Dim())
	for j := range id {
		id[j] = j
	}
	swapped := append([]int(nil), id...)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	writeDatasetCSV(t, filepath.Join(dir, "train.csv"), train, id, true)
	writeDatasetCSV(t, filepath.Join(dir, "test.csv"), test, id, true)
	writeDatasetCSV(t, filepath.Join(dir, "swapped.csv"), test, swapped, true)
	writeDatasetCSV(t, filepath.Join(dir, "missing.csv"), test, id[1:], true)
	var acc []string
	for i, f := range []string{"test.csv", "swapped.csv"} {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		code, stdout, errOut := runMain(append([]string{"run", "--data", filepath.Join(dir, "train.csv"), "--test", filepath.Join(dir, f), "--out", out}, quick...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		acc = append(acc, accuracyLine.FindString(stdout))
		code, stdout, errOut = runMain("predict", "--samples", out, "--data", filepath.Join(dir, "swapped.csv"))
		if code != 0 {
			t.Fatalf("predict %s: exit %d: %s", f, code, errOut)
		}
		acc = append(acc, regexp.MustCompile(`accuracy [0-9.]+`).FindString(stdout))
	}
	if acc[0] == "" || acc[0] != acc[2] || acc[1] != acc[3] {
		t.Errorf("accuracies differ with the columns swapped: %q", acc)
	}
	code, _, errOut := runMain(append([]string{"run", "--data", filepath.Join(dir, "train.csv"), "--test", filepath.Join(dir, "missing.csv")}, quick...)...)
	if code != 2 || !strings.Contains(errOut, `no column "A1"`) {
		t.Errorf("missing column: exit %d, %q", code, errOut)
	}
}

// A headerless numeric file keeps its first row; softmax labels 1…K are
// refused; data on standard input are read.
func TestRunInputShapes(t *testing.T) {
	dir := t.TempDir()
	all := data.Australian()
	id := make([]int, all.Dim())
	for j := range id {
		id[j] = j
	}
	p := filepath.Join(dir, "noheader.csv")
	writeDatasetCSV(t, p, all, id, false)
	code, out, errOut := runMain(append([]string{"run", "--data", p, "--test-frac", "0"}, quick...)...)
	if code != 0 || !strings.Contains(out, "N = 690 train") {
		t.Errorf("headerless: exit %d: %s%s", code, out, errOut)
	}

	three := writeFile(t, dir, "three.csv", "x,y\n0.1,1\n0.5,2\n0.9,3\n0.2,1\n0.6,2\n1.0,3\n")
	code, _, errOut = runMain(append([]string{"run", "--data", three, "--model", "softmax", "--test-frac", "0"}, quick...)...)
	if code != 2 || !strings.Contains(errOut, "start at 1, not 0") {
		t.Errorf("softmax labels 1…K: exit %d, %q", code, errOut)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	go func() { w.Write(b); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	code, out, errOut = runMain(append([]string{"run", "--data", "-", "--test-frac", "0"}, quick...)...)
	os.Stdin = old
	if code != 0 || !strings.Contains(out, "N = 690 train") {
		t.Errorf("--data -: exit %d: %s%s", code, out, errOut)
	}
}

// langevin report DIR does not replace the page of run --report.
func TestReportKeepsRunPage(t *testing.T) {
	_, run := defaultRun(t) // run --report's directory, copied
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dir, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	code, _, errOut := runMain("report", dir)
	after, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if code != 2 || !strings.Contains(errOut, "-o FILE") || string(before) != string(after) {
		t.Errorf("report DIR over run --report's page: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runMain("report", "--force", "--params", "1", dir); code != 0 {
		t.Errorf("report --force: exit %d, %q", code, errOut)
	}
}
