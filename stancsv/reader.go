package stancsv

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// File is the content of a Stan CSV file.
type File struct {
	// Columns holds the column names of the header line, in order.
	Columns []string

	// Draws holds the sampling draws, one row per draw, each row with
	// one value per column.
	Draws [][]float64

	// Warmup holds the warm-up draws, present only in files written with
	// save_warmup = 1. See Read for how they are told from sampling draws.
	Warmup [][]float64

	// Config holds the "key = value" pairs of the comment lines before the
	// header, such as "num_samples", "num_warmup", "save_warmup", "thin",
	// "algorithm", "method", "id" and "seed". Keys lose their indentation
	// and values a trailing "(Default)". Where a key appears more than once
	// (CmdStan writes "file" under both "data" and "output"), the first
	// value is kept, as rstan does.
	Config map[string]string

	// Comments holds every comment line of the file verbatim, '#' included,
	// in order.
	Comments []string

	// StepSize is the step size from the "# Step size = ..." line of the
	// adaptation block, or zero if the file has none.
	StepSize float64

	// InvMetric is the inverse metric (inverse mass matrix) from the
	// adaptation block: its diagonal, or for a dense metric
	// ("# Elements of inverse mass matrix:") all n×n elements in row-major
	// order. It is nil if the file has none.
	InvMetric []float64
}

// SyntaxError describes malformed input to Read.
type SyntaxError struct {
	File   string // name given to Read
	Line   int    // 1-based line number, or 0 for the file as a whole
	Column int    // 1-based CSV column (field) number, or 0 for the whole line
	Msg    string // what was wrong or expected
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Column == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// ReadFile reads the Stan CSV file at path. See Read.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Read(fh, path)
}

// Read reads a Stan CSV file from r. The name is used in error messages,
// which are of type *SyntaxError for malformed input.
//
// Lines whose first non-blank character is '#' are comments, wherever they
// are; blank lines are skipped. The first other line is the header, and every
// later one must have as many comma-separated numbers as the header has
// names. Numbers are read by strconv.ParseFloat; nan, -nan, inf and -inf
// (in any case) are accepted.
//
// When the configuration says save_warmup = 1 (or true), the leading rows are
// warm-up draws: if the file has a "# Adaptation terminated" comment, the rows
// before it; otherwise the first ceil(num_warmup/thin) rows, as CmdStan writes
// them. Without save_warmup all rows are sampling draws.
//
// Input compressed with gzip (recognised by its first two bytes) is
// decompressed. A line longer than MaxLineBytes is an error.
func Read(r io.Reader, name string) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	gzipped := false
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gzipped = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &SyntaxError{File: name, Msg: "gzip: " + strings.TrimPrefix(err.Error(), "gzip: ")}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	p := parser{
		name:    name,
		br:      br,
		f:       &File{Config: make(map[string]string)},
		gzipped: gzipped,
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.f, nil
}

type parser struct {
	name    string
	gzipped bool
	br      *bufio.Reader
	f       *File
	line    int // current line number

	rows     [][]float64
	header   bool
	adaptAt  int  // rows before "# Adaptation terminated", or -1
	metric   int  // 0: none pending; 1: diagonal; 2: dense
	metricN  int  // dense: row length, 0 until the first row is read
	metricRs int  // metric rows still expected
	sawAny   bool // any line at all
}

func (p *parser) errorf(col int, format string, args ...interface{}) error {
	return &SyntaxError{File: p.name, Line: p.line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// quoteShort returns s quoted, shortened to 12 characters and "...": an
// error names the file, line and column, and shows no more of a file that
// is not a Stan CSV file (a mistyped path) than it needs to.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 12 {
		return strconv.Quote(string(r[:12])) + "..."
	}
	return strconv.Quote(s)
}

// MaxLineBytes is the longest line Read accepts, "\n" included: 64 MiB,
// a row of some three million numbers.
const MaxLineBytes = 64 << 20

