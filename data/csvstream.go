package data

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"
)

// CSVFile reads a delimited text file one block of rows at a time, with the
// rules of ParseCSV (header, delimiter detection, target choice, number
// syntax and error messages), so that a file larger than memory can be
// converted to a Store.
type CSVFile struct {
	f      *os.File
	name   string
	lr     *lineReader
	head   []csvLine // buffered first rows
	delim  rune
	k, t   int // fields per row, target index
	names  []string
	target string
	what   string
	rows   int
}

type csvLine struct {
	text string
	line int
}

// OpenCSV opens a delimited text file for reading with Next. Errors are of
// type *ParseError.
func OpenCSV(path string, opt CSVOptions) (*CSVFile, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	c := &CSVFile{f: f, name: path}
	if err := c.init(opt); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

func (c *CSVFile) perr(line, col int, format string, args ...any) error {
	return &ParseError{File: c.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (c *CSVFile) init(opt CSVOptions) error {
	if d := opt.Delimiter; d != 0 && (d == '"' || d == '\n' || d == '\r' || d == utf8.RuneError || !utf8.ValidRune(d)) {
		return c.perr(0, 0, "invalid delimiter %q", d)
	}
	lr, err := newLineReader(c.f, c.name)
	if err != nil {
		return err
	}
	c.lr = lr
	for len(c.head) < detectLines {
		text, line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if !isBlank(text) {
			c.head = append(c.head, csvLine{text, line})
		}
	}
	if len(c.head) == 0 {
		if opt.NoHeader {
			return c.perr(0, 0, "empty file: expected a data row")
		}
		return c.perr(0, 0, "empty file: expected a header row")
	}
	c.delim = opt.Delimiter
	if c.delim == 0 {
		texts := make([]string, len(c.head))
		for i, h := range c.head {
			texts[i] = h.text
		}
		c.delim = detectDelimiter(texts)
	}
	first := c.head[0]
	fields, col, msg := splitFields(first.text, c.delim)
	if msg != "" {
		return c.perr(first.line, col, "%s", msg)
	}
	c.k = len(fields)
	names := make([]string, c.k)
	c.what = "header"
	// A first row of numbers only is data, as ParseCSV reads it (a
	// headerless numeric file), unless opt.Header says it is a header.
	if opt.NoHeader || (!opt.Header && allNumbers(fields)) {
		c.what = "first row"
		for j := range names {
			names[j] = "V" + strconv.Itoa(j+1)
		}
	} else {
		seen := make(map[string]int, c.k)
		for j, f := range fields {
			if f == "" {
				return c.perr(first.line, j+1, "empty column name")
			}
			if prev, dup := seen[f]; dup {
				return c.perr(first.line, j+1, "duplicate column name %s (also column %d)", quote(f), prev+1)
			}
			seen[f] = j
			names[j] = f
		}
		c.head = c.head[1:]
	}
	if c.k < 2 {
		return c.perr(first.line, 0, "need at least 2 columns (features and a target), found 1 (delimiter %q)", c.delim)
	}
	t, tmsg := resolveTarget(opt.Target, names)
	if tmsg != "" {
		return c.perr(first.line, 0, "%s", tmsg)
	}
	c.t, c.target = t, names[t]
	c.names = append(append([]string(nil), names[:t]...), names[t+1:]...)
	return nil
}

// Names returns the feature names.
func (c *CSVFile) Names() []string { return c.names }

// Target returns the name of the response column.
func (c *CSVFile) Target() string { return c.target }

// Next reads up to len(y) rows into x (row-major, len(Names()) values a row)
// and y, and returns how many it read: 0 and io.EOF after the last row.
func (c *CSVFile) Next(x, y []float64) (int, error) {
	p := c.k - 1
	if len(x) < len(y)*p {
		panic(fmt.Sprintf("data: CSVFile.Next: len(x) = %d, want %d×%d", len(x), len(y), p))
	}
	n := 0
	for n < len(y) {
		var h csvLine
		if len(c.head) > 0 {
			h, c.head = c.head[0], c.head[1:]
		} else {
			text, line, ok, err := c.lr.next()
			if err != nil {
				return 0, err
			}
			if !ok {
				break
			}
			if isBlank(text) {
				continue
			}
			h = csvLine{text, line}
		}
		fields, col, msg := splitFields(h.text, c.delim)
		if msg != "" {
			return 0, c.perr(h.line, col, "%s", msg)
		}
		if len(fields) != c.k {
			return 0, c.perr(h.line, 0, "row has %d fields, %s has %d", len(fields), c.what, c.k)
		}
		row := x[n*p : (n+1)*p]
		for j, f := range fields {
			v, msg := parseValue(f)
			if msg != "" {
				return 0, c.perr(h.line, j+1, "%s", msg)
			}
			switch {
			case j == c.t:
				y[n] = v
			case j < c.t:
				row[j] = v
			default:
				row[j-1] = v
			}
		}
		n++
	}
	c.rows += n
	if n == 0 {
		if c.rows == 0 {
			return 0, c.perr(c.lr.n+1, 0, "no data rows after the header")
		}
		return 0, io.EOF
	}
	return n, nil
}

// Close closes the file.
func (c *CSVFile) Close() error { return c.f.Close() }
