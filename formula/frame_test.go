package formula

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadCSVFileSameAsReadCSV: the file reader gives the frame ReadCSV
// gives (both are data.ReadTable's) — numeric columns, factor levels sorted
// with their codes — and the same error, naming line and column, on bad
// files: a column of numbers and text (once silently a factor), Inf, a
// missing value, a repeated or empty name, a ragged row.
func TestReadCSVFileSameAsReadCSV(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text string }{
		{"ok", "y, x ,g\n1,0.5,b\n0,-2,a\n1,3e2,c\n0,1,b\n"},
		{"late text", "y,late\n1,1\n0,2\n1,x\n"},
		{"inf", "y,x\n1,2\n3,Inf\n"},
		{"missing", "y,x\n1,2\n3,NA\n"},
		{"empty cell", "y,x\n1,2\n,4\n"},
		{"repeated", "y,y\n1,2\n"},
		{"no rows", "y,x\n"},
		{"empty", ""},
		{"empty name", "y,\n1,2\n"},
		{"ragged", "y,x\n1,2\n3\n"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".csv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := ReadCSV(strings.NewReader(c.text), path)
		got, gerr := ReadCSVFile(path)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: error %v, ReadCSV's %v", c.name, gerr, werr)
			continue
		}
		if werr != nil {
			want := map[string]string{"late text": `late_text.csv:4:2: cannot parse "x" as a number: column "late" holds numbers`, "inf": "inf.csv:3:2: Inf is not allowed",
				"missing": `missing.csv:3:2: missing value ("NA") in column "x"`, "repeated": `duplicate column name "y"`, "ragged": "ragged.csv:3: row has 1 fields, header has 2"}[c.name]
			if !strings.Contains(werr.Error(), want) {
				t.Errorf("%s: error %v, want %q", c.name, werr, want)
			}
			continue
		}
		if c.name != "ok" {
			t.Errorf("%s: no error", c.name)
		}
		if !reflect.DeepEqual(got.names, want.names) || got.n != want.n || !reflect.DeepEqual(got.cols, want.cols) {
			t.Errorf("%s: frame %+v, ReadCSV's %+v", c.name, got, want)
		}
		if c.name == "ok" {
			if g, _ := got.Column("g"); !reflect.DeepEqual(g.Codes, []int{1, 0, 2, 1}) || !reflect.DeepEqual(g.Levels, []string{"a", "b", "c"}) {
				t.Errorf("factor g: %+v", g)
			}
			if x, _ := got.Column("x"); !reflect.DeepEqual(x.Num, []float64{0.5, -2, 300, 1}) {
				t.Errorf("column x: %+v", x)
			}
		}
	}
}
