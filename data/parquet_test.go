package data_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// The .parquet files under testdata/parquet were written by DuckDB
// (testdata/parquet/gen.cjs), an independent implementation of the format.

// TestParquetAustralianEqualsCSV reads the Australian credit data written by
// DuckDB with a different numeric type in nearly every column (BOOLEAN,
// DECIMAL in INT32 and INT64, unsigned and signed integers, FLOAT, DOUBLE)
// and checks every value, bit for bit, against the same data parsed from
// text.
func TestParquetAustralianEqualsCSV(t *testing.T) {
	want := data.Australian()
	got, err := data.ReadParquet("testdata/parquet/australian.parquet", data.ParquetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != want.Len() || got.Dim() != want.Dim() {
		t.Fatalf("%d×%d, want %d×%d", got.Len(), got.Dim(), want.Len(), want.Dim())
	}
	if got.Target != "class" || strings.Join(got.Names, ",") != strings.Join(want.Names, ",") {
		t.Errorf("names %v target %q, want %v class", got.Names, got.Target, want.Names)
	}
	for i := 0; i < want.Len(); i++ {
		for j := 0; j < want.Dim(); j++ {
			if g, w := got.X.At(i, j), want.X.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("row %d, %s: %v, want %v", i+1, want.Names[j], g, w)
			}
		}
		if got.Y[i] != want.Y[i] {
			t.Fatalf("row %d: class %v, want %v", i+1, got.Y[i], want.Y[i])
		}
	}
}

// groupsRow is row i of groups.parquet, as gen.cjs computes it.
func groupsRow(i int) (x, z, y float64) {
	x = float64(7919*i%1000) / 8
	z = float64(i)/4 - 600
	if 31*i%7 < 3 {
		y = 1
	}
	return x, z, y
}

// TestParquetRowGroupsStreamed reads the 5000 rows of groups.parquet (3 row
// groups, a dictionary-encoded column) in blocks of 300 rows with chosen
// columns, so blocks end inside pages and at row-group boundaries.
func TestParquetRowGroupsStreamed(t *testing.T) {
	p, err := data.OpenParquet("testdata/parquet/groups.parquet", data.ParquetOptions{Target: "y", Features: []string{"z", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Len() != 5000 || strings.Join(p.Names(), ",") != "z,x" || p.Target() != "y" {
		t.Fatalf("Len %d names %v target %s", p.Len(), p.Names(), p.Target())
	}
	x := make([]float64, 2*300)
	y := make([]float64, 300)
	row, blocks := 0, 0
	for {
		n, err := p.Next(x, y)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		blocks++
		for k := 0; k < n; k++ {
			wx, wz, wy := groupsRow(row)
			if x[2*k] != wz || x[2*k+1] != wx || y[k] != wy {
				t.Fatalf("row %d: (z, x, y) = (%v, %v, %v), want (%v, %v, %v)", row+1, x[2*k], x[2*k+1], y[k], wz, wx, wy)
			}
			row++
		}
	}
	if row != 5000 {
		t.Fatalf("%d rows, want 5000", row)
	}
	// Groups of 2048, 2048 and 904 rows: 7 + 7 + 4 blocks, since blocks stop
	// at the row-group ends (2048 = 6×300 + 248).
	if blocks != 18 {
		t.Errorf("%d blocks, want 18 (blocks do not span row groups)", blocks)
	}
}

func TestParquetErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		opt  data.ParquetOptions
		want string
	}{
		{"bad.parquet", data.ParquetOptions{Features: []string{"x"}}, `row 3, column "x": missing value (null)`},
		{"bad.parquet", data.ParquetOptions{}, `column "s": type BYTE_ARRAY is not numeric`},
		{"bad.parquet", data.ParquetOptions{Target: "z"}, `target column "z" not found; columns are: x, s, y`},
		{"groups.parquet", data.ParquetOptions{Features: []string{"x", "w"}}, `feature column "w" not found`},
		{"groups.parquet", data.ParquetOptions{Features: []string{"x", "x"}}, `feature column "x" is listed twice`},
		{"groups.parquet", data.ParquetOptions{Features: []string{"y"}}, `column "y" is both a feature and the target`},
		{"gen.cjs", data.ParquetOptions{}, "not a Parquet file"},
	} {
		_, err := data.ReadParquet("testdata/parquet/"+tc.file, tc.opt)
		var pe *data.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "testdata/parquet/"+tc.file+": ") {
			t.Errorf("%s %+v: error %v, want a *ParseError naming the file and containing %q", tc.file, tc.opt, err, tc.want)
		}
	}
	if _, err := data.ReadParquet("testdata/parquet/none.parquet", data.ParquetOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestParquetSamePosteriorAsCSV runs the same SGLD chains on the Australian
// data read from Parquet and from text: the draws agree bit for bit.
func TestParquetSamePosteriorAsCSV(t *testing.T) {
	pq, err := data.ReadParquet("testdata/parquet/australian.parquet", data.ParquetOptions{Target: "class"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(ds *data.Dataset) *langevin.Trace {
		data.FitScaler(ds.X).Transform(ds.X)
		m, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := sampler.SGLD{Step: schedule.Constant(2e-3), Batch: sampler.Minibatch{Size: 64}}
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{Chains: 2, Iters: 2000, BurnIn: 500, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := run(data.Australian()), run(pq)
	sa := diag.Summarize(a.Names, a.Params()).String()
	sb := diag.Summarize(b.Names, b.Params()).String()
	if sa != sb {
		t.Errorf("posterior summaries differ:\nCSV:\n%s\nParquet:\n%s", sa, sb)
	}
	for c := range a.Draws {
		for i, row := range a.Draws[c] {
			for j, v := range row {
				if math.Float64bits(v) != math.Float64bits(b.Draws[c][i][j]) {
					t.Fatalf("chain %d draw %d %s: %v from CSV, %v from Parquet", c+1, i+1, a.Names[j], v, b.Draws[c][i][j])
				}
			}
		}
	}
}

// TestParquetCorrupt: a malformed file gives an error, never a panic (the
// byte at 21825 of groups.parquet set to 0xff made the library index out of
// range), and so do truncated files.
func TestParquetCorrupt(t *testing.T) {
	b, err := os.ReadFile("testdata/parquet/groups.parquet")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	try := func(what string, c []byte) error {
		t.Helper()
		if err := os.WriteFile(path, c, 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panic %v", what, r)
			}
		}()
		_, err := data.ReadParquet(path, data.ParquetOptions{})
		return err
	}
	c := append([]byte(nil), b...)
	c[21825] = 0xff
	if err := try("byte 21825", c); err == nil || !strings.Contains(err.Error(), "corrupt Parquet data") {
		t.Errorf("byte 21825 = 0xff: error %v, want corrupt Parquet data", err)
	}
	for i := 0; i < len(b); i += 97 {
		c := append([]byte(nil), b...)
		c[i] ^= 0xff
		try("byte "+strconv.Itoa(i), c)
	}
	for _, cut := range []int{4, 100, len(b) / 2, len(b) - 10} {
		if err := try("cut", b[:cut]); err == nil {
			t.Errorf("file cut at %d bytes: no error", cut)
		}
	}
}

// TestParquetNumericTarget: --target by number picks the column as for a
// CSV file (1-based, −1 the last); it was ignored (issue 24, row 12): the
// last column was the target whatever the number.
func TestParquetNumericTarget(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   string
		feats  []string
	}{
		{"1", "i", []string{"x", "z", "y"}},
		{"3", "z", []string{"i", "x", "y"}},
		{"-1", "y", []string{"i", "x", "z"}},
		{"-3", "x", []string{"i", "z", "y"}},
	} {
		p, err := data.OpenParquet("testdata/parquet/groups.parquet", data.ParquetOptions{Target: tc.target})
		if err != nil {
			t.Fatalf("--target %s: %v", tc.target, err)
		}
		if p.Target() != tc.want || !slices.Equal(p.Names(), tc.feats) {
			t.Errorf("--target %s: target %q, features %v; want %q, %v", tc.target, p.Target(), p.Names(), tc.want, tc.feats)
		}
		p.Close()
	}
	if _, err := data.OpenParquet("testdata/parquet/groups.parquet", data.ParquetOptions{Target: "5"}); err == nil || !strings.Contains(err.Error(), "target column 5 out of range") {
		t.Errorf("--target 5 of 4 columns: %v", err)
	}
}

// TestParquetCorruptFooterCheap is row 9 of issue 24: an 11 KB corrupt
// Parquet file took 932 MB and 13 s before its error; the footer length
// it claims (here 4 GiB) is checked against the file's size first.
func TestParquetCorruptFooterCheap(t *testing.T) {
	b, err := os.ReadFile("testdata/parquet/groups.parquet")
	if err != nil {
		t.Fatal(err)
	}
	c := append([]byte(nil), b...)
	c[len(c)-5] = 0xff // the high byte of the footer's length
	path := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(path, c, 0o644)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = data.ReadParquet(path, data.ParquetOptions{})
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "footer claims") {
		t.Errorf("error %v, want the footer's claim named", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 16<<20 {
		t.Errorf("%d MiB allocated for a %d KB file", a>>20, len(c)>>10)
	}
	// A bound on what a file holds: the rows it claims, checked first.
	if _, err := data.ReadParquet("testdata/parquet/groups.parquet", data.ParquetOptions{MaxBytes: 1000}); !errors.Is(err, data.ErrTooLarge) {
		t.Errorf("MaxBytes 1000: %v, want ErrTooLarge", err)
	}
}
