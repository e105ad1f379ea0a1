package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"gonum.org/v1/gonum/mat"
)

// The Parquet reader uses github.com/parquet-go/parquet-go, a pure-Go
// implementation of the format (no cgo) with a small dependency tree (its
// compression codecs, google/uuid, protobuf), rather than the Parquet package
// of apache/arrow-go, which needs Go 1.25 and brings in the Arrow memory
// model, Thrift, flatbuffers, gRPC and some thirty other modules. Only the
// low-level API is used: file metadata, row groups, column chunks and pages.

// ParquetOptions controls OpenParquet and ReadParquet. The zero value reads
// every column, with the response in the last one.
type ParquetOptions struct {
	// Target is the name of the response column, or its 1-based number
	// (−1 the last, as CSVOptions.Target; a column so named wins); "" means
	// the last column of the file.
	Target string
	// Features names the feature columns, in the order wanted; nil means
	// every column but the target, in file order.
	Features []string
	// MaxBytes, if positive, bounds the numbers ReadParquet holds (8 bytes
	// each), as CSVOptions.MaxBytes.
	MaxBytes int64

	// typed columns (readParquetTable): text columns and nulls are read
	// through each column's colState; noTarget selects no target.
	typed    bool
	noTarget bool
	states   map[string]*colState
}

// ParquetFile reads a Parquet file as a table of numbers, one block of rows at
// a time: the selected columns are decoded page by page in step, so memory
// holds one page per column and the block asked for, never the whole file
// or a whole row group.
//
// Only flat files are read: the selected columns must be top-level leaf
// columns, required or optional but not repeated. Numeric types are
// converted to float64: BOOLEAN (false 0, true 1); INT32 and INT64, signed or
// unsigned (the UINT_8 … UINT_64 annotations), and DECIMAL stored in them
// (the unscaled integer divided by 10^scale, correctly rounded, so "22.08"
// stored as DECIMAL(5,2) gives the same float64 as the text 22.08); FLOAT
// (exactly) and DOUBLE. Text, binary and INT96 columns are refused, and so
// are nulls, NaN and ±Inf, with an error naming the row and the column.
type ParquetFile struct {
	name   string
	f      *os.File
	pf     *parquet.File
	names  []string // feature names
	target string
	cols   []parquetColumn // features, then the target
	n      int64           // rows
	rg     int             // current row group
	row    int64           // rows returned so far
	rgLeft int64           // rows left in the current row group
	buf    []parquet.Value
}

// parquetColumn is one selected column and its decoding state.
type parquetColumn struct {
	name     string
	leaf     int // index of the leaf column in a row group's ColumnChunks
	conv     func(parquet.Value) float64
	pages    parquet.Pages
	page     parquet.Page
	values   parquet.ValueReader
	optional bool
	st       *colState // typed reading: the column's state
	text     bool      // typed reading: a BYTE_ARRAY column, read as text
}

// OpenParquet opens a Parquet file for reading with Next. Errors are of type
// *ParseError.
func OpenParquet(path string, opt ParquetOptions) (*ParquetFile, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &ParseError{File: path, Msg: err.Error(), Err: err}
	}
	pf, err := openParquet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error(), Err: err}
	}
	p := &ParquetFile{name: path, f: f, pf: pf, n: pf.NumRows(), buf: make([]parquet.Value, 1024)}
	if err := p.selectColumns(opt); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// openParquet is parquet.OpenFile, with a panic on a malformed file turned
// into an error.
func openParquet(f *os.File, size int64) (pf *parquet.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, fmt.Errorf("corrupt metadata (%v)", r)
		}
	}()
	// The footer's length, the 4 bytes before the closing "PAR1", is
	// checked against the file's size before parquet-go allocates a buffer
	// of that length (a corrupt 11 KB file claimed 4 GiB).
	if size < 12 {
		return nil, fmt.Errorf("%d bytes: too short for a Parquet file (at least 12)", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); string(tail[4:]) == "PAR1" && n > size-12 {
		return nil, fmt.Errorf("corrupt metadata (the footer claims %d bytes, the file has %d)", n, size)
	}
	return parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
}

func (p *ParquetFile) errorf(msg string, args ...any) error {
	return &ParseError{File: p.name, Msg: fmt.Sprintf(msg, args...)}
}

