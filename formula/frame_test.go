package formula

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadCSVFileSameAsReadCSV: the two-pass file reader gives the frame
// ReadCSV gives — numeric columns, factor levels sorted with their codes,
// a column numeric until its last row made a factor, a column with Inf —
// and the same error, naming line and column, on bad files.
func TestReadCSVFileSameAsReadCSV(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text string }{
		{"ok", "y, x ,g,late,inf\n1,0.5,b,1,1\n0,-2,a,2,Inf\n1,3e2,c,3,2\n0,1,b,x,3\n"},
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
			continue
		}
		if !reflect.DeepEqual(got.names, want.names) || got.n != want.n || !reflect.DeepEqual(got.cols, want.cols) {
			t.Errorf("%s: frame %+v, ReadCSV's %+v", c.name, got, want)
		}
		if c.name == "ok" {
			if g, _ := got.Column("g"); !reflect.DeepEqual(g.Codes, []int{1, 0, 2, 1}) || !reflect.DeepEqual(g.Levels, []string{"a", "b", "c"}) {
				t.Errorf("factor g: %+v", g)
			}
			if l, _ := got.Column("late"); l.Num != nil || len(l.Levels) != 4 {
				t.Errorf("column late (a string in its last row): %+v, want a factor of 4 levels", l)
			}
		}
	}
}
