package formula

import (
	"errors"

	"github.com/langevin-go/langevin/data"
)

// FrameOf returns the Frame of a data.Table, sharing its columns.
func FrameOf(t *data.Table) *Frame {
	f := &Frame{}
	for _, c := range t.Columns {
		if c.Num != nil {
			f.AddNumeric(c.Name, c.Num)
		} else {
			f.AddFactor(c.Name, c.Codes, c.Levels)
		}
	}
	if f.cols == nil { // no column: the rows still count
		f.n = t.Rows
	}
	return f
}

// Read reads the columns of f from a data file through data.ReadTable:
// delimited text (gzip-compressed or not), Parquet or a data store, format
// "" or "auto" telling them apart, under opt's missing-value rule and
// memory bound (opt.Columns and opt.Categorical are the formula's when
// nil). Under MissingDrop it returns the rows dropped (nil otherwise); a
// missing value under MissingError is an error wrapping ErrMissing.
func Read(path, format string, f *Formula, opt data.TableOptions) (*Frame, *Dropped, error) {
	if opt.Columns == nil {
		opt.Columns = f.Columns()
	}
	return frameOf(data.ReadTable(path, format, opt))
}

// frameOf is the Frame of t and the rows dropped, or err (a missing value
// wrapping ErrMissing too).
func frameOf(t *data.Table, err error) (*Frame, *Dropped, error) {
	if errors.Is(err, data.ErrMissing) {
		err = &missingError{err}
	}
	if err != nil {
		return nil, nil, err
	}
	var dropped *Dropped
	if t.Missing == data.MissingDrop {
		dropped = &Dropped{Rows: t.RowsDropped, Of: t.RowsRead}
		for _, c := range t.MissingRows {
			dropped.ByColumn = append(dropped.ByColumn, ColumnCount{c.Column, c.Rows})
		}
	}
	return FrameOf(t), dropped, nil
}

// missingError wraps data's missing-value error as ErrMissing too.
type missingError struct{ err error }

func (e *missingError) Error() string   { return e.err.Error() }
func (e *missingError) Unwrap() []error { return []error{e.err, ErrMissing} }
