package data

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// CSVOptions controls ReadCSV and ParseCSV. The zero value reads a file with
// a header row, a detected delimiter and the response in the last column.
type CSVOptions struct {
	// Target selects the response column. It is either a column name from
	// the header, or a 1-based column number such as "3"; a negative number
	// counts from the end, so "-1" is the last column. A header name that
	// matches Target exactly takes precedence over the numeric reading. The
	// empty string selects the last column.
	Target string

	// Delimiter separates fields. 0 means detect it from the first lines
	// of the input: among ',', ';', '\t' and runs of white space, the
	// candidate that splits the first (up to 10) non-blank lines into the
	// same number of fields, at least two, with the most fields wins; ties
	// go to the earlier candidate in that list. ' ' means runs of spaces and
	// tabs, ignoring leading and trailing white space.
	Delimiter rune

	// NoHeader reports that the input has no header row. Columns are then
	// named V1, V2, ..., Vk.
	NoHeader bool

	// Header reports that the first row is a header even if all its fields
	// are numbers. By default (neither NoHeader nor Header) a first row of
	// numbers only is taken as data, as in a headerless numeric file, so
	// that it is not lost to the header; columns are then named V1, ..., Vk.
	Header bool

	// ID names the ID column (matched as Target is): never a feature, its
	// cells kept as read in Dataset.IDs.
	ID string
	// Drop names columns that are not read (matched as Target is).
	Drop []string
	// Categorical names columns to code as categorical even if their cells
	// are numbers (integer-coded groups, say); a column of text is
	// categorical without being named. See Coding for the rules.
	Categorical []string
	// Missing is the rule for missing values (MissingTokens): "" or
	// MissingError, an error naming the column and how many rows; MissingDrop,
	// drop those rows (counted per column in Dataset.Coding).
	Missing string
	// Coding, when set, reads new rows as the data it was made from were
	// read: its feature columns (matched by name, in its order; other
	// columns ignored and named in Dataset.Ignored), its levels (another
	// level is an error naming line, column and level), its target labels
	// and ID column. Target "" then means the Coding's target.
	Coding *Coding
	// OptionalTarget allows the target column, given by name, to be absent:
	// the Dataset then has Y nil (new rows to predict).
	OptionalTarget bool
	// NA lists more cells read as a missing value, besides MissingTokens
	// (a "?" or "-999" that marks one in a file), under the Missing rule.
	NA []string
	// Decimal is the decimal mark of the numbers: 0 or '.', or ',' (1,5 is
	// one and a half; the delimiter, when not given, is then ';').
	Decimal rune

	// MaxBytes, if positive, bounds the numbers a reader holds in memory
	// (8 bytes each, checked as it reads; the final matrix is a copy, so
	// the peak is about twice as much): more is a *ParseError wrapping
	// ErrTooLarge, found before the memory is taken — a gzip file that
	// expands to gigabytes is refused after MaxBytes. ReadFile applies it
	// to every format.
	MaxBytes int64

	// table reads a Table (ReadTable): the columns of use (nil: all), all
	// features, no target; the other columns ignored.
	table bool
	use   []string
}

// ErrTooLarge is wrapped by the errors of readers for data that would hold
// more than CSVOptions.MaxBytes in memory.
var ErrTooLarge = errors.New("more numbers than the memory bound allows")

// tooLarge returns the error of data past the bound max, after n values.
func tooLarge(name string, line int, max int64) error {
	return &ParseError{File: name, Line: line, Msg: fmt.Sprintf("the data would hold more than %d MiB of numbers in memory, the bound", max>>20), Err: ErrTooLarge}
}

// detectLines is the number of non-blank lines used to detect the delimiter.
const detectLines = 10

// ReadCSV reads a delimited text file; see ParseCSV. Files compressed with
// gzip are decompressed transparently, whatever their name. All errors,
// including failure to open the file, are of type *ParseError.
func ReadCSV(path string, opt CSVOptions) (*Dataset, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseCSV(f, path, opt)
}

// ParseCSV reads a table of numbers in delimited text from r. name is used in
// error messages and as the Source of the Dataset.
//
// The first non-blank line is the header, unless opt.NoHeader is set or,
// without opt.Header, all its fields are numbers; the remaining non-blank
// lines are data rows. Lines longer than MaxLineBytes are an error. Blank lines (anywhere) are
// skipped, "\r\n" line ends and a leading UTF-8 byte order mark are accepted,
// and gzip-compressed input (recognised by its magic bytes) is decompressed.
// A field may be enclosed in double quotes, with "" standing for a literal
// quote, as in the UCI wine files whose header reads
// "fixed acidity";"volatile acidity";...; quoted fields cannot span lines.
// Unquoted fields are trimmed of surrounding spaces. Every data field must be
// a finite number in a form accepted by strconv.ParseFloat; missing values,
// NaN and ±Inf are errors. The response column is chosen by opt.Target and
// the other columns, in file order, become the features.
//
// Errors are of type *ParseError; their messages include
//
//	empty file: expected a header row
//	row has 3 fields, header has 4
//	cannot parse "abc" as a number
//	NaN is not allowed
//	Inf is not allowed
//	target column "foo" not found; columns are: a, b, c
//	duplicate column name "a" (also column 1)
//
// ParseCSV requires at least two columns and at least one data row.
func ParseCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	tbl, ds, err := parseCSV(r, name, opt)
	if err != nil || ds != nil {
		return ds, err
	}
	return tbl.finish()
}

