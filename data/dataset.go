package data

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Dataset is a table of n observations: a feature matrix and a response.
//
// X is n×d with one observation per row. Y has length n. Names has length d
// and names the columns of X. A Dataset with no rows has an empty X (the zero
// value of mat.Dense, whose Dims are 0, 0, since gonum does not allow
// zero-sized matrices); use Len and Dim rather than X.Dims when a data set may
// be empty.
type Dataset struct {
	X      *mat.Dense // n×d features
	Y      []float64  // n responses
	Names  []string   // feature names, len d
	Target string     // name of the response column
	Source string     // file name or built-in name, for messages

	// IDs holds the values of the ID column (CSVOptions.ID), one a row, or
	// nil.
	IDs []string
	// Coding is how the columns of a table became X and Y (text columns,
	// labels, ID, missing values); nil for data read without one (LIBSVM,
	// IDX, built-in sets).
	Coding *Coding
	// Ignored names the columns of the file that a given Coding does not
	// use (reading new rows for a run).
	Ignored []string
}

// Len returns the number of observations n.
func (d *Dataset) Len() int {
	if d.X != nil && !d.X.IsEmpty() {
		r, _ := d.X.Dims()
		return r
	}
	return len(d.Y)
}

// Dim returns the number of features d.
func (d *Dataset) Dim() int {
	if d.X != nil && !d.X.IsEmpty() {
		_, c := d.X.Dims()
		return c
	}
	return len(d.Names)
}

// Subset returns a new Dataset holding copies of the rows of d with the
// given indices, in the order given. Indices may repeat (as in a bootstrap
// sample). Subset panics if an index is out of range.
func (d *Dataset) Subset(idx []int) *Dataset {
	n, p := d.Len(), d.Dim()
	out := &Dataset{
		Y:      make([]float64, len(idx)),
		Names:  append([]string(nil), d.Names...),
		Target: d.Target,
		Source: d.Source,
		Coding: d.Coding,
	}
	if d.IDs != nil {
		out.IDs = make([]string, len(idx))
		for k, i := range idx {
			if i >= 0 && i < len(d.IDs) {
				out.IDs[k] = d.IDs[i]
			}
		}
	}
	if len(idx) == 0 || p == 0 {
		out.X = &mat.Dense{}
		for k, i := range idx {
			if i < 0 || i >= n {
				panic(fmt.Sprintf("data: Subset index %d out of range [0, %d)", i, n))
			}
			out.Y[k] = d.Y[i]
		}
		return out
	}
	raw := make([]float64, len(idx)*p)
	for k, i := range idx {
		if i < 0 || i >= n {
			panic(fmt.Sprintf("data: Subset index %d out of range [0, %d)", i, n))
		}
		copy(raw[k*p:(k+1)*p], d.X.RawRowView(i))
		out.Y[k] = d.Y[i]
	}
	out.X = mat.NewDense(len(idx), p, raw)
	return out
}

// Clone returns a deep copy of d: its rows in order (Subset of every
// row), so that the copy may be transformed in place (Scaler.Transform)
// without changing d.
func (d *Dataset) Clone() *Dataset {
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}

// ParseError is the error returned by the readers in this package.
//
// Line and Column are 1-based. Column is the field number within the line
// (not a character offset) and is 0 when the error concerns a whole line;
// Line is 0 when the error concerns the whole file. Err, if not nil, is an
// underlying error such as an I/O or gzip error, returned by Unwrap.
type ParseError struct {
	File   string // file or data set name
	Line   int    // 1-based line number, or 0
	Column int    // 1-based field number, or 0
	Msg    string // description of the problem
	Err    error  // underlying error, if any
}

// Error formats e as "file:line:col: msg", "file:line: msg" or "file: msg",
// depending on which of Line and Column are set.
func (e *ParseError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			pos += fmt.Sprintf(":%d", e.Column)
		}
	}
	if pos == "" {
		return e.Msg
	}
	if pos[0] == ':' {
		pos = pos[1:]
	}
	return pos + ": " + e.Msg
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }
