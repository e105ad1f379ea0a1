package stancsv

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const fixture = "testdata/cmdstan-2.32-nuts-save-warmup.csv"

// sameBits reports whether x and y are bit-identical, treating all NaNs as
// equal (the text form "nan" keeps no payload).
func sameBits(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Float64bits(x) == math.Float64bits(y)
}

func sameRows(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s row %d: got %d values, want %d", what, i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !sameBits(got[i][j], want[i][j]) {
				t.Errorf("%s row %d col %d: got %v (%#x), want %v (%#x)", what, i, j,
					got[i][j], math.Float64bits(got[i][j]), want[i][j], math.Float64bits(want[i][j]))
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	columns := []string{"lp__", "stepsize__", "mu", "theta.1", "theta.2"}
	special := []float64{
		math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
		5e-324, math.SmallestNonzeroFloat64 * 3, math.MaxFloat64, -math.MaxFloat64,
		0.1, 1.0 / 3, 2.0 / 3, 1e21, 1e-7, 123456789012345678, math.Pi, -math.E,
		math.Nextafter(1, 2), math.Nextafter(1, 0), 4.1311e-103,
	}
	var rows [][]float64
	k := 0
	for i := 0; i < 7; i++ {
		row := make([]float64, len(columns))
		for j := range row {
			row[j] = special[k%len(special)]
			k++
		}
		rows = append(rows, row)
	}
	cfg := Config{
		Model: "rt_model", Algorithm: "sgld", Metric: "diag_e",
		NumWarmup: 5, NumSamples: 8, Thin: 2, SaveWarmup: true,
		Seed: 1<<64 - 1, ChainID: 3,
		Extra: [][2]string{{"step_size", "0.001"}, {"batch_size", "32"}},
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cfg, columns)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[:3] { // ceil(5/2) warm-up rows
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	invMetric := []float64{1, 0.1, math.Inf(1)}
	if err := w.WriteAdaptation(1.0/3, invMetric); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[3:] { // ceil(8/2) sampling rows
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(0.25, 1.5); err != nil {
		t.Fatal(err)
	}

	f, err := Read(&buf, "rt.csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(f.Columns, columns) {
		t.Errorf("Columns = %q, want %q", f.Columns, columns)
	}
	sameRows(t, "Warmup", f.Warmup, rows[:3])
	sameRows(t, "Draws", f.Draws, rows[3:])
	if f.StepSize != 1.0/3 {
		t.Errorf("StepSize = %v, want 1/3", f.StepSize)
	}
	sameRows(t, "InvMetric", [][]float64{f.InvMetric}, [][]float64{invMetric})
	wantCfg := map[string]string{
		"model": "rt_model", "method": "sample", "num_samples": "8", "num_warmup": "5",
		"save_warmup": "1", "thin": "2", "algorithm": "sgld", "metric": "diag_e",
		"id": "3", "seed": "18446744073709551615", "step_size": "0.001", "batch_size": "32",
	}
	if !reflect.DeepEqual(f.Config, wantCfg) {
		t.Errorf("Config = %v\nwant %v", f.Config, wantCfg)
	}
	if got, want := f.ParamNames(), []string{"mu", "theta.1", "theta.2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParamNames = %q, want %q", got, want)
	}
	mu, ok := f.Column("mu")
	if !ok || len(mu) != 4 || !sameBits(mu[0], rows[3][2]) {
		t.Errorf("Column(mu) = %v, %v", mu, ok)
	}
	if _, ok := f.Column("nope"); ok {
		t.Error("Column(nope) found")
	}
}

func TestWriterSigFigs(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Config{Model: "m", NumSamples: 1, SigFigs: 6}, []string{"lp__", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float64{-1.0 / 3, 123456789}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(0, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n-0.333333,1.23457e+08\n") {
		t.Errorf("output lacks 6-digit row:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "\n# output\n#   sig_figs = 6\n") {
		t.Errorf("output lacks sig_figs:\n%s", buf.String())
	}
}

func TestWriterDenseMetric(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Config{Model: "m", Metric: "dense_e", NumSamples: 1}, []string{"lp__", "a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteAdaptation(0.5, []float64{2, 0.5, 0.5, 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteAdaptation(0.5, nil); err == nil {
		t.Error("second WriteAdaptation succeeded")
	}
	w.Write([]float64{1, 2, 3})
	if err := w.Close(0, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "# Elements of inverse mass matrix:\n# 2, 0.5\n# 0.5, 3\n") {
		t.Errorf("dense metric block missing:\n%s", buf.String())
	}
	f, err := Read(&buf, "dense.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{2, 0.5, 0.5, 3}; !reflect.DeepEqual(f.InvMetric, want) || f.StepSize != 0.5 {
		t.Errorf("InvMetric = %v, StepSize = %v", f.InvMetric, f.StepSize)
	}
}

// TestEscapedValues: a configuration value may hold any string — the
// paths of Hive-style partitions (year=2024), '#', '%', line breaks — and
// reads back the same, each on its one comment line (issue 24, row 6: such
// a --data path made langevin run fail with this package's error).
func TestEscapedValues(t *testing.T) {
	vals := []string{"year=2024/month=1/part-0.csv", "a#b c.csv", "two\nlines\r.csv", "100%25 %zz %", "=#=", "plain"}
	cfg := Config{Model: "m=#\n", NumSamples: 1}
	for i, v := range vals {
		cfg.Extra = append(cfg.Extra, [2]string{"k" + strconv.Itoa(i), v})
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cfg, []string{"lp__", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float64{-1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(0, 0); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "lp__") && !strings.HasPrefix(line, "-1,") {
			t.Errorf("line %q: a value broke its comment line", line)
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(line, "#") && strings.ContainsAny(v, "=#") {
			t.Errorf("line %q: key %q, value %q holds '=' or '#'", line, k, v)
		}
	}
	f, err := Read(&buf, "escaped.csv")
	if err != nil {
		t.Fatal(err)
	}
	if f.Config["model"] != cfg.Model {
		t.Errorf("model read back as %q, want %q", f.Config["model"], cfg.Model)
	}
	for i, v := range vals {
		if got := f.Config["k"+strconv.Itoa(i)]; got != v {
			t.Errorf("value %d read back as %q, want %q", i, got, v)
		}
	}
}

func TestWriterErrors(t *testing.T) {
	cols := []string{"lp__", "x"}
	for _, tc := range []struct {
		name string
		cfg  Config
		cols []string
	}{
		{"no model", Config{}, cols},
		{"algorithm with space", Config{Model: "m", Algorithm: "s gld"}, cols},
		{"negative samples", Config{Model: "m", NumSamples: -1}, cols},
		{"sig figs", Config{Model: "m", SigFigs: 18}, cols},
		{"reserved extra key", Config{Model: "m", Extra: [][2]string{{"thin", "2"}}}, cols},
		{"repeated extra key", Config{Model: "m", Extra: [][2]string{{"a", "1"}, {"a", "2"}}}, cols},
		{"extra key with space", Config{Model: "m", Extra: [][2]string{{"a b", "1"}}}, cols},
		{"no columns", Config{Model: "m"}, nil},
		{"empty column", Config{Model: "m"}, []string{"lp__", ""}},
		{"comma in column", Config{Model: "m"}, []string{"lp__", "a,b"}},
		{"duplicate column", Config{Model: "m"}, []string{"lp__", "x", "x"}},
		{"first column not a letter", Config{Model: "m"}, []string{"_x"}},
	} {
		if _, err := NewWriter(io.Discard, tc.cfg, tc.cols); err == nil {
			t.Errorf("%s: NewWriter succeeded", tc.name)
		}
	}

	w, err := NewWriter(io.Discard, Config{Model: "m", NumSamples: 2}, cols)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]float64{1}); err == nil {
		t.Error("short row accepted")
	}
	if err := w.Comment("a\nb"); err == nil {
		t.Error("comment with newline accepted")
	}
	if err := w.WriteAdaptation(1, []float64{1, 1}); err == nil {
		t.Error("inverse metric accepted without Config.Metric")
	}
	w.Write([]float64{1, 2})
	if err := w.Close(0, 0); !errors.Is(err, ErrRowCount) {
		t.Errorf("Close with 1 of 2 rows: err = %v, want ErrRowCount", err)
	}
	if err := w.Write([]float64{1, 2}); err == nil {
		t.Error("Write after Close succeeded")
	}

	// Warm-up and sampling rows are counted separately once the
	// adaptation block is written.
	w, _ = NewWriter(io.Discard, Config{Model: "m", NumSamples: 1, NumWarmup: 1, SaveWarmup: true}, cols)
	w.WriteAdaptation(1, nil)
	w.Write([]float64{1, 2})
	w.Write([]float64{1, 2})
	if err := w.Close(0, 0); !errors.Is(err, ErrRowCount) {
		t.Errorf("Close with 0+2 rows for 1+1: err = %v, want ErrRowCount", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterPropagatesIOError(t *testing.T) {
	w, err := NewWriter(failWriter{}, Config{Model: "m"}, []string{"lp__"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(0, 0); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Close: err = %v, want disk full", err)
	}
}

func TestWriteAllocs(t *testing.T) {
	cols := []string{"lp__", "a", "b", "c", "d"}
	w, err := NewWriter(io.Discard, Config{Model: "m"}, cols)
	if err != nil {
		t.Fatal(err)
	}
	row := []float64{-12.345678901234, math.NaN(), math.Inf(-1), 1e-300, 0.1}
	w.Write(row) // grow the row buffer
	if n := testing.AllocsPerRun(200, func() { w.Write(row) }); n != 0 {
		t.Errorf("Write allocates %v times per row", n)
	}
}

func TestReadFixture(t *testing.T) {
	f, err := ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
		"divergent__", "energy__", "mu", "theta.1"}
	if !reflect.DeepEqual(f.Columns, wantCols) {
		t.Errorf("Columns = %q", f.Columns)
	}
	if len(f.Warmup) != 10 || len(f.Draws) != 10 {
		t.Fatalf("got %d warm-up and %d sampling rows, want 10 and 10", len(f.Warmup), len(f.Draws))
	}
	sameRows(t, "Warmup[:3]", f.Warmup[:3], [][]float64{
		{-3.3026, 1, 1, 1, 1, 0, 3.97466, 1.83, -0.41},
		{-4.97181, 4.1311e-103, 14.3855, 1, 1, 0, 5.61427, 2.08572, -0.523048},
		{-2.88615, 1.74545e-21, 2.43117, 1, 1, 1, 4.24211, 1.62071, -0.629699},
	})
	sameRows(t, "Draws[0], Draws[9]", [][]float64{f.Draws[0], f.Draws[9]}, [][]float64{
		{-2.91223, 0.755966, 0.812347, 2, 3, 0, 3.72511, 0.709837, -1.49548},
		{-20.9442, 0.615376, 0.812347, 1, 1, 0, 21.298, -1.54789, -4.96618},
	})
	if f.StepSize != 0.812347 {
		t.Errorf("StepSize = %v", f.StepSize)
	}
	if want := []float64{0.231045, 1.07781}; !reflect.DeepEqual(f.InvMetric, want) {
		t.Errorf("InvMetric = %v, want %v", f.InvMetric, want)
	}
	for k, v := range map[string]string{
		"stan_version_minor": "32", "model": "hier_model", "method": "sample",
		"num_samples": "10", "num_warmup": "10", "save_warmup": "1", "thin": "1",
		"algorithm": "hmc", "engine": "nuts", "metric": "diag_e", "metric_file": "",
		"delta": "0.80000000000000004", "id": "1", "seed": "2991989946",
		// The first "file", under data, not the one under output.
		"file": "hier.data.json", "stanc_version": "stanc3 v2.32.2", "stancflags": "",
	} {
		if got, ok := f.Config[k]; !ok || got != v {
			t.Errorf("Config[%q] = %q, %v; want %q", k, got, ok, v)
		}
	}
	if got, want := f.ParamNames(), []string{"mu", "theta.1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParamNames = %q", got)
	}
	if n := len(f.Comments); n != 44+4+5 {
		t.Errorf("got %d comments, want %d", n, 44+4+5)
	}
	if got := f.Comments[len(f.Comments)-4]; got != "#  Elapsed Time: 0.000412 seconds (Warm-up)" {
		t.Errorf("timing comment = %q", got)
	}
	theta, _ := f.Column("theta.1")
	if len(theta) != 10 || theta[0] != -1.49548 {
		t.Errorf("Column(theta.1) = %v", theta)
	}
}

// TestRewriteFixture writes the fixture's content with a Writer and checks
// that it reads back the same.
func TestRewriteFixture(t *testing.T) {
	f, err := ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Config{
		Model: f.Config["model"], Algorithm: f.Config["algorithm"], Metric: f.Config["metric"],
		NumSamples: 10, NumWarmup: 10, SaveWarmup: true, Seed: 2991989946, ChainID: 1,
		Extra: [][2]string{{"engine", "nuts"}},
	}, f.Columns)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Warmup {
		w.Write(r)
	}
	w.WriteAdaptation(f.StepSize, f.InvMetric)
	for _, r := range f.Draws {
		w.Write(r)
	}
	if err := w.Close(0.000412, 0.000268); err != nil {
		t.Fatal(err)
	}
	g, err := Read(&buf, "rewritten.csv")
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "Warmup", g.Warmup, f.Warmup)
	sameRows(t, "Draws", g.Draws, f.Draws)
	if g.StepSize != f.StepSize || !reflect.DeepEqual(g.InvMetric, f.InvMetric) {
		t.Errorf("adaptation: got %v %v, want %v %v", g.StepSize, g.InvMetric, f.StepSize, f.InvMetric)
	}
}

func TestReadVariants(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		warm, draw [][]float64
		stepSize   float64
		invMetric  []float64
	}{
		{
			name: "no warm-up saved",
			in:   "# save_warmup = 0\n# num_warmup = 2\nlp__,x\n1,2\n# Adaptation terminated\n3,4\n",
			draw: [][]float64{{1, 2}, {3, 4}},
		},
		{
			name: "BOM, CRLF, no final newline, blank lines",
			in:   "\ufeff# save_warmup = false\r\n\r\nlp__,x\r\n1,2\r\n\r\n3,4",
			draw: [][]float64{{1, 2}, {3, 4}},
		},
		{
			name: "warm-up by count, ceil(num_warmup/thin), true and (Default)",
			in:   "# num_warmup = 5\n# save_warmup = true\n# thin = 2 (Default)\nlp__\n1\n2\n3\n4\n",
			warm: [][]float64{{1}, {2}, {3}},
			draw: [][]float64{{4}},
		},
		{
			name: "warm-up by adaptation comment, which wins over the count",
			in:   "# num_warmup = 5\n# save_warmup = 1\nlp__\n1\n# Adaptation terminated\n# Step size = 0.5\n2\n3\n",
			warm: [][]float64{{1}}, draw: [][]float64{{2}, {3}}, stepSize: 0.5,
		},
		{
			name: "fewer rows than num_warmup",
			in:   "# num_warmup = 5\n# save_warmup = 1\nlp__\n1\n2\n",
			warm: [][]float64{{1}, {2}},
		},
		{
			name: "special values",
			in:   "lp__,a,b,c,d,e,f\nnan,-nan,NaN,inf,-inf,+Inf,-Infinity\n 1 , 1e400 ,-0,0x1p-2,1E3,.5,5.\n",
			draw: [][]float64{
				{math.NaN(), math.NaN(), math.NaN(), math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)},
				{1, math.Inf(1), math.Copysign(0, -1), 0.25, 1000, 0.5, 5},
			},
		},
		{
			name:      "dense metric",
			in:        "lp__\n# Adaptation terminated\n# Elements of inverse mass matrix:\n# 1, 2\n# 3, 4\n5\n",
			draw:      [][]float64{{5}},
			invMetric: []float64{1, 2, 3, 4},
		},
		{
			name: "header only",
			in:   "# c\nlp__,x\n# Elapsed Time: 0 seconds (Warm-up)\n",
		},
	} {
		f, err := Read(strings.NewReader(tc.in), "v.csv")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		sameRows(t, tc.name+": Warmup", f.Warmup, tc.warm)
		sameRows(t, tc.name+": Draws", f.Draws, tc.draw)
		if f.StepSize != tc.stepSize || !reflect.DeepEqual(f.InvMetric, tc.invMetric) {
			t.Errorf("%s: StepSize, InvMetric = %v, %v; want %v, %v", tc.name, f.StepSize, f.InvMetric, tc.stepSize, tc.invMetric)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", "x.csv: empty file: no header line"},
		{"# model = m\n# only comments\n\n", "x.csv: no header line of column names, only comments or blank lines"},
		{"lp__,a,b\n1,2,3\n1,2\n", "x.csv:3: 2 fields, header has 3"},
		{"lp__,a,b\n1,2,3,4\n", "x.csv:2: 4 fields, header has 3"},
		{"# c\nlp__,a,b\n1,abc,3\n", `x.csv:3:2: cannot parse "abc" as a number (column "a")`},
		{"lp__,a\n1,\n", `x.csv:2:2: cannot parse "" as a number (column "a")`},
		{"lp__,a\n1,1_000\n", `x.csv:2:2: cannot parse "1_000" as a number (column "a")`},
		{"lp__,,b\n", "x.csv:1:2: empty column name in header"},
		{"lp__,a,a\n", `x.csv:1:3: duplicate column name "a" (also column 2)`},
		{"1,2\n3,4\n", `x.csv:1:1: expected a header line of column names, got "1"`},
		{"lp__\n# Step size = fast\n", `x.csv:2: cannot parse step size "fast" as a number`},
		{"lp__\n# Diagonal elements of inverse mass matrix:\n1\n", "x.csv:3: expected a comment line of inverse metric values"},
		{"lp__\n# Diagonal elements of inverse mass matrix:\n# 1, x\n", `x.csv:3:2: cannot parse "x" as a number in the inverse metric`},
		{"lp__\n# Elements of inverse mass matrix:\n# 1, 2\n# 3\n", "x.csv:4: inverse metric row has 1 values, first row has 2"},
		{"lp__\n# Elements of inverse mass matrix:\n# 1, 2\n", "x.csv:3: file ends inside the inverse metric block"},
		{"# save_warmup = 1\nlp__\n1\n", `x.csv: save_warmup = 1 but num_warmup is "", not a count`},
		{"# save_warmup = 1\n# num_warmup = 2\n# thin = 0\nlp__\n1\n", `x.csv: thin is "0", not a positive count`},
	} {
		_, err := Read(strings.NewReader(tc.in), "x.csv")
		if err == nil {
			t.Errorf("Read(%q) succeeded, want error %q", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Read(%q):\n got %q\nwant %q", tc.in, err, tc.want)
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Read(%q): error %T is not a *SyntaxError", tc.in, err)
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := ReadFile("testdata/does-not-exist.csv"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

// FuzzRead checks that Read never panics, that it returns a *SyntaxError for
// bad input, and that what it accepts survives a write and re-read.
func FuzzRead(f *testing.F) {
	fix, err := os.ReadFile(fixture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fix)
	f.Add([]byte("# save_warmup = 1\n# num_warmup = 3\n# thin = 2\nlp__,x\n1,nan\n2,-inf\n# Adaptation terminated\n# Step size = 1\n3,4e-300\n"))
	f.Add([]byte("lp__\n# Elements of inverse mass matrix:\n# 1, 2\n# 3, 4\n5\n"))
	f.Add([]byte("lp__,a\n1,abc\n"))
	f.Add([]byte(""))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("lp__,a\n1,2\n"))
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()-6])
	f.Add([]byte("lp__,a\n1,2\n#                \n3,4\n# Run finished\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, not *SyntaxError", err, err)
			}
			return
		}
		for _, rows := range [][][]float64{file.Warmup, file.Draws} {
			for _, r := range rows {
				if len(r) != len(file.Columns) {
					t.Fatalf("row of %d values, %d columns", len(r), len(file.Columns))
				}
			}
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Config{Model: "fuzz", NumSamples: len(file.Draws)}, file.Columns)
		if err != nil {
			return // the reader accepts names the writer refuses
		}
		for _, r := range file.Draws {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(1, 2); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf, "again.csv")
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(again.Columns, file.Columns) || len(again.Warmup) != 0 {
			t.Fatalf("re-read columns %q, %d warm-up rows", again.Columns, len(again.Warmup))
		}
		sameRows(t, "re-read", again.Draws, file.Draws)
	})
}