// parseCSV reads delimited text as ParseCSV does, up to the table before
// its coding: it returns the Dataset itself when every cell is a number and
// no column is typed (never when reading a Table: opt.table), else the
// table.
func parseCSV(r io.Reader, name string, opt CSVOptions) (*table, *Dataset, error) {
	perr := func(line, col int, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
	}
	if opt.NoHeader && opt.Header {
		return nil, nil, perr(0, 0, "both NoHeader and Header are set")
	}
	if opt.Missing != "" && opt.Missing != MissingError && opt.Missing != MissingDrop {
		return nil, nil, perr(0, 0, "missing-value rule %q: expected %q or %q", opt.Missing, MissingError, MissingDrop)
	}
	if d := opt.Delimiter; d != 0 && (d == '"' || d == '\n' || d == '\r' || d == utf8.RuneError || !utf8.ValidRune(d)) {
		return nil, nil, perr(0, 0, "invalid delimiter %q", d)
	}
	switch opt.Decimal {
	case 0, '.':
	case ',':
		if opt.Delimiter == 0 {
			opt.Delimiter = ';'
		} else if opt.Delimiter == ',' {
			return nil, nil, perr(0, 0, "decimal comma with ',' as the delimiter: the cells could not be told apart (';' is the usual delimiter with a decimal comma)")
		}
	default:
		return nil, nil, perr(0, 0, "decimal mark %q: expected '.' or ','", opt.Decimal)
	}
	lr, err := newLineReader(r, name)
	if err != nil {
		return nil, nil, err
	}

	// Buffer the first non-blank lines for delimiter detection.
	type numbered struct {
		text string
		line int
	}
	var head []numbered
	for len(head) < detectLines {
		text, line, ok, err := lr.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if isBlank(text) {
			continue
		}
		head = append(head, numbered{text, line})
	}
	if len(head) == 0 {
		if opt.NoHeader {
			return nil, nil, perr(0, 0, "empty file: expected a data row")
		}
		return nil, nil, perr(0, 0, "empty file: expected a header row")
	}

	delim := opt.Delimiter
	if delim == 0 {
		texts := make([]string, len(head))
		for i, h := range head {
			texts[i] = h.text
		}
		delim = detectDelimiter(texts)
	}

	first := head[0]
	fields, col, msg := splitFields(first.text, delim)
	if msg != "" {
		return nil, nil, perr(first.line, col, "%s", msg)
	}
	k := len(fields)
	names := make([]string, k)
	rows := head
	noHeader := opt.NoHeader || (!opt.Header && allNumbers(fields))
	if noHeader {
		for j := range names {
			names[j] = "V" + strconv.Itoa(j+1)
		}
	} else {
		seen := make(map[string]int, k)
		for j, f := range fields {
			if f == "" {
				return nil, nil, perr(first.line, j+1, "empty column name")
			}
			if prev, dup := seen[f]; dup {
				return nil, nil, perr(first.line, j+1, "duplicate column name %s (also column %d)", quote(f), prev+1)
			}
			seen[f] = j
			names[j] = f
		}
		rows = head[1:]
	}
	if k < 2 && !opt.table {
		return nil, nil, perr(first.line, 0, "need at least 2 columns (features and a target), found 1 (delimiter %q)", delim)
	}
	t, tmsg := targetIndex(names, opt)
	if tmsg != "" {
		if noHeader && !opt.NoHeader {
			tmsg += " (the first row is all numbers, so it was read as data, not as a header; set Header if it is one)"
		}
		return nil, nil, perr(first.line, 0, "%s", tmsg)
	}
	cols, err := csvColumns(names, t, opt)
	if err != nil {
		err.(*ParseError).File, err.(*ParseError).Line = name, first.line
		return nil, nil, err
	}
	typed := false // a column that may hold text, missing values, an ID or a dropped column
	q := 0
	for _, c := range cols {
		if c.role != roleFeature && c.role != roleTarget {
			typed = true
		}
		if c.role == roleFeature {
			q++
		}
	}
	tbl := &table{name: name, n: 0, coding: opt.Coding, missing: opt.Missing, rowWord: "line", maxBytes: opt.MaxBytes}
	if j := slices.IndexFunc(cols, func(c *colState) bool { return c.role == roleID }); j >= 0 {
		tbl.id = names[j]
		tbl.ids = []string{}
	}
	tbl.feats = make([]*colState, q)
	for _, c := range cols {
		switch c.role {
		case roleFeature:
			tbl.feats[c.slot] = c
		case roleTarget:
			tbl.target = c
		case roleDrop:
			tbl.dropped = append(tbl.dropped, c.name)
		case roleIgnore:
			tbl.ignored = append(tbl.ignored, c.name)
		}
	}
	if opt.Coding != nil {
		typed = true
	}

	what := "header"
	if noHeader {
		what = "first row"
	}
	// The features are stored in blocks of whole rows, copied once at the
	// end: no doubling of one large slice.
	p := q
	blockRows := max(1, (1<<16)/max(p, 1))
	var blocks [][]float64
	var cur []float64
	var ys []float64
	// Fast path: a one-byte delimiter other than white space, and a line
	// without quotes.
	fast := delim < utf8.RuneSelf && delim != ' ' && delim != '"'
	db := byte(delim)
	var row []float64        // the current row's features
	var held, textHeld int64 // bytes of numbers and of categorical levels held
	store := func(j int, f string, line int) error {
		c := cols[j]
		switch c.role {
		case roleFeature:
			nl := len(c.levels)
			v, msg := c.cell(f, line)
			if msg != "" {
				return perr(line, j+1, "%s", msg)
			}
			row[c.slot] = v
			if len(c.levels) > nl {
				// A new level's text is held too (and a map entry).
				textHeld += int64(len(f)) + levelOverhead
				if opt.MaxBytes > 0 && held+textHeld > opt.MaxBytes {
					return tooLarge(name, line, opt.MaxBytes)
				}
			}
		case roleTarget:
			v, msg := c.cell(f, line)
			if msg != "" {
				return perr(line, j+1, "%s", msg)
			}
			ys[len(ys)-1] = v
		case roleID:
			tbl.ids = append(tbl.ids, f)
		}
		return nil
	}
	parseRow := func(text string, line int) error {
		if len(cur) == cap(cur) {
			if cur != nil {
				blocks = append(blocks, cur)
			}
			if held = 8 * int64(len(blocks)+1) * int64(blockRows) * int64(p+1); opt.MaxBytes > 0 && held+textHeld > opt.MaxBytes {
				return tooLarge(name, line, opt.MaxBytes)
			}
			cur = make([]float64, 0, blockRows*p)
		}
		cur = cur[:len(cur)+p]
		row = cur[len(cur)-p:]
		if t >= 0 {
			ys = append(ys, 0)
		}
		if fast && strings.IndexByte(text, '"') < 0 {
			j := 0
			rest := text
			for {
				i := strings.IndexByte(rest, db)
				f := rest
				if i >= 0 {
					f = rest[:i]
				}
				if j == k {
					return perr(line, 0, "row has %d fields, %s has %d", strings.Count(text, string(delim))+1, what, k)
				}
				if err := store(j, trimField(f, db), line); err != nil {
					return err
				}
				j++
				if i < 0 {
					break
				}
				rest = rest[i+1:]
			}
			if j != k {
				return perr(line, 0, "row has %d fields, %s has %d", j, what, k)
			}
			return nil
		}
		fields, col, msg := splitFields(text, delim)
		if msg != "" {
			return perr(line, col, "%s", msg)
		}
		if len(fields) != k {
			return perr(line, 0, "row has %d fields, %s has %d", len(fields), what, k)
		}
		for j, f := range fields {
			if err := store(j, f, line); err != nil {
				return err
			}
		}
		return nil
	}
	nrows := 0
	for _, h := range rows {
		if err := parseRow(h.text, h.line); err != nil {
			return nil, nil, err
		}
		nrows++
	}
	for {
		text, line, ok, err := lr.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if isBlank(text) {
			continue
		}
		if err := parseRow(text, line); err != nil {
			return nil, nil, err
		}
		nrows++
	}
	blocks = append(blocks, cur)
	if nrows == 0 {
		return nil, nil, perr(lr.n+1, 0, "no data rows after the header")
	}
	feat := blocks[0]
	if len(blocks) > 1 {
		feat = make([]float64, 0, nrows*p)
		for i, b := range blocks {
			feat = append(feat, b...)
			blocks[i] = nil // the copy grows as the blocks go
		}
	}
	tbl.n, tbl.x = nrows, feat
	if tbl.target != nil {
		tbl.y = ys
	}
	if !typed && !tbl.hasTextOrMissing() && !opt.table {
		// All numbers, every cell: the features as read.
		ds := &Dataset{Names: slices.Clone(tbl.featureNames()), Source: name, Y: ys}
		if t >= 0 {
			ds.Target = names[t]
		} // else new rows without the response (OptionalTarget)
		ds.Coding = tbl.numericCoding()
		ds.X = mat.NewDense(nrows, p, feat)
		return nil, ds, nil
	}
	return tbl, nil, nil
}

