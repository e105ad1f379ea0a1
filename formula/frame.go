package formula

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin/data"
)

// Table is the data a formula reads: columns by name, numeric or
// categorical. Frame implements it; so can any typed table.
type Table interface {
	// Len returns the number of rows.
	Len() int
	// Column returns the column called name: Num holds a numeric column's
	// values; a categorical column has Num nil, level codes 0 … L−1 in Codes
	// and the level names in Levels.
	Column(name string) (c Column, ok bool)
}

// Column is one column of a Table.
type Column struct {
	Num    []float64
	Codes  []int
	Levels []string
}

// Frame is an in-memory Table. A column is numeric when every value parses
// as a number and categorical otherwise, with its levels sorted (as R's
// factor() sorts strings); "" and NA are missing values, an error.
type Frame struct {
	n     int
	names []string
	cols  map[string]Column
}

// Len returns the number of rows.
func (f *Frame) Len() int { return f.n }

// Names returns the column names in file order.
func (f *Frame) Names() []string { return f.names }

// Column returns the column called name.
func (f *Frame) Column(name string) (Column, bool) {
	c, ok := f.cols[name]
	return c, ok
}

// AddNumeric adds (or replaces) a numeric column.
func (f *Frame) AddNumeric(name string, v []float64) {
	f.add(name, Column{Num: v}, len(v))
}

// AddFactor adds (or replaces) a categorical column with codes into levels.
func (f *Frame) AddFactor(name string, codes []int, levels []string) {
	f.add(name, Column{Codes: codes, Levels: levels}, len(codes))
}

func (f *Frame) add(name string, c Column, n int) {
	if f.cols == nil {
		f.cols = map[string]Column{}
		f.n = n
	}
	if n != f.n {
		panic(fmt.Sprintf("formula: column %s has %d rows, the frame %d", name, n, f.n))
	}
	if _, ok := f.cols[name]; !ok {
		f.names = append(f.names, name)
	}
	f.cols[name] = c
}

// ReadCSVFile reads a CSV file with a header line into a Frame (every
// column), through data.ReadTable: gzip-compressed input decompressed, a
// column numeric when every cell is a number and categorical when every
// cell is text (a column of both is an error naming its line and column),
// missing values (data.MissingTokens) an error.
func ReadCSVFile(path string) (*Frame, error) {
	f, _, err := ReadCSVFileWith(path, ReadOptions{})
	return f, err
}

// Missing-value rules of ReadOptions.Missing (data's).
const (
	MissingError = data.MissingError // a missing value is an error (the default)
	MissingDrop  = data.MissingDrop  // a row with a missing value is dropped, counted
)

// ErrMissing is wrapped by the error of a missing value under
// MissingError, so that a caller can name its own way of dropping them.
var ErrMissing = errors.New("missing value")

// ReadOptions say which columns are read and what their missing values
// do. The zero value is ReadCSVFile's: every column read, a missing value
// an error.
type ReadOptions struct {
	// Columns are the columns read (a formula's Columns); nil means all.
	// A missing value or text in another column does not matter.
	Columns []string
	// Missing is MissingError ("" too) or MissingDrop.
	Missing string
}

// Dropped counts the rows dropped for missing values (MissingDrop).
type Dropped struct {
	Rows, Of int           // rows dropped, of all rows in the file
	ByColumn []ColumnCount // rows with a missing value in each column, in the file's order
}

// ColumnCount is a column's number of rows with a missing value.
type ColumnCount struct {
	Column string
	Rows   int
}

func (d *Dropped) String() string {
	parts := make([]string, len(d.ByColumn))
	for i, c := range d.ByColumn {
		parts[i] = fmt.Sprintf("%q %d", c.Column, c.Rows)
	}
	return fmt.Sprintf("%d of %d rows dropped for a missing value in a column the formula uses (by column: %s)", d.Rows, d.Of, strings.Join(parts, ", "))
}

// ReadCSVFileWith reads a CSV file as ReadCSVFile does, with the columns
// and missing-value rule of opt; under MissingDrop it returns the rows
// dropped (nil otherwise).
func ReadCSVFileWith(path string, opt ReadOptions) (*Frame, *Dropped, error) {
	t, err := data.ReadTable(path, "csv", data.TableOptions{Columns: opt.Columns, Missing: opt.Missing})
	return frameOf(t, err)
}

// ReadCSV reads CSV with a header line from r as ReadCSVFile reads a file
// (source names it in errors).
func ReadCSV(r io.Reader, source string) (*Frame, error) {
	t, err := data.ParseTable(r, source, data.TableOptions{})
	f, _, err := frameOf(t, err)
	return f, err
}

// factorOf codes strings by their sorted distinct values.
func factorOf(vals []string) ([]int, []string) {
	seen := map[string]bool{}
	var levels []string
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			levels = append(levels, v)
		}
	}
	sort.Strings(levels)
	idx := make(map[string]int, len(levels))
	for i, l := range levels {
		idx[l] = i
	}
	codes := make([]int, len(vals))
	for i, v := range vals {
		codes[i] = idx[v]
	}
	return codes, levels
}

// numericFactor codes numbers by their sorted distinct values (R's
// factor() of a numeric vector), levels printed as R prints them.
func numericFactor(x []float64) ([]int, []string) {
	u := append([]float64(nil), x...)
	sort.Float64s(u)
	var lv []float64
	for i, v := range u {
		if i == 0 || v != u[i-1] {
			lv = append(lv, v)
		}
	}
	levels := make([]string, len(lv))
	idx := make(map[float64]int, len(lv))
	for i, v := range lv {
		levels[i] = strconv.FormatFloat(v, 'g', -1, 64)
		idx[v] = i
	}
	codes := make([]int, len(x))
	for i, v := range x {
		codes[i] = idx[v]
	}
	return codes, levels
}