// readLine returns the next line, "\n" included, or an error for a line
// longer than MaxLineBytes, without holding more than that in memory.
func (p *parser) readLine() (string, error) {
	b, err := p.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return string(b), err
	}
	buf := append([]byte(nil), b...)
	for err == bufio.ErrBufferFull {
		if len(buf) > MaxLineBytes {
			return "", p.errorf(0, "line longer than %d MiB: not a Stan CSV file", MaxLineBytes>>20)
		}
		b, err = p.br.ReadSlice('\n')
		buf = append(buf, b...)
	}
	if len(buf) > MaxLineBytes {
		return "", p.errorf(0, "line longer than %d MiB: not a Stan CSV file", MaxLineBytes>>20)
	}
	return string(buf), err
}

func (p *parser) parse() error {
	p.adaptAt = -1
	for {
		line, err := p.readLine()
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Line = p.line + 1
			return se
		}
		if err != nil && err != io.EOF {
			if p.gzipped {
				return &SyntaxError{File: p.name, Line: p.line + 1, Msg: "gzip: " + strings.TrimPrefix(err.Error(), "gzip: ")}
			}
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if line == "" && err == io.EOF {
			break
		}
		p.line++
		p.sawAny = true
		line = strings.TrimSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\r")
		if p.line == 1 {
			line = strings.TrimPrefix(line, "\ufeff") // byte order mark
		}
		if perr := p.parseLine(line); perr != nil {
			return perr
		}
		if err == io.EOF {
			break
		}
	}
	if p.metric != 0 {
		return p.errorf(0, "file ends inside the inverse metric block")
	}
	if !p.header {
		p.line = 0
		if !p.sawAny {
			return p.errorf(0, "empty file: no header line")
		}
		return p.errorf(0, "no header line of column names, only comments or blank lines")
	}
	return p.split()
}

func (p *parser) parseLine(line string) error {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "#") {
		if trimmed == "#" && len(line) > 2 {
			return nil // padding, not kept (see the rundir package)
		}
		p.f.Comments = append(p.f.Comments, line)
		text := strings.TrimSpace(trimmed[1:])
		if !p.header {
			p.configLine(text)
			return nil
		}
		return p.bodyComment(text)
	}
	if p.metric != 0 {
		return p.errorf(0, "expected a comment line of inverse metric values")
	}
	if trimmed == "" {
		return nil
	}
	if !p.header {
		return p.headerLine(line)
	}
	return p.dataLine(line)
}

// configLine records a "key = value" comment before the header.
func (p *parser) configLine(text string) {
	i := strings.IndexByte(text, '=')
	if i < 0 {
		return
	}
	key := strings.TrimSpace(text[:i])
	if key == "" || strings.ContainsAny(key, " \t") {
		return
	}
	val := strings.TrimSpace(text[i+1:])
	val = strings.TrimSpace(strings.TrimSuffix(val, "(Default)"))
	val = UnescapeValue(val)
	if _, ok := p.f.Config[key]; !ok {
		p.f.Config[key] = val
	}
}

// bodyComment interprets a comment after the header: the adaptation block.
func (p *parser) bodyComment(text string) error {
	if p.metric != 0 {
		return p.metricLine(text)
	}
	switch {
	case strings.HasPrefix(text, "Adaptation terminated"):
		if p.adaptAt < 0 {
			p.adaptAt = len(p.rows)
		}
	case strings.HasPrefix(text, "Step size") && strings.Contains(text, "="):
		s := strings.TrimSpace(text[strings.IndexByte(text, '=')+1:])
		v, ok := parseNumber(s)
		if !ok {
			return p.errorf(0, "cannot parse step size %s as a number", quoteShort(s))
		}
		p.f.StepSize = v
	case text == "Diagonal elements of inverse mass matrix:":
		p.metric, p.metricRs = 1, 1
		p.f.InvMetric = nil
	case text == "Elements of inverse mass matrix:":
		p.metric, p.metricN, p.metricRs = 2, 0, 1
		p.f.InvMetric = nil
	}
	return nil
}