// csvColumns assigns each column of the header its role (the target t, or
// -1 when absent; the ID; dropped; a feature; or ignored when opt.Coding does
// not list it) and, for a given coding, its kind and levels.
func csvColumns(names []string, t int, opt CSVOptions) ([]*colState, error) {
	perr := func(format string, args ...any) error {
		return &ParseError{Msg: fmt.Sprintf(format, args...)}
	}
	cols := make([]*colState, len(names))
	for j, n := range names {
		cols[j] = &colState{name: n, index: j + 1, na: opt.NA, decimal: opt.Decimal == ','}
	}
	if t >= 0 {
		cols[t].role = roleTarget
	}
	idName := opt.ID
	if idName == "" && opt.Coding != nil && slices.Contains(names, opt.Coding.ID) {
		idName = opt.Coding.ID // new rows may come without their IDs
	}
	if idName != "" {
		j, msg := resolveColumn(idName, names, "ID")
		if msg != "" {
			return nil, perr("%s", msg)
		}
		if j == t {
			return nil, perr("column %q is both the ID and the target", names[j])
		}
		cols[j].role = roleID
	}
	for _, d := range opt.Drop {
		j, msg := resolveColumn(d, names, "dropped")
		if msg != "" {
			return nil, perr("%s", msg)
		}
		switch cols[j].role {
		case roleTarget:
			return nil, perr("column %q is the target: it cannot be dropped", names[j])
		case roleID:
			return nil, perr("column %q is the ID column: it is not a feature already", names[j])
		}
		cols[j].role = roleDrop
	}
	for _, c := range opt.Categorical {
		j, msg := resolveColumn(c, names, "categorical")
		if msg != "" {
			return nil, perr("%s", msg)
		}
		if cols[j].role == roleFeature || cols[j].role == roleTarget {
			cols[j].cat, cols[j].fixed, cols[j].forced, cols[j].codes = true, true, true, map[string]int{}
		}
	}
	if opt.use != nil {
		// A Table: the columns named, in file order, all else ignored.
		use := make(map[string]bool, len(opt.use))
		for _, n := range opt.use {
			use[n] = true
		}
		for _, col := range cols {
			if col.role == roleFeature && !use[col.name] {
				col.role = roleIgnore
			}
		}
	}
	if c := opt.Coding; c != nil {
		byName := make(map[string]*colState, len(names))
		for _, col := range cols {
			byName[col.name] = col
			if col.role == roleFeature {
				col.role = roleIgnore
			}
		}
		var missing []string
		for _, cc := range c.Columns {
			col, ok := byName[cc.Name]
			if !ok {
				missing = append(missing, cc.Name)
				continue
			}
			if col.role == roleDrop || col.role == roleID || col.role == roleTarget {
				return nil, perr("column %q is a feature of the training data, not the ID, target or a dropped column", cc.Name)
			}
			col.role = roleFeature
			if cc.Kind == Categorical {
				col.fixLevels(cc.Levels)
			} else {
				col.fixed = true
			}
		}
		if len(missing) > 0 {
			return nil, perr("no column %s, which the training data have (columns are matched by name; the file has %s)",
				strings.Join(quoteAll(missing), ", "), listNames(names))
		}
		if t >= 0 && len(c.TargetLevels) > 0 {
			cols[t].fixLevels(c.TargetLevels)
		} else if t >= 0 && c.Target != "" {
			cols[t].fixed = true
		}
		// The features in the training data's order.
		order := make(map[string]int, len(c.Columns))
		for i, cc := range c.Columns {
			order[cc.Name] = i
		}
		feats := make([]*colState, 0, len(c.Columns))
		for _, col := range cols {
			if col.role == roleFeature {
				feats = append(feats, col)
			}
		}
		slices.SortStableFunc(feats, func(a, b *colState) int { return order[a.name] - order[b.name] })
		for k, col := range feats {
			col.slot = k
		}
	}
	nf := 0
	for _, c := range cols {
		if c.role == roleFeature {
			if opt.Coding == nil {
				c.slot = nf
			}
			nf++
		}
	}
	if nf == 0 && opt.table {
		return nil, perr("none of the columns %s is in the file (the file has %s)", strings.Join(quoteAll(opt.use), ", "), listNames(names))
	}
	if nf == 0 {
		return nil, perr("no feature columns left (columns: %s)", listNames(names))
	}
	return cols, nil
}

