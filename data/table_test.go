package data_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestReadTable: the named columns of a file, as read — numbers, or level
// codes into levels sorted in byte order — with the other columns ignored
// whatever they hold, missing values an error or dropped, gzip input
// decompressed, Parquet's text columns categorical; LIBSVM refused; levels'
// text counted against MaxBytes.
func TestReadTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := "y,junk,g,x\n1.5,a,b,1\n2,NA,a,2\n0.5,3,c,NA\n3,x,b,4\n"
	csv := write("t.csv", []byte(text))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(text))
	zw.Close()
	gz := write("t.csv.gz", z.Bytes())
	want := []data.TableColumn{
		{Name: "y", Num: []float64{1.5, 2, 3}},
		{Name: "g", Codes: []int{1, 0, 1}, Levels: []string{"a", "b"}},
		{Name: "x", Num: []float64{1, 2, 4}},
	}
	for _, path := range []string{csv, gz} {
		tab, err := data.ReadTable(path, "auto", data.TableOptions{Columns: []string{"x", "y", "g", "absent"}, Missing: data.MissingDrop})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(tab.Columns, want) || tab.Rows != 3 || tab.RowsRead != 4 || tab.RowsDropped != 1 {
			t.Errorf("%s: %+v", path, tab)
		}
	}
	_, err := data.ReadTable(csv, "csv", data.TableOptions{Columns: []string{"y", "x"}})
	if !errors.Is(err, data.ErrMissing) || !strings.Contains(err.Error(), `t.csv:4:4: missing value ("NA") in column "x"`) {
		t.Errorf("missing value: %v", err)
	}
	all, err := data.ParseTable(strings.NewReader("a;b\n1;x\n2;y\n"), "s", data.TableOptions{})
	if err != nil || len(all.Columns) != 2 || all.Columns[1].Levels[1] != "y" {
		t.Errorf("every column (delimiter ';' detected): %+v, %v", all, err)
	}
	// Parquet: a text column is categorical, a null missing.
	bad := filepath.Join("testdata", "parquet", "bad.parquet")
	pq, err := data.ReadTable(bad, "auto", data.TableOptions{Columns: []string{"s", "x"}, Missing: data.MissingDrop})
	if err != nil || pq.Rows != 3 || !reflect.DeepEqual(pq.Columns[0].Num, []float64{1.5, 2.5, 4}) || !reflect.DeepEqual(pq.Columns[1].Levels, []string{"a", "b", "d"}) {
		t.Errorf("Parquet: %+v, %v", pq, err)
	}
	lib := write("t.libsvm", []byte("1 1:0.5 2:1\n0 1:0.2\n"))
	if _, err := data.ReadTable(lib, "auto", data.TableOptions{Columns: []string{"y"}}); err == nil || !strings.Contains(err.Error(), "no named columns") {
		t.Errorf("LIBSVM: %v", err)
	}
	// 2,000 levels of 1 KB text: 2 MB of levels, past a 1 MB bound.
	var b strings.Builder
	b.WriteString("y,g\n")
	for i := range 2000 {
		b.WriteString("1," + strings.Repeat("z", 1000) + strings.Repeat("a", i%7) + string(rune('A'+i%26)) + strings.Repeat("b", i/182) + "\n")
	}
	long := write("long.csv", []byte(b.String()))
	if _, err := data.ReadTable(long, "csv", data.TableOptions{Columns: []string{"y", "g"}, MaxBytes: 1 << 20}); !errors.Is(err, data.ErrTooLarge) {
		t.Errorf("levels past MaxBytes: %v", err)
	}
}