// selectColumns resolves the names of opt against the file's schema.
func (p *ParquetFile) selectColumns(opt ParquetOptions) error {
	schema := p.pf.Metadata().Schema
	if len(schema) == 0 {
		return p.errorf("the file has no schema")
	}
	// The top-level fields and, for leaves, their position among the leaves.
	type field struct {
		el   *format.SchemaElement
		leaf int // −1 for a group
	}
	var top []field
	leaf := 0
	var walk func(i, depth int) int // returns the index after the subtree at i
	walk = func(i, depth int) int {
		el := &schema[i]
		kids := 0
		if el.NumChildren.Valid {
			kids = int(el.NumChildren.V)
		}
		if depth == 1 {
			f := field{el: el, leaf: -1}
			if kids == 0 {
				f.leaf = leaf
			}
			top = append(top, f)
		}
		if kids == 0 {
			leaf++
			return i + 1
		}
		j := i + 1
		for k := 0; k < kids && j < len(schema); k++ {
			j = walk(j, depth+1)
		}
		return j
	}
	walk(0, 0)
	all := make([]string, len(top))
	for i, f := range top {
		all[i] = f.el.Name
	}
	find := func(name, role string) (field, error) {
		for _, f := range top {
			if f.el.Name == name {
				return f, nil
			}
		}
		return field{}, p.errorf("%s column %q not found; columns are: %s", role, name, listNames(all))
	}
	if len(top) == 0 {
		return p.errorf("the file has no columns")
	}
	// By name, or by number (1-based, −1 the last) as for CSV.
	target := ""
	if !opt.noTarget {
		j, msg := resolveTarget(opt.Target, all)
		if msg != "" {
			return p.errorf("%s", msg)
		}
		target = all[j]
	}
	feats := opt.Features
	if feats == nil {
		for _, f := range top {
			if f.el.Name != target {
				feats = append(feats, f.el.Name)
			}
		}
	}
	if len(feats) == 0 {
		return p.errorf("no feature columns besides the target %q", target)
	}
	for i, name := range feats {
		if name == target {
			return p.errorf("column %q is both a feature and the target", name)
		}
		if j := slices.Index(feats[:i], name); j >= 0 {
			return p.errorf("feature column %q is listed twice", name)
		}
	}
	sel := slices.Clone(feats)
	if !opt.noTarget {
		sel = append(sel, target)
	}
	fields := make([]field, len(sel))
	for k, name := range sel {
		role := "feature"
		if k == len(feats) {
			role = "target"
		}
		f, err := find(name, role)
		if err != nil {
			return err
		}
		fields[k] = f
	}
	for k, name := range sel {
		f := fields[k]
		if f.leaf < 0 {
			return p.errorf("column %q is a group of columns: expected a numeric column", name)
		}
		if f.el.RepetitionType.Valid && f.el.RepetitionType.V == format.Repeated {
			return p.errorf("column %q is repeated (a list): expected one number per row", name)
		}
		pc := parquetColumn{name: name, leaf: f.leaf,
			optional: f.el.RepetitionType.Valid && f.el.RepetitionType.V == format.Optional}
		if opt.typed {
			pc.st = opt.states[name]
			if pc.st == nil {
				pc.st = &colState{name: name, index: k + 1}
			}
			if f.el.Type.Valid && (f.el.Type.V == format.ByteArray || f.el.Type.V == format.FixedLenByteArray) {
				pc.text = true
				if !pc.st.closed {
					pc.st.cat, pc.st.fixed = true, true
					if pc.st.codes == nil {
						pc.st.codes = map[string]int{}
					}
				}
			}
		}
		if !pc.text {
			conv, err := converter(f.el)
			if err != nil {
				return p.errorf("column %q: %v", name, err)
			}
			pc.conv = conv
		}
		p.cols = append(p.cols, pc)
	}
	p.names = feats
	p.target = target
	return nil
}

// converter returns the conversion to float64 of the values of a column
// described by el.
func converter(el *format.SchemaElement) (func(parquet.Value) float64, error) {
	if !el.Type.Valid {
		return nil, errors.New("no physical type")
	}
	var conv deprecated.ConvertedType = -1
	if el.ConvertedType.Valid {
		conv = el.ConvertedType.V
	}
	unsigned := conv == deprecated.Uint8 || conv == deprecated.Uint16 || conv == deprecated.Uint32 || conv == deprecated.Uint64
	scale := 0
	if conv == deprecated.Decimal && el.Scale.Valid {
		scale = int(el.Scale.V)
	}
	switch lt := el.LogicalType.Value.(type) {
	case *format.IntType:
		unsigned = !lt.IsSigned
	case *format.DecimalType:
		scale = int(lt.Scale)
	}
	if scale < 0 || scale > 22 {
		return nil, fmt.Errorf("decimal scale %d: expected 0 to 22", scale)
	}
	pow := math.Pow10(scale) // exact for scale ≤ 22
	t := el.Type.V
	switch t {
	case format.Boolean:
		return func(v parquet.Value) float64 {
			if v.Boolean() {
				return 1
			}
			return 0
		}, nil
	case format.Int32:
		if unsigned {
			return func(v parquet.Value) float64 { return float64(v.Uint32()) / pow }, nil
		}
		return func(v parquet.Value) float64 { return float64(v.Int32()) / pow }, nil
	case format.Int64:
		// float64(int64) rounds correctly above 2^53; so does the division.
		if unsigned {
			return func(v parquet.Value) float64 { return float64(v.Uint64()) / pow }, nil
		}
		return func(v parquet.Value) float64 { return float64(v.Int64()) / pow }, nil
	case format.Float:
		return func(v parquet.Value) float64 { return float64(v.Float()) }, nil
	case format.Double:
		return func(v parquet.Value) float64 { return v.Double() }, nil
	}
	return nil, fmt.Errorf("type %v is not numeric: expected BOOLEAN, INT32, INT64, FLOAT, DOUBLE or a DECIMAL stored in an integer", t)
}

// Names returns the feature names, in the order of the columns of a block.
func (p *ParquetFile) Names() []string { return p.names }

// Target returns the name of the response column.
func (p *ParquetFile) Target() string { return p.target }

// Len returns the number of rows of the file.
func (p *ParquetFile) Len() int { return int(p.n) }

// Next reads the next rows into x (row-major, len(Names()) values a row) and
// y, at most len(y) rows, and returns how many it read: 0 and io.EOF after the
// last row. A block never spans two row groups, so it may hold fewer rows
// than asked even before the end.
func (p *ParquetFile) Next(x, y []float64) (int, error) {
	pcols := len(p.names)
	if len(x) < len(y)*pcols {
		panic(fmt.Sprintf("data: ParquetFile.Next: len(x) = %d, want %d×%d", len(x), len(y), pcols))
	}
	for p.rgLeft == 0 {
		if err := p.nextRowGroup(); err != nil {
			return 0, err
		}
	}
	n := int(min(int64(len(y)), p.rgLeft))
	for k := range p.cols {
		c := &p.cols[k]
		dst, stride := x[k:], pcols
		if k == pcols {
			dst, stride = y, 1
		}
		if err := p.readColumn(c, dst, stride, n); err != nil {
			return 0, err
		}
	}
	p.row += int64(n)
	p.rgLeft -= int64(n)
	return n, nil
}

// nextRowGroup opens the column chunks of the next row group.
func (p *ParquetFile) nextRowGroup() (err error) {
	defer p.corrupt(&err, fmt.Sprintf("row group %d", p.rg+1))
	groups := p.pf.RowGroups()
	for k := range p.cols {
		p.cols[k].close()
	}
	if p.rg >= len(groups) {
		return io.EOF
	}
	g := groups[p.rg]
	p.rg++
	chunks := g.ColumnChunks()
	for k := range p.cols {
		c := &p.cols[k]
		c.pages = chunks[c.leaf].Pages()
	}
	p.rgLeft = g.NumRows()
	return nil
}

// corrupt turns a panic of the Parquet library on a malformed file (an index
// out of range while decoding, say) into a *ParseError in *err.
func (p *ParquetFile) corrupt(err *error, where string) {
	if r := recover(); r != nil {
		*err = &ParseError{File: p.name, Msg: fmt.Sprintf("%s: corrupt Parquet data (%v)", where, r)}
	}
}