// allNumbers reports whether every field is a finite number: a first row
// like that is data, not a header.
func allNumbers(fields []string) bool {
	for _, f := range fields {
		if _, msg := parseValue(f); msg != "" {
			return false
		}
	}
	return len(fields) > 0
}

// trimField trims the spaces (and tabs, unless the delimiter is a tab)
// around an unquoted field, as splitFields does.
func trimField(f string, delim byte) string {
	isSpace := func(b byte) bool { return b == ' ' || (b == '\t' && delim != '\t') }
	for len(f) > 0 && isSpace(f[0]) {
		f = f[1:]
	}
	for len(f) > 0 && isSpace(f[len(f)-1]) {
		f = f[:len(f)-1]
	}
	return f
}

// resolveTarget returns the index of the target column in names, or an error
// message.
func resolveTarget(target string, names []string) (int, string) {
	k := len(names)
	if target == "" {
		return k - 1, ""
	}
	for j, n := range names {
		if n == target {
			return j, ""
		}
	}
	if num, err := strconv.Atoi(target); err == nil {
		switch {
		case num >= 1 && num <= k:
			return num - 1, ""
		case num <= -1 && num >= -k:
			return k + num, ""
		}
		return 0, fmt.Sprintf("target column %d out of range: there are %d columns (use 1..%d, or -1..-%d from the end)", num, k, k, k)
	}
	return 0, fmt.Sprintf("target column %s not found; columns are: %s", quote(target), listNames(names))
}

