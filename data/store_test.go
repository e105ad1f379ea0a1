package data_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// writeCSV writes ds as a CSV file with a header and returns its path.
func writeCSV(t *testing.T, ds *data.Dataset) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(ds.Names, ",") + "," + ds.Target + "\n")
	for i := 0; i < ds.Len(); i++ {
		for j := 0; j < ds.Dim(); j++ {
			b.WriteString(strconvG(ds.X.At(i, j)) + ",")
		}
		b.WriteString(strconvG(ds.Y[i]) + "\n")
	}
	path := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func strconvG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// storeFrom writes a store from src and opens it.
func storeFrom(t *testing.T, src data.BlockSource, f32 bool) *data.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.lvs")
	if _, err := data.WriteStore(path, src, data.StoreOptions{Float32: f32, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if !data.IsStore(path) {
		t.Fatal("IsStore = false")
	}
	s, err := data.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStoreFromCSV converts the Australian data from CSV to a store in
// float64 (every value exact) and float32 (every value the float32 rounding),
// and reads it back whole, in blocks and row by row in random order with a
// tiny page budget (so pages are handed back between reads).
func TestStoreFromCSV(t *testing.T) {
	want := data.Australian()
	path := writeCSV(t, want)
	n, p := want.Len(), want.Dim()
	for _, tc := range []struct{ f32, mapped bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		f32 := tc.f32
		c, err := data.OpenCSV(path, data.CSVOptions{Target: "class"})
		if err != nil {
			t.Fatal(err)
		}
		s := storeFrom(t, c, f32)
		c.Close()
		if tc.mapped {
			if err := s.Map(); err != nil {
				t.Fatal(err)
			}
		}
		if s.Len() != n || s.Dim() != p || s.Target() != "class" || s.Float32() != f32 || strings.Join(s.Names(), ",") != strings.Join(want.Names, ",") {
			t.Fatalf("store %d×%d %v %q float32=%v", s.Len(), s.Dim(), s.Names(), s.Target(), s.Float32())
		}
		if s.Mapped() != (tc.mapped && runtime.GOOS == "linux") {
			t.Errorf("Mapped() = %v after Map: %v on %s", s.Mapped(), tc.mapped, runtime.GOOS)
		}
		round := func(v float64) float64 {
			if f32 {
				return float64(float32(v))
			}
			return v
		}
		got := s.Dataset()
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				if g, w := got.X.At(i, j), round(want.X.At(i, j)); g != w {
					t.Fatalf("%+v row %d col %d: %v, want %v", tc, i+1, j+1, g, w)
				}
			}
			if got.Y[i] != want.Y[i] {
				t.Fatalf("row %d: y %v, want %v", i+1, got.Y[i], want.Y[i])
			}
		}
		s.Budget = 3 * 4096
		x, y := make([]float64, p), make([]float64, 1)
		for k := 0; k < 2000; k++ {
			i := (k * 7919) % n
			s.ReadRows(i, x, y)
			for j := range x {
				if x[j] != round(want.X.At(i, j)) {
					t.Fatalf("random read of row %d col %d: %v", i+1, j+1, x[j])
				}
			}
		}
		if a := testing.AllocsPerRun(100, func() { s.ReadRows(17, x, y) }); a != 0 {
			t.Errorf("ReadRows: %v allocs, want 0", a)
		}
	}
}

// TestStoreFromParquet converts groups.parquet (3 row groups) and checks
// every row.
func TestStoreFromParquet(t *testing.T) {
	pq, err := data.OpenParquet("testdata/parquet/groups.parquet", data.ParquetOptions{Target: "y", Features: []string{"x", "z"}})
	if err != nil {
		t.Fatal(err)
	}
	defer pq.Close()
	s := storeFrom(t, pq, true)
	if s.Len() != 5000 {
		t.Fatalf("%d rows", s.Len())
	}
	x, y := make([]float64, 2*5000), make([]float64, 5000)
	s.ReadRows(0, x, y)
	for i := 0; i < 5000; i++ {
		wx, wz, wy := groupsRow(i)
		if x[2*i] != wx || x[2*i+1] != wz || y[i] != wy {
			t.Fatalf("row %d: %v %v %v", i+1, x[2*i], x[2*i+1], y[i])
		}
	}
}

func TestStoreErrors(t *testing.T) {
	dir := t.TempDir()
	c, err := data.OpenCSV(writeCSV(t, data.Australian()), data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.lvs")
	if _, err := data.WriteStore(good, c, data.StoreOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	b, _ := os.ReadFile(good)
	short := filepath.Join(dir, "short.lvs")
	os.WriteFile(short, b[:len(b)-5], 0o644)
	notStore := filepath.Join(dir, "x.lvs")
	os.WriteFile(notStore, []byte("a,b\n1,2\n"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{short, "truncated or corrupt"},
		{notStore, "not a langevin store"},
	} {
		_, err := data.OpenStore(tc.path)
		var pe *data.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("a,y\n1,0\n1e300,1\n"), 0o644)
	c, err = data.OpenCSV(big, data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := data.WriteStore(filepath.Join(dir, "big.lvs"), c, data.StoreOptions{Float32: true, Source: big}); err == nil || !strings.Contains(err.Error(), `row 2, column "a": 1e+300 is out of range for float32`) {
		t.Errorf("float32 overflow: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.lvs.tmp")); err == nil {
		t.Error("temporary file left behind")
	}
}

// A streamed CSV file whose first row is numbers only (UCI's headerless
// Skin_NonSkin.txt) is read as ParseCSV reads it: that row is data and the
// columns are V1, V2, …; convert lost the first row and named the target
// after its value.
func TestOpenCSVHeaderless(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skin.txt")
	os.WriteFile(path, []byte("74\t85\t123\t1\n73\t84\t122\t1\n255\t255\t255\t2\n"), 0o644)
	c, err := data.OpenCSV(path, data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	x, y := make([]float64, 9), make([]float64, 3)
	n, _ := c.Next(x, y)
	if c.Target() != "V4" || strings.Join(c.Names(), ",") != "V1,V2,V3" || n != 3 || x[0] != 74 || y[2] != 2 {
		t.Errorf("target %q, names %v, %d rows, first x %v, last y %v; want V4, V1..V3, 3 rows, 74, 2", c.Target(), c.Names(), n, x[0], y[2])
	}
	d, err := data.ReadFile(path, "auto", data.CSVOptions{})
	if err != nil || d.Target != c.Target() || d.Len() != n {
		t.Errorf("ReadFile: target %q, %d rows (%v); OpenCSV: %q, %d", d.Target, d.Len(), err, c.Target(), n)
	}
}