// readColumn decodes n values of column c into dst[0], dst[stride], ….
func (p *ParquetFile) readColumn(c *parquetColumn, dst []float64, stride, n int) (err error) {
	defer p.corrupt(&err, fmt.Sprintf("column %q near row %d", c.name, p.row+1))
	for i := 0; i < n; {
		if c.values == nil {
			pg, err := c.pages.ReadPage()
			if err != nil {
				if err == io.EOF {
					return p.errorf("column %q ends at row %d, before the other columns", c.name, p.row+int64(i))
				}
				return &ParseError{File: p.name, Msg: fmt.Sprintf("column %q, row %d: %v", c.name, p.row+int64(i)+1, err), Err: err}
			}
			c.page, c.values = pg, pg.Values()
		}
		buf := p.buf[:min(len(p.buf), n-i)]
		m, err := c.values.ReadValues(buf)
		for _, v := range buf[:m] {
			row := p.row + int64(i) + 1
			if c.st != nil {
				f, msg := c.typedValue(v, int(row))
				if msg != "" {
					return p.errorf("row %d, column %q: %s", row, c.name, msg)
				}
				dst[i*stride] = f
				i++
				continue
			}
			if v.IsNull() {
				return p.errorf("row %d, column %q: missing value (null)", row, c.name)
			}
			f := c.conv(v)
			if math.IsNaN(f) {
				return p.errorf("row %d, column %q: NaN is not allowed", row, c.name)
			}
			if math.IsInf(f, 0) {
				return p.errorf("row %d, column %q: Inf is not allowed", row, c.name)
			}
			dst[i*stride] = f
			i++
		}
		if err == io.EOF {
			parquet.Release(c.page)
			c.page, c.values = nil, nil
		} else if err != nil {
			return &ParseError{File: p.name, Msg: fmt.Sprintf("column %q, row %d: %v", c.name, p.row+int64(i)+1, err), Err: err}
		}
	}
	return nil
}

func (c *parquetColumn) close() {
	if c.page != nil {
		parquet.Release(c.page)
	}
	if c.pages != nil {
		c.pages.Close()
	}
	c.page, c.values, c.pages = nil, nil, nil
}

// Close closes the file.
func (p *ParquetFile) Close() error {
	for k := range p.cols {
		p.cols[k].close()
	}
	return p.f.Close()
}

// ReadParquet reads the selected columns of a Parquet file into memory; see
// ParquetFile for the types read and OpenParquet for the errors.
func ReadParquet(path string, opt ParquetOptions) (*Dataset, error) {
	p, err := OpenParquet(path, opt)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	n, d := p.Len(), len(p.names)
	if n == 0 {
		return nil, p.errorf("no rows")
	}
	if need := 8 * int64(n) * int64(d+1); opt.MaxBytes > 0 && need > opt.MaxBytes {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("%d rows × %d columns would hold %d MiB of numbers in memory, more than the bound of %d MiB", n, d+1, need>>20, opt.MaxBytes>>20), Err: ErrTooLarge}
	}
	// The memory follows the rows actually read, in blocks, not the count
	// the metadata claim (a corrupt file may claim billions).
	const block = 4096
	bx, by := make([]float64, block*d), make([]float64, block)
	var x, y []float64
	for i := 0; i < n; {
		m, err := p.Next(bx[:min(block, n-i)*d], by[:min(block, n-i)])
		if err == io.EOF {
			return nil, p.errorf("%d rows read, the metadata promise %d", i, n)
		}
		if err != nil {
			return nil, err
		}
		x, y = append(x, bx[:m*d]...), append(y, by[:m]...)
		i += m
	}
	return &Dataset{X: mat.NewDense(n, d, x), Y: y, Names: slices.Clone(p.names), Target: p.target, Source: path}, nil
}

// typedValue converts a value of a typed column at the 1-based row: a null is
// missing; a text value a level; a number a number, or a level of a column
// coded as categorical (or the ID).
func (c *parquetColumn) typedValue(v parquet.Value, row int) (float64, string) {
	st := c.st
	if v.IsNull() {
		return st.cell("", row)
	}
	if c.text {
		return st.cell(string(v.ByteArray()), row)
	}
	f := c.conv(v)
	if st.cat || st.role == roleID {
		if st.role == roleID && st.codes == nil {
			st.cat, st.fixed, st.codes = true, true, map[string]int{}
		}
		return st.cell(strconv.FormatFloat(f, 'g', -1, 64), row)
	}
	if math.IsNaN(f) {
		return st.cell("", row)
	}
	if math.IsInf(f, 0) {
		return 0, "Inf is not allowed"
	}
	if st.firstNum == 0 {
		st.firstNum = row
	}
	return f, ""
}

