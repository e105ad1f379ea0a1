package data

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Table is a table of named columns as read, before any coding into
// features: a numeric column holds its values, a categorical (text) column
// the codes of its levels. It is what a model that names its own columns
// reads (package formula): ReadTable reads it from a file of any typed
// format, under the limits of ReadFile.
type Table struct {
	Source  string        // the file, for messages
	Rows    int           // rows kept
	Columns []TableColumn // the columns read, in file order
	// Missing is the rule for missing values (MissingError or
	// MissingDrop); under MissingDrop, RowsDropped of RowsRead rows were
	// dropped, MissingRows counting them per column.
	Missing     string
	RowsRead    int
	RowsDropped int
	MissingRows []MissingCount
}

// TableColumn is one column of a Table: Num holds a numeric column's
// values; a categorical column has Num nil, Codes 0 … L−1 into Levels,
// its distinct texts of the kept rows in byte order (as R's factor() sorts
// them in the C locale).
type TableColumn struct {
	Name   string
	Num    []float64
	Codes  []int
	Levels []string
}

// Column returns the column called name.
func (t *Table) Column(name string) (*TableColumn, bool) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i], true
		}
	}
	return nil, false
}

// TableOptions say which columns ReadTable reads and how.
type TableOptions struct {
	// Columns names the columns to read (nil: every column); the file's
	// other columns are ignored (a missing value or a mix of numbers and
	// text in them does not matter). A name the file lacks is left out (the
	// caller names it); none of them in the file is an error.
	Columns []string
	// Categorical names columns read as categorical even when their cells
	// are numbers.
	Categorical []string
	// Missing is MissingError ("" too) or MissingDrop: a row with a missing
	// value (MissingTokens) in a column read is an error naming it, or is
	// dropped and counted.
	Missing string
	// Delimiter of delimited text: 0 detects it (CSVOptions.Delimiter).
	Delimiter rune
	// NA lists more cells read as a missing value, besides MissingTokens
	// (CSVOptions.NA).
	NA []string
	// Decimal is the numbers' decimal mark: 0 or '.', or ','
	// (CSVOptions.Decimal).
	Decimal rune
	// MaxBytes, if positive, bounds the memory the values and the levels'
	// texts hold (CSVOptions.MaxBytes); more is a *ParseError wrapping
	// ErrTooLarge, found before the memory is taken.
	MaxBytes int64
}

// levelOverhead is the bytes a categorical level holds beside its text (a
// string header, a map entry), counted against MaxBytes.
const levelOverhead = 64

// ReadTable reads the columns opt.Columns of a data file as a Table: format
// is "csv" (delimited text, a header line always; gzip-compressed input is
// decompressed), "parquet", "store" (a Store: its feature columns and its
// target, all numeric, since a categorical column was written as its
// dummies), or "" or "auto" to tell them apart from the content
// (SniffFormat). LIBSVM holds no named columns and is refused. The path
// "-" reads standard input (delimited text only). A line longer than
// MaxLineBytes, values and levels past opt.MaxBytes, and a column of both
// numbers and text are errors naming the file, line and column. All errors
// are of type *ParseError.
func ReadTable(path, format string, opt TableOptions) (*Table, error) {
	if format != "" && format != "auto" && LookupFormat(format) == nil {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("unknown format %q: expected %s", format, formatList(append(Formats(), "auto")))}
	}
	if opt.Missing != "" && opt.Missing != MissingError && opt.Missing != MissingDrop {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("missing-value rule %q: expected %q or %q", opt.Missing, MissingError, MissingDrop)}
	}
	copt := opt.csvOptions()
	br, name, format, closeFile, err := openSniffed(path, format)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	if LookupFormat(format).FileOnly && path == "-" {
		return nil, &ParseError{File: name, Msg: format + " data must be a file, not a stream"}
	}
	var tbl *table
	switch format {
	case "csv":
		tbl, _, err = parseCSV(br, name, copt)
	case "parquet":
		tbl, err = parquetTable(path, copt)
	case "store":
		return storeTable(path, opt)
	default:
		return nil, &ParseError{File: name, Msg: format + " data hold no named columns (a table with a header line, Parquet or a data store is read by its columns' names)"}
	}
	if err != nil {
		return nil, err
	}
	return tbl.columns()
}

// csvOptions are the options of parseCSV that read a Table.
func (opt TableOptions) csvOptions() CSVOptions {
	return CSVOptions{Header: true, Delimiter: opt.Delimiter, NA: opt.NA, Decimal: opt.Decimal, Categorical: opt.Categorical, Missing: opt.Missing, MaxBytes: opt.MaxBytes, table: true, use: opt.Columns}
}

