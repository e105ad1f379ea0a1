package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/budget"
)

// logisticCSV writes n rows of 3 features and a 0/1 label y drawn from a
// logistic model, with every value's shortest round-trip text.
func logisticCSV(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for range n {
		x := [3]float64{rng.NormFloat64(), 2 + 3*rng.NormFloat64(), rng.Float64()}
		z := 0.3 + x[0] - 0.2*x[1] + 0.5*x[2]
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y = 1
		}
		for _, v := range x {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		fmt.Fprintf(&b, "%d\n", y)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRowsCSV writes the rows of r as CSV with the header names, target y.
func writeRowsCSV(t *testing.T, path string, r data.Rows, names []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(names, ",") + ",y\n")
	for X, y := range data.Blocks(r, 0) {
		n, _ := X.Dims()
		for i := range n {
			for _, v := range X.RawRowView(i) {
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
			}
			b.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64) + "\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stable drops the output lines that hold times or paths, and the first
// line (which names the data).
func stable(out string) string {
	var keep []string
	for i, line := range strings.Split(out, "\n") {
		if i == 0 || strings.HasPrefix(line, "sampling:") || strings.HasPrefix(line, "time:") || strings.HasPrefix(line, "cpu:") || strings.HasPrefix(line, "written:") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// draws returns the data lines of a chain file (not its # comments, which
// hold times).
func draws(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// TestRunStoreStreamsLikeMemory: run --data FILE.lvs streams the store
// (hashed split, standardisation fitted in two passes and applied on the
// fly, the model on the rows, test metrics in blocks) and gives, bit for
// bit, the run of the same training and test rows in memory: the output,
// the draws, scaler.json; and predict --data FILE.lvs, streamed, gives the
// in-memory predict's metrics and per-row file. SGLD with control variates
// (the auto plan's SGLD) and the default auto (NUTS at this size) both.
func TestRunStoreStreamsLikeMemory(t *testing.T) {
	dir := t.TempDir()
	all, store := filepath.Join(dir, "all.csv"), filepath.Join(dir, "all.lvs")
	logisticCSV(t, all, 2000)
	if code, _, errs := runMain("convert", "--data", all, "--out", store); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	// The rows of the streamed run's split, as files for the in-memory run.
	st, err := data.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.SplitRows(st, 0.2, 3)
	trainCSV, testCSV := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writeRowsCSV(t, trainCSV, train, st.Names())
	writeRowsCSV(t, testCSV, test, st.Names())
	st.Close()
	samplers := [][]string{{"--sampler", "sgld", "--target-ess", "100"}, {"--sampler", "sgld", "--target-ess", "100", "pread"}}
	if !testing.Short() {
		samplers = append(samplers, []string{"--iters", "1000"})
	}
	for k, s := range samplers {
		// The store is small enough to be memory-mapped; "pread" makes the
		// run read it with pread, as a large one.
		how := "memory-mapped"
		if s[len(s)-1] == "pread" {
			s, how = s[:len(s)-1], "rows read with pread"
			fit.MapLimit = func() int64 { return 0 }
		}
		args := append([]string{"run", "--seed", "3", "--chains", "2"}, s...)
		dirS, dirM := filepath.Join(dir, fmt.Sprint("s", k)), filepath.Join(dir, fmt.Sprint("m", k))
		code, outS, errs := runMain(append(args, "--data", store, "--out", dirS)...)
		fit.MapLimit = func() int64 { return budget.RawMemory() / 4 }
		if code != 0 {
			t.Fatalf("%v streamed: exit %d: %s", s, code, errs)
		}
		if !strings.Contains(errs, how) {
			t.Errorf("%v streamed: stderr does not say %q:\n%s", s, how, errs)
		}
		args = append(args, "--quiet")
		code, outM, errs := runMain(append(args, "--data", trainCSV, "--test", testCSV, "--out", dirM)...)
		if code != 0 {
			t.Fatalf("%v in memory: exit %d: %s", s, code, errs)
		}
		head := fmt.Sprintf("(N = %d train, %d test, d = 4)", train.Len(), test.Len())
		if !strings.Contains(outS, head) || !strings.Contains(outS, "accuracy") {
			t.Errorf("%v streamed: no %q or test metrics in\n%s", s, head, outS)
		}
		if got, want := stable(outS), stable(outM); got != want {
			t.Errorf("%v streamed:\n%s\nwant (in memory):\n%s", s, got, want)
		}
		for _, f := range []string{"chain-1.csv", "chain-2.csv"} {
			if draws(t, filepath.Join(dirS, f)) != draws(t, filepath.Join(dirM, f)) {
				t.Errorf("%v: %s differs between the streamed and the in-memory run", s, f)
			}
		}
		a, errA := os.ReadFile(filepath.Join(dirS, "scaler.json"))
		b, errB := os.ReadFile(filepath.Join(dirM, "scaler.json"))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%v: scaler.json %s (%v), want %s (%v)", s, a, errA, b, errB)
		}
	}
	// predict on the store, streamed, and on the same rows from CSV.
	outS, outM := filepath.Join(dir, "pred-s.csv"), filepath.Join(dir, "pred-m.csv")
	code, predS, errs := runMain("predict", "--samples", filepath.Join(dir, "s0"), "--data", store, "--out", outS)
	if code != 0 {
		t.Fatalf("predict streamed: exit %d: %s", code, errs)
	}
	code, predM, errs := runMain("predict", "--samples", filepath.Join(dir, "s0"), "--data", all, "--out", outM)
	if code != 0 {
		t.Fatalf("predict in memory: exit %d: %s", code, errs)
	}
	if stable(predS) != stable(predM) || !strings.Contains(predS, "accuracy") {
		t.Errorf("predict streamed:\n%s\nwant (in memory):\n%s", predS, predM)
	}
	a, _ := os.ReadFile(outS)
	b, _ := os.ReadFile(outM)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("predict --out: the streamed file (%d bytes) differs from the in-memory one (%d bytes)", len(a), len(b))
	}
}

// TestConvertCommand: convert writes a store from CSV (float64 exact,
// float32 rounded) and Parquet, and bad input exits 2 naming the file, line
// and column, leaving no store behind.
func TestConvertCommand(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csv, []byte("x1,x2,label,x3\n1.5,2,0,3e300\n-4,0.1,1,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "d.lvs")
	code, stdout, errs := runMain("convert", "--data", csv, "--target", "label", "--out", out)
	if code != 0 || !strings.Contains(stdout, `2 rows × 3 features + target "label", float64`) {
		t.Fatalf("exit %d: %s%s", code, stdout, errs)
	}
	st, err := data.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	ds := st.Dataset()
	st.Close()
	if ds.X.At(0, 2) != 3e300 || ds.X.At(1, 1) != 0.1 || ds.Y[1] != 1 || strings.Join(ds.Names, ",") != "x1,x2,x3" {
		t.Errorf("store holds %v %v %v", ds.Names, ds.X, ds.Y)
	}
	pq := filepath.Join("..", "..", "data", "testdata", "parquet", "australian.parquet")
	pqOut := filepath.Join(dir, "a.lvs")
	if code, _, errs := runMain("convert", "--data", pq, "--target", "class", "--out", pqOut, "--float32"); code != 0 {
		t.Fatalf("Parquet: exit %d: %s", code, errs)
	}
	want, err := data.ReadParquet(pq, data.ParquetOptions{Target: "class"})
	if err != nil {
		t.Fatal(err)
	}
	st, err = data.OpenStore(pqOut)
	if err != nil {
		t.Fatal(err)
	}
	got := st.Dataset()
	st.Close()
	for i := range want.Len() {
		for j := range want.Dim() {
			if v := want.X.At(i, j); got.X.At(i, j) != float64(float32(v)) {
				t.Fatalf("row %d column %d: %v, want float32(%v)", i+1, j+1, got.X.At(i, j), v)
			}
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b,y\n1,2,0\n3,x,1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", bad, "--out", filepath.Join(dir, "bad.lvs")}, "bad.csv:3:2: cannot parse \"x\" as a number"},
		{[]string{"--data", csv, "--out", filepath.Join(dir, "f.lvs"), "--float32"}, `row 1, column "x3": 3e+300 is out of range for float32`},
		{[]string{"--data", filepath.Join(dir, "none.csv"), "--out", filepath.Join(dir, "n.lvs")}, "none.csv: no such file"},
		{[]string{"--data", csv, "--out", out}, "exists: give --force"},
		{[]string{"--data", csv}, "--out: no output file"},
		{[]string{"--data", out, "--out", filepath.Join(dir, "s.lvs")}, "expected csv or parquet"},
		{[]string{"--data", csv, "--target", "zz", "--out", filepath.Join(dir, "z.lvs")}, "zz"},
	} {
		code, _, errs := runMain(append([]string{"convert"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", c.args, code, errs, c.want)
		}
	}
	for _, f := range []string{"bad.lvs", "f.lvs", "bad.lvs.tmp", "f.lvs.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s left behind after an error", f)
		}
	}
}

// TestRunStoreInputErrors: a bad label names its row of the store; a model
// that does not stream reads a store only when it fits in the memory
// budget, and otherwise exits 2 naming --model.
func TestRunStoreInputErrors(t *testing.T) {
	dir := t.TempDir()
	csv, store := filepath.Join(dir, "l.csv"), filepath.Join(dir, "l.lvs")
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 50 {
		y := i % 2
		if i == 36 {
			y = 2
		}
		fmt.Fprintf(&b, "%d,%d\n", i, y)
	}
	os.WriteFile(csv, []byte(b.String()), 0o644)
	if code, _, errs := runMain("convert", "--data", csv, "--out", store); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs := runMain("run", "--data", store, "--quiet")
	if code != 2 || !strings.Contains(errs, "row 37: label 2") {
		t.Errorf("bad label: exit %d, %s", code, errs)
	}
	budget.Hook = func() int64 { return 1000 }
	defer func() { budget.Hook = nil }()
	code, _, errs = runMain("run", "--data", store, "--model", "probit", "--quiet")
	if code != 2 || !strings.Contains(errs, "--model probit reads its data into memory") {
		t.Errorf("probit on a store over budget: exit %d, %s", code, errs)
	}
}