// parquetNames returns the names of the top-level columns of a Parquet file.
func parquetNames(path string) ([]string, error) {
	p, err := OpenParquet(path, ParquetOptions{typed: true, noTarget: true})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return slices.Clone(p.names), nil
}

// readParquetTable reads a Parquet file as a table of typed columns, with
// the options and rules of ParseCSV (text columns categorical, nulls and NaN
// missing, an ID column, dropped columns, a Coding); row numbers take the
// place of line numbers in messages.
func readParquetTable(path string, opt CSVOptions) (*Dataset, error) {
	tbl, err := parquetTable(path, opt)
	if err != nil {
		return nil, err
	}
	return tbl.finish()
}

// parquetTable reads a Parquet file as readParquetTable does, up to the
// table before its coding.
func parquetTable(path string, opt CSVOptions) (*table, error) {
	if opt.Missing != "" && opt.Missing != MissingError && opt.Missing != MissingDrop {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("missing-value rule %q: expected %q or %q", opt.Missing, MissingError, MissingDrop)}
	}
	names, err := parquetNames(path)
	if err != nil {
		return nil, err
	}
	t, msg := targetIndex(names, opt)
	if msg != "" {
		return nil, &ParseError{File: path, Msg: msg}
	}
	cols, err := csvColumns(names, t, opt)
	if err != nil {
		err.(*ParseError).File = path
		return nil, err
	}
	tbl := &table{name: path, coding: opt.Coding, missing: opt.Missing, rowWord: "row", maxBytes: opt.MaxBytes}
	states := map[string]*colState{}
	var feats []string
	idCol := -1
	for _, c := range cols {
		states[c.name] = c
		switch c.role {
		case roleTarget:
			tbl.target = c
		case roleID:
			idCol = c.index - 1
		case roleDrop:
			tbl.dropped = append(tbl.dropped, c.name)
		case roleIgnore:
			tbl.ignored = append(tbl.ignored, c.name)
		}
	}
	for _, c := range cols {
		if c.role == roleFeature {
			tbl.feats = append(tbl.feats, c)
		}
	}
	slices.SortStableFunc(tbl.feats, func(a, b *colState) int { return a.slot - b.slot })
	for _, c := range tbl.feats {
		feats = append(feats, c.name)
	}
	q := len(feats)
	if idCol >= 0 {
		tbl.id = names[idCol]
		feats = append(feats, names[idCol]) // read beside the features
	}
	popt := ParquetOptions{Features: feats, typed: true, states: states, noTarget: t < 0}
	if t >= 0 {
		popt.Target = names[t]
	}
	p, err := OpenParquet(path, popt)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	n, w := p.Len(), len(feats)
	if n == 0 {
		return nil, p.errorf("no rows")
	}
	if need := 16 * int64(n) * int64(w+1); opt.MaxBytes > 0 && need > opt.MaxBytes {
		// The columns as read and the coded table: twice the numbers.
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("%d rows × %d columns would hold %d MiB of numbers in memory (read and coded), more than the bound of %d MiB", n, w+1, need>>20, opt.MaxBytes>>20), Err: ErrTooLarge}
	}
	x := make([]float64, n*w)
	y := make([]float64, n)
	for i := 0; i < n; {
		m, err := p.Next(x[i*w:], y[i:])
		if err == io.EOF {
			return nil, p.errorf("%d rows read, the metadata promise %d", i, n)
		}
		if err != nil {
			return nil, err
		}
		i += m
	}
	tbl.n = n
	if w == q {
		tbl.x = x
	} else {
		id := states[tbl.id]
		tbl.x = make([]float64, 0, n*q)
		tbl.ids = make([]string, n)
		for i := range n {
			tbl.x = append(tbl.x, x[i*w:i*w+q]...)
			if v := x[i*w+q]; !math.IsNaN(v) {
				tbl.ids[i] = id.levels[int(v)]
			}
		}
	}
	if t >= 0 {
		tbl.y = y
	}
	return tbl, nil
}
