package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

func TestParseCSV(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		opt    CSVOptions
		names  []string
		target string
		x      []float64
		y      []float64
	}{
		{
			name:  "comma",
			in:    "a,b,c\n1,2,3\n4,5,6\n",
			names: []string{"a", "b"}, target: "c",
			x: []float64{1, 2, 4, 5}, y: []float64{3, 6},
		},
		{
			name:  "crlf no final newline",
			in:    "a,b,c\r\n1,2,3\r\n4,5,6",
			names: []string{"a", "b"}, target: "c",
			x: []float64{1, 2, 4, 5}, y: []float64{3, 6},
		},
		{
			name:  "blank lines and bom",
			in:    "\uFEFFa,b\n\n1,2\n   \n3,4\n\n\r\n\n",
			names: []string{"a"}, target: "b",
			x: []float64{1, 3}, y: []float64{2, 4},
		},
		{
			name:  "semicolon quoted header",
			in:    "\"fixed acidity\";\"volatile acidity\";\"quality\"\n7.4;0.7;5\n7.8;0.88;6\n",
			names: []string{"fixed acidity", "volatile acidity"}, target: "quality",
			x: []float64{7.4, 0.7, 7.8, 0.88}, y: []float64{5, 6},
		},
		{
			name:  "tab",
			in:    "x y\tz\n1\t2\n3\t4\n",
			names: []string{"x y"}, target: "z",
			x: []float64{1, 3}, y: []float64{2, 4},
		},
		{
			name:  "whitespace runs",
			in:    "  a   b\tc\n 1  2 3 \n4\t5   6\n",
			names: []string{"a", "b"}, target: "c",
			x: []float64{1, 2, 4, 5}, y: []float64{3, 6},
		},
		{
			name:  "comma space",
			in:    "a, b, c\n1, 2, 3\n",
			names: []string{"a", "b"}, target: "c",
			x: []float64{1, 2}, y: []float64{3},
		},
		{
			name:  "target by name",
			in:    "a,b,c\n1,2,3\n4,5,6\n",
			opt:   CSVOptions{Target: "a"},
			names: []string{"b", "c"}, target: "a",
			x: []float64{2, 3, 5, 6}, y: []float64{1, 4},
		},
		{
			name:  "target by number",
			in:    "a,b,c\n1,2,3\n4,5,6\n",
			opt:   CSVOptions{Target: "2"},
			names: []string{"a", "c"}, target: "b",
			x: []float64{1, 3, 4, 6}, y: []float64{2, 5},
		},
		{
			name:  "target from end",
			in:    "a,b,c\n1,2,3\n4,5,6\n",
			opt:   CSVOptions{Target: "-3"},
			names: []string{"b", "c"}, target: "a",
			x: []float64{2, 3, 5, 6}, y: []float64{1, 4},
		},
		{
			name:  "name beats number",
			in:    "3,2,1\n1,2,3\n",
			opt:   CSVOptions{Target: "1", Header: true},
			names: []string{"3", "2"}, target: "1",
			x: []float64{1, 2}, y: []float64{3},
		},
		{
			name:  "headerless numeric file keeps its first row",
			in:    "3,2,1\n1,2,3\n",
			names: []string{"V1", "V2"}, target: "V3",
			x: []float64{3, 2, 1, 2}, y: []float64{1, 3},
		},
		{
			name:  "headerless, target by number",
			in:    "0.5 7 1\n-1e3 8 0\n",
			opt:   CSVOptions{Target: "1"},
			names: []string{"V2", "V3"}, target: "V1",
			x: []float64{7, 1, 8, 0}, y: []float64{0.5, -1e3},
		},
		{
			name:  "a header with one name is a header",
			in:    "1,2,y\n1,2,3\n",
			names: []string{"1", "2"}, target: "y",
			x: []float64{1, 2}, y: []float64{3},
		},
		{
			name:  "no header",
			in:    "1 2 3\n4 5 6\n",
			opt:   CSVOptions{NoHeader: true},
			names: []string{"V1", "V2"}, target: "V3",
			x: []float64{1, 2, 4, 5}, y: []float64{3, 6},
		},
		{
			name:  "explicit delimiter",
			in:    "a|b\n1|-2.5e3\n",
			opt:   CSVOptions{Delimiter: '|'},
			names: []string{"a"}, target: "b",
			x: []float64{1}, y: []float64{-2500},
		},
		{
			name:  "quoted data and escaped quote",
			in:    "\"a \"\"x\"\"\",\"b,c\"\n\"1\", \"2\" \n",
			names: []string{`a "x"`}, target: "b,c",
			x: []float64{1}, y: []float64{2},
		},
		{
			name:  "delimiter inside quotes ignored by detection",
			in:    "\"a,b\";\"c,d\";e\n1;2;3\n",
			names: []string{"a,b", "c,d"}, target: "e",
			x: []float64{1, 2}, y: []float64{3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseCSV(strings.NewReader(tc.in), "in.csv", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkDataset(t, d, tc.names, tc.target, tc.x, tc.y)
			if d.Source != "in.csv" {
				t.Errorf("Source = %q", d.Source)
			}
		})
	}
}