// ParseTable reads delimited text from r as ReadTable reads a file (name
// is how errors name it).
func ParseTable(r io.Reader, name string, opt TableOptions) (*Table, error) {
	if opt.Missing != "" && opt.Missing != MissingError && opt.Missing != MissingDrop {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("missing-value rule %q: expected %q or %q", opt.Missing, MissingError, MissingDrop)}
	}
	tbl, _, err := parseCSV(r, name, opt.csvOptions())
	if err != nil {
		return nil, err
	}
	return tbl.columns()
}

// columns returns the table's columns: rows with a missing value dropped
// (or the error of one), each categorical column's levels those of the
// kept rows in byte order.
func (t *table) columns() (*Table, error) {
	drop, keep, counts, err := t.missingRows(t.feats)
	if err != nil {
		return nil, err
	}
	out := &Table{Source: t.name, Rows: keep, Missing: t.missing, RowsRead: t.n, MissingRows: counts}
	if out.Missing == "" {
		out.Missing = MissingError
	}
	if drop != nil {
		out.RowsDropped = t.n - keep
	}
	q := len(t.feats)
	for k, c := range t.feats {
		col := TableColumn{Name: c.name}
		if !c.cat {
			col.Num = make([]float64, 0, keep)
			for i := range t.n {
				if drop == nil || !drop[i] {
					col.Num = append(col.Num, t.x[i*q+k])
				}
			}
			out.Columns = append(out.Columns, col)
			continue
		}
		present := make([]bool, len(c.levels))
		for i := range t.n {
			if drop == nil || !drop[i] {
				present[int(t.x[i*q+k])] = true
			}
		}
		order := make([]int, 0, len(c.levels))
		for code := range c.levels {
			if present[code] {
				order = append(order, code)
			}
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(c.levels[a], c.levels[b]) })
		remap := make([]int, len(c.levels))
		col.Levels = make([]string, len(order))
		for to, from := range order {
			remap[from] = to
			col.Levels[to] = c.levels[from]
		}
		col.Codes = make([]int, 0, keep)
		for i := range t.n {
			if drop == nil || !drop[i] {
				col.Codes = append(col.Codes, remap[int(t.x[i*q+k])])
			}
		}
		out.Columns = append(out.Columns, col)
	}
	return out, nil
}

// storeTable reads the columns opt.Columns of a Store (all numeric).
func storeTable(path string, opt TableOptions) (*Table, error) {
	st, err := OpenStore(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	names := append(slices.Clone(st.Names()), st.Target())
	var idx []int
	for j, n := range names {
		if opt.Columns == nil || slices.Contains(opt.Columns, n) {
			idx = append(idx, j)
		}
	}
	if len(idx) == 0 {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("none of the columns %s is in the store (it has %s)", strings.Join(quoteAll(opt.Columns), ", "), listNames(names))}
	}
	for _, c := range opt.Categorical {
		if slices.Contains(names, c) {
			return nil, &ParseError{File: path, Msg: fmt.Sprintf("column %q: a store holds numbers only (a text column was written as its dummies); read it from the file the store was made from", c)}
		}
	}
	n, p := st.Len(), st.Dim()
	if need := 8 * int64(n) * int64(len(idx)+p+1); opt.MaxBytes > 0 && need > opt.MaxBytes {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("the store's %d rows × %d columns would hold %d MiB in memory, more than the bound of %d MiB", n, len(idx), need>>20, opt.MaxBytes>>20), Err: ErrTooLarge}
	}
	out := &Table{Source: path, Rows: n, RowsRead: n, Missing: MissingError}
	for _, j := range idx {
		out.Columns = append(out.Columns, TableColumn{Name: names[j], Num: make([]float64, n)})
	}
	const block = 4096
	x := make([]float64, block*p)
	y := make([]float64, block)
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		st.ReadRows(lo, x[:(hi-lo)*p], y[:hi-lo])
		for k, j := range idx {
			dst := out.Columns[k].Num[lo:hi]
			for i := range dst {
				if j == p {
					dst[i] = y[i]
				} else {
					dst[i] = x[i*p+j]
				}
			}
		}
	}
	for _, c := range out.Columns {
		for i, v := range c.Num {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &ParseError{File: path, Msg: fmt.Sprintf("row %d, column %q: %v is not a finite number", i+1, c.Name, v)}
			}
		}
	}
	return out, nil
}