// listNames joins names with ", ", eliding the middle of a long list.
func listNames(names []string) string {
	const max = 20
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max-2], ", ") +
		fmt.Sprintf(", ... (%d more), ", len(names)-max+1) + names[len(names)-1]
}

// detectDelimiter chooses a delimiter for the given non-blank lines; see
// CSVOptions.Delimiter.
func detectDelimiter(lines []string) rune {
	candidates := []rune{',', ';', '\t', ' '}
	best, bestK := rune(0), 1
	for _, c := range candidates {
		k, consistent := -1, true
		for _, l := range lines {
			f, _, msg := splitFields(l, c)
			if msg != "" || (k >= 0 && len(f) != k) {
				consistent = false
				break
			}
			k = len(f)
		}
		if consistent && k > bestK {
			best, bestK = c, k
		}
	}
	if best != 0 {
		return best
	}
	// No candidate is consistent: use the one that splits the first line
	// into the most fields so that the error message points at the first
	// inconsistent row.
	best, bestK = ',', 1
	for _, c := range candidates {
		f, _, msg := splitFields(lines[0], c)
		if msg == "" && len(f) > bestK {
			best, bestK = c, len(f)
		}
	}
	return best
}

// splitFields splits a line into fields. delim ' ' means runs of spaces and
// tabs. Fields may be double-quoted, with "" for a literal quote. Unquoted
// fields are trimmed of surrounding spaces (and tabs, unless the delimiter is
// a tab). On failure it returns the 1-based field number and a message.
func splitFields(s string, delim rune) (fields []string, col int, msg string) {
	ws := delim == ' '
	isSpace := func(b byte) bool { return b == ' ' || (b == '\t' && delim != '\t') }
	dlen := utf8.RuneLen(delim)
	i := 0
	skipSpace := func() {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	for {
		skipSpace()
		if ws && i == len(s) {
			return fields, 0, ""
		}
		if i < len(s) && s[i] == '"' {
			// Quoted field.
			i++
			var b strings.Builder
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, len(fields) + 1, "unterminated quoted field"
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			fields = append(fields, b.String())
			skipSpace()
			switch {
			case i == len(s):
				return fields, 0, ""
			case ws:
				// The next field starts here (after at least one space,
				// or directly after the quote).
				if !isSpace(s[i-1]) {
					return nil, len(fields), "unexpected text after closing quote"
				}
			case strings.HasPrefix(s[i:], string(delim)):
				i += dlen
			default:
				return nil, len(fields), "unexpected text after closing quote"
			}
			continue
		}
		// Unquoted field.
		var j int
		if ws {
			j = strings.IndexAny(s[i:], " \t")
		} else {
			j = strings.IndexRune(s[i:], delim)
		}
		if j < 0 {
			fields = append(fields, strings.TrimRight(s[i:], trimSet(delim)))
			return fields, 0, ""
		}
		fields = append(fields, strings.TrimRight(s[i:i+j], trimSet(delim)))
		i += j
		if !ws {
			i += dlen
		}
	}
}

// trimSet returns the characters trimmed from unquoted fields.
func trimSet(delim rune) string {
	if delim == '\t' {
		return " "
	}
	return " \t"
}

// targetIndex returns the index of the target column among names (-1 when
// opt.OptionalTarget allows it to be absent), or an error message.
func targetIndex(names []string, opt CSVOptions) (int, string) {
	if opt.table {
		return -1, "" // a Table: no target
	}
	target := opt.Target
	if target == "" && opt.Coding != nil {
		target = opt.Coding.Target
	}
	if opt.OptionalTarget && target != "" && !slices.Contains(names, target) {
		if _, err := strconv.Atoi(target); err != nil {
			return -1, "" // reading new rows without the response
		}
	}
	return resolveTarget(target, names)
}
