package formula

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
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

// ReadCSVFile reads a CSV file with a header line into a Frame, in two
// passes over the file: the first checks every value and finds which
// columns are numeric, the second stores each column once in its type
// (float64 values, or level codes), so that a large file is never held as
// strings (10⁷ rows of y,x,g: 1.3 GB of strings otherwise). Same frame and
// same errors as ReadCSV.
func ReadCSVFile(path string) (*Frame, error) {
	f, _, err := ReadCSVFileWith(path, ReadOptions{})
	return f, err
}

// Missing-value rules of ReadOptions.Missing.
const (
	MissingError = "error" // a missing value is an error (the default)
	MissingDrop  = "drop"  // a row with a missing value is dropped, counted
)

// ErrMissing is wrapped by the error of a missing value under
// MissingError, so that a caller can name its own way of dropping them.
var ErrMissing = errors.New("missing value")

// ReadOptions say which columns' missing values matter and what they do.
// The zero value is ReadCSVFile's: every column checked, an error.
type ReadOptions struct {
	// Columns are the columns whose missing values count (a formula's
	// Columns); nil means all. A missing value in another column is kept
	// as a text value: the formula does not read it.
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

// isMissing reports whether a trimmed cell is a missing value: empty, NA,
// N/A, NaN, nan, NAN, null, NULL or Null (R's and pandas' defaults, as
// the data package reads them).
func isMissing(s string) bool {
	switch s {
	case "", "NA", "N/A", "NaN", "nan", "NAN", "null", "NULL", "Null":
		return true
	}
	return false
}

// ReadCSVFileWith reads a CSV file as ReadCSVFile does, with the
// missing-value rule of opt; under MissingDrop it returns the rows dropped
// (nil otherwise).
func ReadCSVFileWith(path string, opt ReadOptions) (*Frame, *Dropped, error) {
	if opt.Missing != "" && opt.Missing != MissingError && opt.Missing != MissingDrop {
		return nil, nil, fmt.Errorf("missing-value rule %q: expected %s or %s", opt.Missing, MissingError, MissingDrop)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	header, numeric, rows, dropped, err := scanCSV(fh, path, opt, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	nums := make([][]float64, len(header))
	codes := make([][]int, len(header))
	seen := make([]map[string]int, len(header))
	for j := range header {
		if numeric[j] {
			nums[j] = make([]float64, 0, rows)
		} else {
			codes[j], seen[j] = make([]int, 0, rows), map[string]int{}
		}
	}
	if _, _, _, _, err := scanCSV(fh, path, opt, func(rec []string) {
		for j, v := range rec {
			if numeric[j] {
				x, _ := strconv.ParseFloat(v, 64)
				nums[j] = append(nums[j], x)
				continue
			}
			c, ok := seen[j][v]
			if !ok {
				c = len(seen[j])
				seen[j][strings.Clone(v)] = c
			}
			codes[j] = append(codes[j], c)
		}
	}); err != nil {
		return nil, nil, err
	}
	f := &Frame{}
	for j, name := range header {
		if numeric[j] {
			f.AddNumeric(name, nums[j])
			continue
		}
		// Levels sorted, as factorOf: recode the first-seen codes.
		levels := make([]string, 0, len(seen[j]))
		for v := range seen[j] {
			levels = append(levels, v)
		}
		sort.Strings(levels)
		to := make([]int, len(levels))
		for i, l := range levels {
			to[seen[j][l]] = i
		}
		for i, c := range codes[j] {
			codes[j][i] = to[c]
		}
		f.AddFactor(name, codes[j], levels)
	}
	return f, dropped, nil
}

// scanCSV reads CSV with a header line, checks it as ReadCSV does, and
// calls row (when not nil) with each row's trimmed values. It returns the
// header, which columns are numeric (every value a finite number) and the
// number of rows kept; a row with a missing value in a column of
// opt.Columns is an error naming the first one's line and column and the
// count in each column (MissingError), or is skipped and counted
// (MissingDrop).
func scanCSV(r io.Reader, source string, opt ReadOptions, row func(rec []string)) (header []string, numeric []bool, rows int, dropped *Dropped, err error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err = cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, 0, nil, fmt.Errorf("%s: empty file: expected a header line of column names", source)
		}
		return nil, nil, 0, nil, fmt.Errorf("%s: %w", source, err)
	}
	header = slices.Clone(header)
	seen := map[string]bool{}
	for i, h := range header {
		header[i] = strings.TrimSpace(h)
		if header[i] == "" {
			return nil, nil, 0, nil, fmt.Errorf("%s: line 1, column %d: empty column name", source, i+1)
		}
	}
	numeric = make([]bool, len(header))
	checked := make([]bool, len(header)) // missing values count here
	for j := range numeric {
		numeric[j] = true
		checked[j] = opt.Columns == nil || slices.Contains(opt.Columns, header[j])
	}
	missing := make([]int, len(header)) // rows with a missing value, by column
	firstLine, firstCol, nDropped := 0, 0, 0
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, 0, nil, fmt.Errorf("%s: %w", source, err)
		}
		line++
		skip := false
		for j, v := range rec {
			v = strings.TrimSpace(v)
			rec[j] = v
			if checked[j] && isMissing(v) {
				missing[j]++
				if firstLine == 0 {
					firstLine, firstCol = line, j
				}
				skip = true
			}
		}
		if skip {
			nDropped++
			continue
		}
		for j, v := range rec {
			if numeric[j] {
				x, err := strconv.ParseFloat(v, 64)
				numeric[j] = err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
			}
		}
		if row != nil {
			row(rec)
		}
	}
	if line == 1 {
		return nil, nil, 0, nil, fmt.Errorf("%s: no rows after the header", source)
	}
	for j, name := range header {
		if seen[name] {
			return nil, nil, 0, nil, fmt.Errorf("%s: line 1, column %d: column name %q repeated", source, j+1, name)
		}
		seen[name] = true
	}
	if firstLine > 0 {
		var counts []string
		d := &Dropped{Rows: nDropped, Of: line - 1}
		for j, n := range missing {
			if n > 0 {
				have := "rows have"
				if n == 1 {
					have = "row has"
				}
				counts = append(counts, fmt.Sprintf("column %q: %d %s one", header[j], n, have))
				d.ByColumn = append(d.ByColumn, ColumnCount{header[j], n})
			}
		}
		if opt.Missing != MissingDrop {
			return nil, nil, 0, nil, fmt.Errorf("%s: line %d, column %d (%s): %w: %s; rows with missing values are not dropped silently", source, firstLine, firstCol+1, header[firstCol], ErrMissing, strings.Join(counts, "; "))
		}
		if nDropped == line-1 {
			return nil, nil, 0, nil, fmt.Errorf("%s: every row has a missing value (%s): no rows left", source, strings.Join(counts, "; "))
		}
		dropped = d
	} else if opt.Missing == MissingDrop {
		dropped = &Dropped{Of: line - 1}
	}
	return header, numeric, line - 1 - nDropped, dropped, nil
}

// ReadCSV reads CSV with a header line; errors name the source, line and
// column. It holds the values as strings until it knows each column's type
// (ReadCSVFile reads a file twice instead).
func ReadCSV(r io.Reader, source string) (*Frame, error) {
	var raw [][]string
	header, numeric, _, _, err := scanCSV(r, source, ReadOptions{}, func(rec []string) {
		if raw == nil {
			raw = make([][]string, len(rec))
		}
		for j, v := range rec {
			raw[j] = append(raw[j], v)
		}
	})
	if err != nil {
		return nil, err
	}
	f := &Frame{}
	for j, name := range header {
		if numeric[j] {
			num := make([]float64, len(raw[j]))
			for i, v := range raw[j] {
				num[i], _ = strconv.ParseFloat(v, 64)
			}
			f.AddNumeric(name, num)
			continue
		}
		codes, levels := factorOf(raw[j])
		f.AddFactor(name, codes, levels)
	}
	return f, nil
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