func checkDataset(t *testing.T, d *Dataset, names []string, target string, x, y []float64) {
	t.Helper()
	if strings.Join(d.Names, "|") != strings.Join(names, "|") {
		t.Errorf("Names = %q, want %q", d.Names, names)
	}
	if d.Target != target {
		t.Errorf("Target = %q, want %q", d.Target, target)
	}
	if d.Len() != len(y) || d.Dim() != len(names) {
		t.Fatalf("Len, Dim = %d, %d, want %d, %d", d.Len(), d.Dim(), len(y), len(names))
	}
	want := mat.NewDense(len(y), len(names), x)
	if !mat.Equal(d.X, want) {
		t.Errorf("X = %v, want %v", mat.Formatted(d.X), mat.Formatted(want))
	}
	for i := range y {
		if d.Y[i] != y[i] {
			t.Errorf("Y = %v, want %v", d.Y, y)
			break
		}
	}
}

func TestParseCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		opt  CSVOptions
		want string // full error message
		line int
		col  int
	}{
		{"empty", "", CSVOptions{}, "f.csv: empty file: expected a header row", 0, 0},
		{"only blank lines", "\n  \r\n\n", CSVOptions{}, "f.csv: empty file: expected a header row", 0, 0},
		{"empty no header", "", CSVOptions{NoHeader: true}, "f.csv: empty file: expected a data row", 0, 0},
		{"ragged", "a,b,c,d\n1,2,3,4\n1,2,3\n", CSVOptions{}, "f.csv:3: row has 3 fields, header has 4", 3, 0},
		{"ragged first", "a,b,c,d\n1,2,3\n", CSVOptions{}, "f.csv:2: row has 3 fields, header has 4", 2, 0},
		{"ragged long", "a,b\n1,2\n\n1,2,3\n", CSVOptions{}, "f.csv:4: row has 3 fields, header has 2", 4, 0},
		{"ragged no header", "1 2\n3 4 5\n", CSVOptions{NoHeader: true}, "f.csv:2: row has 3 fields, first row has 2", 2, 0},
		{"non-numeric", "a,b,c\n1,2,3\n4,abc,6\n", CSVOptions{}, `f.csv:3:2: cannot parse "abc" as a number: column "b" holds numbers (line 2: "2"); a text column holds no numbers`, 3, 2},
		{"non-numeric crlf", "a,b,c\r\n1,2,3\r\n4,5,x\r\n", CSVOptions{}, `f.csv:3:3: cannot parse "x" as a number: column "c" holds numbers (line 2: "3"); a text column holds no numbers`, 3, 3},
		{"NA", "a;b\n1;NA\n", CSVOptions{}, `f.csv:2:2: missing value ("NA") in column "b": 1 row has one; missing values are not imputed: drop those rows (or the column)`, 2, 2},
		{"missing", "a,b,c\n1,,3\n", CSVOptions{}, "f.csv:2:2: missing value (empty cell) in column \"b\": 1 row has one; missing values are not imputed: drop those rows (or the column)", 2, 2},
		{"nan", "a,b\n1,2\nNaN,2\n", CSVOptions{}, `f.csv:3:1: missing value ("NaN") in column "a": 1 row has one; missing values are not imputed: drop those rows (or the column)`, 3, 1},
		{"nan lower", "a,b\n1,nan\n", CSVOptions{}, `f.csv:2:2: missing value ("nan") in column "b": 1 row has one; missing values are not imputed: drop those rows (or the column)`, 2, 2},
		{"inf", "a,b\n1,2\n3,-Inf\n", CSVOptions{}, "f.csv:3:2: Inf is not allowed", 3, 2},
		{"infinity", "a b\n+infinity 2\n", CSVOptions{}, "f.csv:2:1: Inf is not allowed", 2, 1},
		{"overflow", "a,b\n1e400,2\n", CSVOptions{}, `f.csv:2:1: "1e400" is out of range for float64`, 2, 1},
		{"target missing", "a,b,c\n1,2,3\n", CSVOptions{Target: "foo"}, `f.csv:1: target column "foo" not found; columns are: a, b, c`, 1, 0},
		{"target missing after blank", "\na,b,c\n1,2,3\n", CSVOptions{Target: "foo"}, `f.csv:2: target column "foo" not found; columns are: a, b, c`, 2, 0},
		{"target range", "a,b,c\n1,2,3\n", CSVOptions{Target: "4"}, "f.csv:1: target column 4 out of range: there are 3 columns (use 1..3, or -1..-3 from the end)", 1, 0},
		{"target zero", "a,b,c\n1,2,3\n", CSVOptions{Target: "0"}, "f.csv:1: target column 0 out of range: there are 3 columns (use 1..3, or -1..-3 from the end)", 1, 0},
		{"target range negative", "a,b,c\n1,2,3\n", CSVOptions{Target: "-4"}, "f.csv:1: target column -4 out of range: there are 3 columns (use 1..3, or -1..-3 from the end)", 1, 0},
		{"headerless target by name", "1,2\n3,4\n", CSVOptions{Target: "y"}, `f.csv:1: target column "y" not found; columns are: V1, V2 (the first row is all numbers, so it was read as data, not as a header; set Header if it is one)`, 1, 0},
		{"both header options", "a,b\n1,2\n", CSVOptions{Header: true, NoHeader: true}, "f.csv: both NoHeader and Header are set", 0, 0},
		{"ragged fast path", "a,b,c\n1,2,3,4\n", CSVOptions{}, "f.csv:2: row has 4 fields, header has 3", 2, 0},
		{"duplicate", "a,b,a\n1,2,3\n", CSVOptions{}, `f.csv:1:3: duplicate column name "a" (also column 1)`, 1, 3},
		{"duplicate quoted", "\"x\";\"y\";\"y\"\n1;2;3\n", CSVOptions{}, `f.csv:1:3: duplicate column name "y" (also column 2)`, 1, 3},
		{"empty name", "a,,c\n1,2,3\n", CSVOptions{}, "f.csv:1:2: empty column name", 1, 2},
		{"one column", "y\n1\n2\n", CSVOptions{}, "f.csv:1: need at least 2 columns (features and a target), found 1 (delimiter ',')", 1, 0},
		{"header only", "a,b\n", CSVOptions{}, "f.csv:2: no data rows after the header", 2, 0},
		{"unterminated quote", "\"a,b\n1,2\n", CSVOptions{Delimiter: ','}, "f.csv:1:1: unterminated quoted field", 1, 1},
		{"text after quote", "a,b\n\"1\"x,2\n", CSVOptions{}, "f.csv:2:1: unexpected text after closing quote", 2, 1},
		{"bad delimiter", "a,b\n1,2\n", CSVOptions{Delimiter: '"'}, `f.csv: invalid delimiter '"'`, 0, 0},
		{"bad gzip", "\x1f\x8bnot gzip", CSVOptions{}, "f.csv: gzip: invalid header", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseCSV(strings.NewReader(tc.in), "f.csv", tc.opt)
			if err == nil {
				t.Fatalf("no error; got %d×%d data set", d.Len(), d.Dim())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
			if pe.File != "f.csv" || pe.Line != tc.line || pe.Column != tc.col {
				t.Errorf("position %s:%d:%d, want f.csv:%d:%d", pe.File, pe.Line, pe.Column, tc.line, tc.col)
			}
		})
	}
}

