package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// formulaOut is a --formula run's output after its first line (which names
// the file), up to the draws' accounting: the header, the table and the
// test-set table. The runs are short (2 chains, bulk-ESS 100; with -short a
// warm-up of 300 iterations): the tests compare two runs' outputs.
func formulaOut(t *testing.T, args ...string) string {
	t.Helper()
	run := []string{"run", "--quiet", "--target-ess", "100", "--chains", "2"}
	if testing.Short() {
		run = append(run, "--burnin", "300") // the warm-up's 1,000 are half the CPU
	}
	code, out, errs := runMain(append(run, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	_, rest, _ := strings.Cut(out, "\n")
	rest, _, _ = strings.Cut(rest, "draws:")
	return rest
}

// TestRunFormulaGzipAndTest: --formula reads a gzip-compressed file as the
// plain path does (the same run, bit for bit), and --test prints the
// held-out table (RMSE and mean log predictive density, in the data's
// units); a group level absent from the training data is refused before
// sampling, naming the column and the level.
func TestRunFormulaGzipAndTest(t *testing.T) {
	path := formulaCSV(t, 150)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	gz := writeFile(t, t.TempDir(), "d.csv.gz", z.String())
	form := []string{"--formula", "y ~ x + (1 | g)"}
	// Held-out rows: the same generator, more rows (the first 150 are the
	// training rows: a prefix, the same levels).
	test := formulaCSV(t, 300)
	want := formulaOut(t, append(form, "--data", path, "--test", test)...)
	if got := formulaOut(t, append(form, "--data", gz, "--test", test)...); got != want {
		t.Errorf("gzip:\n%s\nwant (the text):\n%s", got, want)
	}
	got := want
	i := strings.Index(got, "test set (300 rows)")
	if i < 0 {
		t.Fatalf("no test-set table:\n%s", got)
	}
	var rmse, lpd float64
	for _, l := range strings.Split(got[i:], "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 2 && f[0] == "RMSE":
			rmse, _ = strconv.ParseFloat(f[1], 64)
		case len(f) >= 5 && f[0] == "mean" && f[1] == "log":
			lpd, _ = strconv.ParseFloat(f[4], 64)
		}
	}
	// The noise sd is 0.5: the RMSE of the mean and the density of a
	// N(·, 0.5) (−log(0.5·√(2π)) − ½ = −0.73) are near it, in y's units.
	if !(rmse > 0.4 && rmse < 0.65) || !(lpd > -0.95 && lpd < -0.6) {
		t.Errorf("test set: RMSE %v, mean log predictive density %v; want near 0.5 and −0.73:\n%s", rmse, lpd, got[i:])
	}
	// A new level in the test file.
	nl := writeFile(t, t.TempDir(), "new.csv", "y,x,g\n1,0.5,s1\n2,0.1,s9\n")
	code, _, errs := runMain("run", "--quiet", "--formula", "y ~ x + (1 | g)", "--data", path, "--test", nl)
	if code != 2 || !strings.Contains(errs, `column "g": level "s9"`) || !strings.Contains(errs, "allow_new_levels = FALSE") {
		t.Errorf("a new level in --test: exit %d, %s", code, errs)
	}
	code, _, errs = runMain("run", "--quiet", "--formula", "y ~ x", "--data", path, "--format", "libsvm")
	if code != 2 || !strings.Contains(errs, "LIBSVM has none") {
		t.Errorf("--format libsvm: exit %d, %s", code, errs)
	}
}

// TestRunFormulaParquetAndStore: --formula reads a Parquet file written by
// another tool (DuckDB) and a data store, and both give the run of the same
// numbers written as text, bit for bit.
func TestRunFormulaParquetAndStore(t *testing.T) {
	pq := filepath.Join("..", "..", "data", "testdata", "parquet", "australian.parquet")
	d, err := data.ReadFile(pq, "parquet", data.CSVOptions{Target: "class"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(strings.Join(d.Names, ",") + ",class\n")
	for i := range d.Len() {
		for j := range d.Dim() {
			b.WriteString(strconv.FormatFloat(d.X.At(i, j), 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64) + "\n")
	}
	dir := t.TempDir()
	csv := writeFile(t, dir, "australian.csv", b.String())
	src, err := data.OpenParquet(pq, data.ParquetOptions{Target: "class"})
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "australian.lvs")
	if _, err := data.WriteStore(store, src, data.StoreOptions{Source: pq}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	form := []string{"--formula", "class ~ A2 + A3 + A8", "--family", "bernoulli"}
	want := formulaOut(t, append(form, "--data", csv)...)
	for _, args := range [][]string{{"--data", pq, "--format", "parquet"}, {"--data", store}} {
		if got := formulaOut(t, append(form, args...)...); got != want {
			t.Errorf("%v:\n%s\nwant (the text):\n%s", args, got, want)
		}
	}
	got := formulaOut(t, append(form, "--data", store, "--test", pq)...)
	if !strings.Contains(got, "test set (690 rows)") || !strings.Contains(got, "accuracy") {
		t.Errorf("--test a Parquet file of a store's run:\n%s", got)
	}
}

// TestRunFormulaReadBounded: --formula reads under the plain path's limits,
// with bounded memory (peak RSS of the process well under 1 GB): an endless
// line (/dev/zero), a 40 MB field, and a gzip stream of more numbers than
// the memory bound are refused, naming the file and the limit; the error
// quotes no more than a few bytes of the field.
func TestRunFormulaReadBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB file and reads /dev/zero")
	}
	dir := t.TempDir()
	field := filepath.Join(dir, "field.csv")
	f, err := os.Create(field)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("y,x\n1,")
	f.Write(bytes.Repeat([]byte("7"), 40<<20))
	f.WriteString("\n")
	f.Close()
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestSpeed)
	zw.Write([]byte("y,x\n"))
	line := bytes.Repeat([]byte("1.5,2.5\n"), 1<<16)
	for range 400 { // 200 MB of text, 52 million numbers
		zw.Write(line)
	}
	zw.Close()
	bomb := writeFile(t, dir, "many.csv.gz", zb.String())
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "line longer than 16 MiB"},
		{field, "line longer than 16 MiB"},
		{bomb, "MiB of numbers in memory, the bound"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command("sh", "-c", `ulimit -v 2097152 && exec "$0" run --quiet --formula 'y ~ x' --data "$1"`, pureBinary(t), tc.path)
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err == nil {
			code = 0
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // MiB
		msg := strings.TrimSpace(stderr.String())
		t.Logf("%s: exit %d, peak RSS %d MiB: %s", tc.path, code, rss, msg)
		if code != 2 || !strings.Contains(msg, tc.want) || len(msg) > 1000 {
			t.Errorf("%s: exit %d, %s; want exit 2 and %q", tc.path, code, msg, tc.want)
		}
		if rss > 1024 {
			t.Errorf("%s: peak RSS %d MiB, want ≤ 1 GiB", tc.path, rss)
		}
	}
}

// TestRunFormulaEuropeanNA: --formula reads a file with --sep ;,
// --decimal , and --na ? as the plain path does (they were silently
// ignored): the same run, bit for bit, as on the same rows written with
// '.' and ',' and the '?' rows left out.
func TestRunFormulaEuropeanNA(t *testing.T) {
	raw, err := os.ReadFile(formulaCSV(t, 150))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var eu strings.Builder
	for i, l := range lines {
		eu.WriteString(strings.ReplaceAll(strings.ReplaceAll(l, ",", ";"), ".", ",") + "\n")
		if i > 0 && i%30 == 0 {
			eu.WriteString("2,5;?;s1\n") // a missing x, dropped
		}
	}
	dir := t.TempDir()
	euPath := writeFile(t, dir, "eu.csv", eu.String())
	form := []string{"--formula", "y ~ x + (1 | g)"}
	want := formulaOut(t, append(form, "--data", writeFile(t, dir, "plain.csv", string(raw)))...)
	got := formulaOut(t, append(form, "--data", euPath, "--sep", ";", "--decimal", ",", "--na", "?", "--missing", "drop")...)
	keep := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "missing") && !strings.Contains(l, "dropped") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if keep(got) != keep(want) {
		t.Errorf("--sep ; --decimal , --na ?:\n%s\nwant (the plain file):\n%s", got, want)
	}
	if !strings.Contains(got, `5 of 155 rows dropped for a missing value in a column the formula uses (by column: "x" 5)`) {
		t.Errorf("the 5 dropped rows are not counted:\n%s", got)
	}
}
