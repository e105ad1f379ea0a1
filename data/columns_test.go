package data

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

const messyCSV = `id,age,region,plan,churn
C1,30,north,basic,no
C2,NA,south,pro,yes
C3,45,east,,no
C4,50,west,basic,yes
C5,28,south,max,no
C6,33,north,pro,yes
`

func TestParseCSVTyped(t *testing.T) {
	d, err := ParseCSV(strings.NewReader(messyCSV), "m.csv", CSVOptions{Target: "churn", ID: "id", Missing: MissingDrop})
	if err != nil {
		t.Fatal(err)
	}
	// Rows 2 (age NA) and 3 (plan empty) dropped: C1, C4, C5, C6.
	if !slices.Equal(d.IDs, []string{"C1", "C4", "C5", "C6"}) {
		t.Fatalf("IDs %v", d.IDs)
	}
	// region levels in the kept rows: north, south, west (east only in a
	// dropped row); plan: basic, max, pro.
	wantNames := []string{"age", "region[south]", "region[west]", "plan[max]", "plan[pro]"}
	if !slices.Equal(d.Names, wantNames) {
		t.Fatalf("Names %v, want %v", d.Names, wantNames)
	}
	want := [][]float64{
		{30, 0, 0, 0, 0},
		{50, 0, 1, 0, 0},
		{28, 1, 0, 1, 0},
		{33, 0, 0, 0, 1},
	}
	for i, row := range want {
		if got := d.X.RawRowView(i); !slices.Equal(got, row) {
			t.Errorf("row %d: %v, want %v", i, got, row)
		}
	}
	if !slices.Equal(d.Y, []float64{0, 1, 0, 1}) {
		t.Errorf("Y %v", d.Y)
	}
	c := d.Coding
	if !slices.Equal(c.TargetLevels, []string{"no", "yes"}) || c.RowsDropped != 2 || c.ID != "id" {
		t.Errorf("coding %+v", c)
	}
	if !slices.Equal(c.MissingRows, []MissingCount{{"age", 1}, {"plan", 1}}) {
		t.Errorf("missing rows %v", c.MissingRows)
	}
	desc := strings.Join(c.Describe(), "\n")
	for _, s := range []string{`reference "north"`, `"no" → 0, "yes" → 1`, "2 rows dropped", `column "id": ID`} {
		if !strings.Contains(desc, s) {
			t.Errorf("Describe lacks %q:\n%s", s, desc)
		}
	}

	// New rows with the coding: columns in another order, no target, an
	// extra column.
	newRows := "plan,extra,region,id,age\npro,1,west,N1,40\nbasic,2,north,N2,41\n"
	d2, err := ParseCSV(strings.NewReader(newRows), "new.csv", CSVOptions{Coding: c, OptionalTarget: true})
	if err != nil {
		t.Fatal(err)
	}
	if d2.Y != nil || !slices.Equal(d2.Names, wantNames) || !slices.Equal(d2.IDs, []string{"N1", "N2"}) || !slices.Equal(d2.Ignored, []string{"extra"}) {
		t.Fatalf("new rows: Y %v names %v IDs %v ignored %v", d2.Y, d2.Names, d2.IDs, d2.Ignored)
	}
	if got := d2.X.RawRowView(0); !slices.Equal(got, []float64{40, 0, 1, 0, 1}) {
		t.Errorf("new row 1: %v", got)
	}
	// An unseen level names line, column and level.
	_, err = ParseCSV(strings.NewReader("region,plan,age,id\neast,basic,1,N\nmoon,basic,2,M\n"), "new.csv", CSVOptions{Coding: c, OptionalTarget: true})
	if err == nil || !strings.HasPrefix(err.Error(), `new.csv:2:1: level "east" of column "region" is not one of the training data's levels (north, south, west; reference "north")`) {
		t.Errorf("unseen level: %v", err)
	}
	// With the target: its labels are the training data's.
	d3, err := ParseCSV(strings.NewReader("region,plan,age,churn\nwest,max,3,yes\n"), "new.csv", CSVOptions{Coding: c, OptionalTarget: true})
	if err != nil || !slices.Equal(d3.Y, []float64{1}) {
		t.Errorf("with target: %v %v", d3, err)
	}
	_, err = ParseCSV(strings.NewReader("region,plan,age,churn\nwest,max,3,maybe\n"), "new.csv", CSVOptions{Coding: c})
	if err == nil || !strings.Contains(err.Error(), `new.csv:2:4: label "maybe" of the target "churn"`) {
		t.Errorf("unseen label: %v", err)
	}
	_, err = ParseCSV(strings.NewReader("region,age\nwest,3\n"), "new.csv", CSVOptions{Coding: c, OptionalTarget: true})
	if err == nil || !strings.Contains(err.Error(), `no column "plan", which the training data have`) {
		t.Errorf("missing column: %v", err)
	}
}

func TestParseCSVTypedErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		opt      CSVOptions
		want     string
	}{
		{"missing counted", messyCSV, CSVOptions{ID: "id"},
			`m.csv:3:2: missing value ("NA") in column "age": 1 row has one; column "plan": 1 row has one; missing values are not imputed: drop those rows (or the column)`},
		{"text then number", "a,b\nx,1\n3,0\n", CSVOptions{},
			`m.csv:3:1: "3" is a number, but column "a" holds text (as "x" on line 2 is); a column is numbers or text`},
		{"id not found", messyCSV, CSVOptions{ID: "ident"}, `m.csv:1: ID column "ident" not found; columns are: id, age, region, plan, churn`},
		{"drop target", messyCSV, CSVOptions{Drop: []string{"churn"}}, `m.csv:1: column "churn" is the target: it cannot be dropped`},
		{"id is target", messyCSV, CSVOptions{ID: "churn"}, `m.csv:1: column "churn" is both the ID and the target`},
		{"bad rule", messyCSV, CSVOptions{Missing: "mean"}, `m.csv: missing-value rule "mean": expected "error" or "drop"`},
		{"all dropped", "a,b\nNA,1\n", CSVOptions{Missing: MissingDrop}, `m.csv: every row has a missing value (column "a": 1)`},
		{"only id", "a,b\nx,1\n", CSVOptions{ID: "a"}, `m.csv:1: no feature columns left (columns: a, b)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCSV(strings.NewReader(tc.in), "m.csv", tc.opt)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n got %v\nwant %s", err, tc.want)
			}
			var pe *ParseError
			if err != nil && !errors.As(err, &pe) {
				t.Errorf("%T is not a *ParseError", err)
			}
		})
	}
	_, err := ParseCSV(strings.NewReader(messyCSV), "m.csv", CSVOptions{ID: "id"})
	if !errors.Is(err, ErrMissing) {
		t.Errorf("missing value error %v does not wrap ErrMissing", err)
	}
}

func TestParseCSVCategoricalNumbers(t *testing.T) {
	// An integer-coded group listed as categorical; a text target of three
	// labels numbered in byte order; a +/− target coded − as 0.
	d, err := ParseCSV(strings.NewReader("g,x,y\n2,1.5,gold\n1,2,bronze\n3,0,silver\n2,1,gold\n"), "g.csv", CSVOptions{Categorical: []string{"g"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Names, []string{"g[2]", "g[3]", "x"}) || !slices.Equal(d.Y, []float64{1, 0, 2, 1}) {
		t.Errorf("names %v, Y %v", d.Names, d.Y)
	}
	if !slices.Equal(d.Coding.TargetLevels, []string{"bronze", "gold", "silver"}) {
		t.Errorf("target levels %v", d.Coding.TargetLevels)
	}
	for _, tc := range []struct {
		labels string
		want   []string
	}{
		{"+,-,+", []string{"-", "+"}},
		{"TRUE,FALSE,TRUE", []string{"FALSE", "TRUE"}},
		{"Yes,No,No", []string{"No", "Yes"}},
		{"b,a,b", []string{"a", "b"}},
	} {
		in := "x,y\n"
		for i, l := range strings.Split(tc.labels, ",") {
			in += strings.Repeat("1", i+1) + "," + l + "\n"
		}
		d, err := ParseCSV(strings.NewReader(in), "t.csv", CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Coding.TargetLevels, tc.want) {
			t.Errorf("%s: levels %v, want %v", tc.labels, d.Coding.TargetLevels, tc.want)
		}
		if d.Y[0] != float64(slices.Index(tc.want, strings.Split(tc.labels, ",")[0])) {
			t.Errorf("%s: Y %v", tc.labels, d.Y)
		}
	}
}

func TestReadFileTypedCSVOnly(t *testing.T) {
	_, err := ReadFile("testdata/moons_sklearn.csv", "libsvm", CSVOptions{ID: "x"})
	if err == nil || !strings.Contains(err.Error(), "read from delimited text (CSV) and Parquet only") {
		t.Errorf("libsvm with an ID column: %v", err)
	}
}

// TestParquetTyped reads a Parquet file with a text ID, a text column, an
// optional numeric column with a null and a text target by the rules of
// ParseCSV, and new rows by its Coding.
func TestParquetTyped(t *testing.T) {
	type row struct {
		ID     string   `parquet:"id"`
		Age    *float64 `parquet:"age,optional"`
		Region string   `parquet:"region"`
		Churn  string   `parquet:"churn"`
	}
	f := func(v float64) *float64 { return &v }
	path := filepath.Join(t.TempDir(), "t.parquet")
	write := func(rows []row) {
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewGenericWriter[row](fh)
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	write([]row{{"C1", f(30), "north", "no"}, {"C2", nil, "south", "yes"}, {"C3", f(45), "south", "yes"}, {"C4", f(50), "east", "no"}})
	_, err := ReadFile(path, "auto", CSVOptions{Target: "churn", ID: "id"})
	if err == nil || !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), `row 2, missing value (empty cell) in column "age": 1 row has one`) {
		t.Errorf("null without Missing drop: %v", err)
	}
	d, err := ReadFile(path, "auto", CSVOptions{Target: "churn", ID: "id", Missing: MissingDrop})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Names, []string{"age", "region[north]", "region[south]"}) || !slices.Equal(d.IDs, []string{"C1", "C3", "C4"}) || !slices.Equal(d.Y, []float64{0, 1, 0}) {
		t.Fatalf("names %v IDs %v Y %v", d.Names, d.IDs, d.Y)
	}
	if got := d.X.RawRowView(1); !slices.Equal(got, []float64{45, 0, 1}) {
		t.Errorf("row C3: %v", got)
	}
	// New rows by the coding: an unseen level names the row.
	write([]row{{"N1", f(20), "east", "no"}, {"N2", f(21), "moon", "no"}})
	_, err = ReadFile(path, "auto", CSVOptions{Coding: d.Coding, OptionalTarget: true})
	if err == nil || !strings.Contains(err.Error(), `row 2, column "region": level "moon" of column "region" is not one of the training data's levels`) {
		t.Errorf("unseen level: %v", err)
	}
}