func TestParseCSVLongTargetList(t *testing.T) {
	var b strings.Builder
	for j := range 30 {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString("c")
		b.WriteString(string(rune('A' + j%26)))
		b.WriteString(strings.Repeat("x", j/26))
	}
	_, err := ParseCSV(strings.NewReader(b.String()+"\n"), "wide", CSVOptions{Target: "nope"})
	if err == nil || !strings.Contains(err.Error(), "... (11 more), cDx") {
		t.Errorf("unexpected error %v", err)
	}
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadCSVGzip(t *testing.T) {
	dir := t.TempDir()
	gz := gzipBytes(t, "RMSD,F1,F2\r\n1.5,2,3\r\n4,5,6.25\r\n")
	// Detection is by magic bytes, so the extension does not matter.
	for _, name := range []string{"casp.csv.gz", "casp.csv"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, gz, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadCSV(path, CSVOptions{Target: "RMSD"})
		if err != nil {
			t.Fatal(err)
		}
		checkDataset(t, d, []string{"F1", "F2"}, "RMSD", []float64{2, 3, 5, 6.25}, []float64{1.5, 4})
		if d.Source != path {
			t.Errorf("Source = %q, want %q", d.Source, path)
		}
	}

	// A corrupt gzip stream is reported as a ParseError.
	bad := append([]byte(nil), gz...)
	bad[len(bad)-5] ^= 0xff // damage the CRC-32
	_, err := ParseCSV(bytes.NewReader(bad), "bad.gz", CSVOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("corrupt gzip: got %v", err)
	}

	// So is a truncated one.
	_, err = ParseCSV(bytes.NewReader(gz[:len(gz)-10]), "short.gz", CSVOptions{})
	if err == nil || err.Error() != "short.gz:4: gzip: unexpected EOF" {
		t.Errorf("truncated gzip: got %v", err)
	}

	// Errors in compressed files have line numbers of the decompressed text.
	path := filepath.Join(dir, "bad.csv.gz")
	if err := os.WriteFile(path, gzipBytes(t, "a,b\n1,2\n3,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadCSV(path, CSVOptions{})
	if want := path + `:3:2: cannot parse "x" as a number: column "b" holds numbers (line 2: "2"); a text column holds no numbers`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestReadCSVMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.csv")
	_, err := ReadCSV(path, CSVOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %T %v", err, err)
	}
	if want := path + ": no such file or directory"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestParseCSVReadError(t *testing.T) {
	r := iotest.TimeoutReader(strings.NewReader("a,b\n" + strings.Repeat("1,2\n", 20000)))
	_, err := ParseCSV(r, "slow", CSVOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, iotest.ErrTimeout) || pe.Line == 0 {
		t.Errorf("got %v", err)
	}
}

func TestParseCSVLongLine(t *testing.T) {
	// Lines longer than any buffer size are fine.
	const k = 50000
	var h, r strings.Builder
	for j := range k {
		if j > 0 {
			h.WriteByte(',')
			r.WriteByte(',')
		}
		h.WriteString("c" + strconv.Itoa(j))
		h.WriteString(strings.Repeat("x", j%7))
		r.WriteString("1")
	}
	in := h.String() + "\n" + r.String() + "\n"
	d, err := ParseCSV(strings.NewReader(in), "long", CSVOptions{Target: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 1 || d.Dim() != k-1 {
		t.Errorf("dims %d×%d", d.Len(), d.Dim())
	}
}

// endless yields n bytes of '1' and no line end.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = '1'
	}
	e.n -= k
	return k, nil
}

// TestParseCSVLineLimit: a 200 MB file of one line is rejected after reading
// MaxLineBytes, without holding the file in memory.
func TestParseCSVLineLimit(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseCSV(&endless{200 << 20}, "one-line.csv", CSVOptions{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "one-line.csv:1: line longer than 16 MiB") {
		t.Errorf("err = %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxLineBytes { // total, not peak
		t.Errorf("allocated %d MB to reject the line", alloc>>20)
	}
	_, err = ParseLIBSVM(&endless{40 << 20}, "one-line.svm", 0)
	if err == nil || !strings.Contains(err.Error(), "line longer") {
		t.Errorf("LIBSVM: err = %v", err)
	}
}

// The real UCI and CASP files, if present in the shared data directory.
const sharedData = "/work/shared/data"

func TestReadWineQuality(t *testing.T) {
	path := filepath.Join(sharedData, "winequality-red.csv")
	if _, err := os.Stat(path); err != nil {
		t.Skip("winequality-red.csv not available")
	}
	d, err := ReadCSV(path, CSVOptions{Target: "quality"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 1599 || d.Dim() != 11 {
		t.Fatalf("dims %d×%d, want 1599×11", d.Len(), d.Dim())
	}
	if d.Names[0] != "fixed acidity" || d.Names[10] != "alcohol" || d.Target != "quality" {
		t.Errorf("names %q, target %q", d.Names, d.Target)
	}
	counts := map[float64]int{}
	for _, y := range d.Y {
		counts[y]++
	}
	want := map[float64]int{3: 10, 4: 53, 5: 681, 6: 638, 7: 199, 8: 18}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("quality %v: %d rows, want %d", k, counts[k], v)
		}
	}
	if d.X.At(0, 0) != 7.4 || d.X.At(0, 1) != 0.7 {
		t.Errorf("first row %v", d.X.RawRowView(0))
	}
}

func TestReadCASP(t *testing.T) {
	path := filepath.Join(sharedData, "CASP.csv.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skip("CASP.csv.gz not available")
	}
	d, err := ReadCSV(path, CSVOptions{Target: "RMSD"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 45730 || d.Dim() != 9 {
		t.Fatalf("dims %d×%d, want 45730×9", d.Len(), d.Dim())
	}
	if d.Names[0] != "F1" || d.Names[8] != "F9" {
		t.Errorf("names %q", d.Names)
	}
	if d.Y[0] != 17.284 || d.X.At(0, 8) != 27.0302 {
		t.Errorf("first row y=%v x=%v", d.Y[0], d.X.RawRowView(0))
	}
}

func TestReadSkin(t *testing.T) {
	path := filepath.Join(sharedData, "Skin_NonSkin.txt.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skip("Skin_NonSkin.txt.gz not available")
	}
	d, err := ReadCSV(path, CSVOptions{NoHeader: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 245057 || d.Dim() != 3 {
		t.Fatalf("dims %d×%d", d.Len(), d.Dim())
	}
	skin := 0
	for _, y := range d.Y {
		if y == 1 {
			skin++
		}
	}
	if skin != 50859 {
		t.Errorf("%d skin rows, want 50859", skin)
	}
}

func TestDetectDelimiter(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  rune
	}{
		{[]string{"a,b", "1,2"}, ','},
		{[]string{"a;b", "1,5;2,5"}, ';'},
		{[]string{"a\tb", "1\t2"}, '\t'},
		{[]string{"a b", "1 2"}, ' '},
		{[]string{"a, b", "1, 2"}, ','},
		{[]string{"a b;c", "1;2"}, ';'},
		{[]string{`"a;b","c"`, "1,2"}, ','},
		{[]string{"a,b,c", "1,2"}, ','}, // inconsistent: reported later as a ragged row
		{[]string{"y"}, ','},
	} {
		if got := detectDelimiter(tc.lines); got != tc.want {
			t.Errorf("detectDelimiter(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}