func (p *parser) metricLine(text string) error {
	n := strings.Count(text, ",") + 1
	if p.metric == 2 {
		if p.metricN == 0 {
			p.metricN, p.metricRs = n, n
		} else if n != p.metricN {
			return p.errorf(0, "inverse metric row has %d values, first row has %d", n, p.metricN)
		}
	}
	for i := 1; ; i++ {
		field := text
		j := strings.IndexByte(text, ',')
		if j >= 0 {
			field, text = text[:j], text[j+1:]
		}
		field = strings.TrimSpace(field)
		v, ok := parseNumber(field)
		if !ok {
			return p.errorf(i, "cannot parse %s as a number in the inverse metric", quoteShort(field))
		}
		p.f.InvMetric = append(p.f.InvMetric, v)
		if j < 0 {
			break
		}
	}
	p.metricRs--
	if p.metricRs == 0 {
		p.metric = 0
	}
	return nil
}

func (p *parser) headerLine(line string) error {
	names := strings.Split(line, ",")
	index := make(map[string]int, len(names))
	for i, n := range names {
		n = strings.TrimSpace(n)
		names[i] = n
		switch {
		case n == "":
			return p.errorf(i+1, "empty column name in header")
		case strings.IndexAny(n[:1], "0123456789+-.") == 0:
			return p.errorf(i+1, "expected a header line of column names, got %q", n)
		}
		if j, ok := index[n]; ok {
			return p.errorf(i+1, "duplicate column name %q (also column %d)", n, j+1)
		}
		index[n] = i
	}
	p.f.Columns = names
	p.header = true
	return nil
}

func (p *parser) dataLine(line string) error {
	ncol := len(p.f.Columns)
	if n := strings.Count(line, ",") + 1; n != ncol {
		return p.errorf(0, "%d fields, header has %d", n, ncol)
	}
	row := make([]float64, ncol)
	for i := range row {
		field := line
		if j := strings.IndexByte(line, ','); j >= 0 {
			field, line = line[:j], line[j+1:]
		}
		v, ok := parseNumber(strings.TrimSpace(field))
		if !ok {
			return p.errorf(i+1, "cannot parse %s as a number (column %s)", quoteShort(field), quoteShort(p.f.Columns[i]))
		}
		row[i] = v
	}
	p.rows = append(p.rows, row)
	return nil
}

// parseNumber parses a value as CmdStan writes it.
func parseNumber(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "nan", "-nan", "+nan":
		return math.NaN(), true
	}
	if strings.IndexByte(s, '_') >= 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// split divides the rows into warm-up and sampling draws.
func (p *parser) split() error {
	f := p.f
	save := f.Config["save_warmup"]
	if !(save == "1" || strings.EqualFold(save, "true")) {
		f.Draws = p.rows
		return nil
	}
	nw := p.adaptAt
	if nw < 0 {
		numWarmup, err := strconv.Atoi(f.Config["num_warmup"])
		if err != nil || numWarmup < 0 {
			return &SyntaxError{File: p.name, Msg: fmt.Sprintf("save_warmup = %s but num_warmup is %q, not a count", save, f.Config["num_warmup"])}
		}
		thin := 1
		if s, ok := f.Config["thin"]; ok {
			thin, err = strconv.Atoi(s)
			if err != nil || thin < 1 {
				return &SyntaxError{File: p.name, Msg: fmt.Sprintf("thin is %q, not a positive count", s)}
			}
		}
		nw = ceilDiv(numWarmup, thin)
		if nw > len(p.rows) {
			nw = len(p.rows)
		}
	}
	if nw > 0 {
		f.Warmup = p.rows[:nw:nw]
	}
	f.Draws = p.rows[nw:]
	return nil
}

// Column returns a copy of the sampling draws of the named column, and
// whether the file has that column.
func (f *File) Column(name string) ([]float64, bool) {
	for j, c := range f.Columns {
		if c == name {
			x := make([]float64, len(f.Draws))
			for i, row := range f.Draws {
				x[i] = row[j]
			}
			return x, true
		}
	}
	return nil, false
}

// ParamNames returns the names of the columns that do not end in "__", that
// is the model's parameters and other quantities, without the sampler's
// diagnostics such as lp__ and stepsize__.
func (f *File) ParamNames() []string {
	var names []string
	for _, c := range f.Columns {
		if !strings.HasSuffix(c, "__") {
			names = append(names, c)
		}
	}
	return names
}
