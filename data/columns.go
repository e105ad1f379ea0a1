package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Column kinds of a Coding.
const (
	Numeric     = "numeric"     // a column of numbers, used as read
	Categorical = "categorical" // a column of text: one 0/1 dummy per level but the reference
)

// Missing-value rules of CSVOptions.Missing and Coding.Missing.
const (
	MissingError = "error" // a missing value is an error naming its column and how many rows (the default)
	MissingDrop  = "drop"  // rows with a missing value in a used column are dropped, and counted per column
)

// MissingTokens are the cells read as a missing value in delimited text: the
// empty cell, NA, N/A, NaN, nan, NAN, null, NULL and Null (R's and pandas'
// defaults, less their rarer spellings). A Parquet null is missing too.
var MissingTokens = []string{"", "NA", "N/A", "NaN", "nan", "NAN", "null", "NULL", "Null"}

// ErrMissing is wrapped by the *ParseError for a missing value when the rule
// is MissingError, so that a caller can name its own option for dropping them.
var ErrMissing = errors.New("missing value")

// isMissing reports whether the cell s is one of MissingTokens.
func isMissing(s string) bool {
	switch s {
	case "", "NA", "N/A", "NaN", "nan", "NAN", "null", "NULL", "Null":
		return true
	}
	return false
}

// ColumnCoding is how one input column became features.
type ColumnCoding struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // Numeric or Categorical
	// Levels are a categorical column's levels in byte order (as
	// sort.Strings; R and patsy sort the same way in the C locale). Levels[0]
	// is the reference level: it has no dummy, and each other level ℓ has a
	// feature named "Name[ℓ]", 1 on the rows of that level and 0 elsewhere
	// (treatment coding, the default of R, brms and patsy).
	Levels []string `json:"levels,omitempty"`
}

// MissingCount is the number of rows with a missing value in one column.
type MissingCount struct {
	Column string `json:"column"`
	Rows   int    `json:"rows"`
}

// Coding records how the columns of a table became a Dataset's features and
// response, so that new rows (Coding in CSVOptions) are read the same way:
// the same features in the same order, the same dummies, the same labels.
//
// Rules (each one is printed by Describe and saved with a run):
//
//   - A column whose cells are all numbers (missing values aside) is numeric;
//     a column of text is categorical, coded against its first level in byte
//     order; a column listed in CSVOptions.Categorical is categorical whatever
//     its cells hold. A column mixing numbers and text is an error naming the
//     first cell of each kind.
//   - A text target of two levels is coded 0/1: a known pair (no/yes, n/y,
//     false/true, f/t, −/+, neg/pos, negative/positive, 0/1, in any case) maps
//     its negative word to 0; any other pair, and a target of three or more
//     text levels (class labels for softmax), is numbered 0, 1, … in byte
//     order. A numeric target is used as read.
//   - The ID column is never a feature; its values are kept (Dataset.IDs).
//     Dropped columns are not read.
//   - Missing values (MissingTokens) are an error, or with MissingDrop the
//     rows holding one in a feature or the target are dropped.
type Coding struct {
	Columns      []ColumnCoding `json:"columns"`                 // the feature columns of the input, in file order
	Target       string         `json:"target"`                  // the response column
	TargetLevels []string       `json:"target_levels,omitempty"` // a text target: class k is TargetLevels[k]
	TargetRule   string         `json:"target_rule,omitempty"`   // why this order ("yes/no pair", "byte order")
	ID           string         `json:"id,omitempty"`            // the ID column, if any
	Dropped      []string       `json:"dropped,omitempty"`       // columns not read
	Missing      string         `json:"missing"`                 // MissingError or MissingDrop
	MissingRows  []MissingCount `json:"missing_rows,omitempty"`  // per column, the rows with a missing value (MissingDrop)
	RowsDropped  int            `json:"rows_dropped,omitempty"`  // rows dropped for a missing value
}

// ReadSettings are how a data file was read, as the command's flags gave
// them: --na (comma-separated tokens), --sep and --decimal ("" when not
// given). A run records them so that new rows in the same format are read
// alike.
type ReadSettings struct {
	NA      string `json:"na,omitempty"`
	Sep     string `json:"sep,omitempty"`
	Decimal string `json:"decimal,omitempty"`
}

// Features returns the names of the features the coding makes, in the order
// of the columns of X: a numeric column's own name, a categorical column's
// "name[level]" for each level but the reference.
func (c *Coding) Features() []string {
	var out []string
	for _, col := range c.Columns {
		if col.Kind != Categorical {
			out = append(out, col.Name)
			continue
		}
		for _, l := range col.Levels[min(1, len(col.Levels)):] {
			out = append(out, DummyName(col.Name, l))
		}
	}
	return out
}

// DummyName is the feature name of level of a categorical column: "col[level]".
func DummyName(col, level string) string { return col + "[" + level + "]" }

// HasText reports whether the coding holds a categorical column or a text
// target: whether it says more than the column names do.
func (c *Coding) HasText() bool {
	if c == nil {
		return false
	}
	if len(c.TargetLevels) > 0 || c.ID != "" || len(c.Dropped) > 0 || c.RowsDropped > 0 {
		return true
	}
	for _, col := range c.Columns {
		if col.Kind == Categorical {
			return true
		}
	}
	return false
}

// Describe returns the coding's rules as lines for a run's output, each a
// rule and its reason, without a trailing newline.
func (c *Coding) Describe() []string {
	var out []string
	for _, col := range c.Columns {
		if col.Kind != Categorical {
			continue
		}
		switch len(col.Levels) {
		case 0, 1:
			out = append(out, fmt.Sprintf("column %q: categorical with one level %s: no feature (constant)", col.Name, strings.Join(quoteAll(col.Levels), "")))
		default:
			out = append(out, fmt.Sprintf("column %q: categorical, %d levels, treatment coding against reference %q (first in byte order): features %s",
				col.Name, len(col.Levels), col.Levels[0], strings.Join(dummies(col), ", ")))
		}
	}
	if len(c.TargetLevels) > 0 {
		var m []string
		for k, l := range c.TargetLevels {
			m = append(m, fmt.Sprintf("%q → %d", l, k))
		}
		out = append(out, fmt.Sprintf("target %q: text labels %s (%s)", c.Target, strings.Join(m, ", "), c.TargetRule))
	}
	if c.ID != "" {
		out = append(out, fmt.Sprintf("column %q: ID, not a feature (written beside each prediction)", c.ID))
	}
	if len(c.Dropped) > 0 {
		out = append(out, fmt.Sprintf("columns dropped as asked: %s", strings.Join(quoteAll(c.Dropped), ", ")))
	}
	if c.Missing == MissingDrop {
		if c.RowsDropped == 0 {
			out = append(out, "missing values: none (rows with one would have been dropped)")
		} else {
			var m []string
			for _, mc := range c.MissingRows {
				m = append(m, fmt.Sprintf("%q %d", mc.Column, mc.Rows))
			}
			rows := "rows"
			if c.RowsDropped == 1 {
				rows = "row"
			}
			out = append(out, fmt.Sprintf("missing values: %d %s dropped (rows with a missing value, by column: %s)", c.RowsDropped, rows, strings.Join(m, ", ")))
		}
	}
	return out
}

func dummies(col ColumnCoding) []string {
	var out []string
	for _, l := range col.Levels[1:] {
		out = append(out, DummyName(col.Name, l))
	}
	return out
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// column roles while reading a table.
const (
	roleFeature = iota
	roleTarget
	roleID
	roleDrop
	roleIgnore // a column the given Coding does not use
)

// colState is the state of one input column while a table is read.
type colState struct {
	name  string
	role  int
	index int // 1-based field number, for messages
	slot  int // a feature's position among the features

	cat    bool // categorical (text) column
	fixed  bool // kind fixed by a Coding or CSVOptions.Categorical: no switching
	closed bool // levels fixed by a Coding: another level is an error
	forced bool // listed in CSVOptions.Categorical
	codes  map[string]int
	levels []string // by code (first appearance), or a Coding's sorted levels

	firstNum     int    // line of the first number, 0 if none
	firstNumText string // its text
	missing      int    // cells missing
	missLine     int    // line of the first missing cell
	missTok      string
	textLine     int // line of the first text cell, 0 if none

	na      []string // CSVOptions.NA: more cells read as missing
	decimal bool     // CSVOptions.Decimal ',': a number's decimal comma read as a point
}

// isNA reports whether the cell f is missing: one of MissingTokens or of
// the column's own (CSVOptions.NA).
func (s *colState) isNA(f string) bool {
	return isMissing(f) || slices.Contains(s.na, f)
}

// cell converts the text f of this column's cell at line into a value: a
// number, a categorical code, or NaN for a missing value. msg is a
// ParseError message on failure.
func (s *colState) cell(f string, line int) (float64, string) {
	if len(s.na) > 0 && slices.Contains(s.na, f) { // before the number it may be (-999)
		s.missing++
		if s.missLine == 0 {
			s.missLine, s.missTok = line, f
		}
		return math.NaN(), ""
	}
	if !s.cat {
		num := f
		if s.decimal {
			num = strings.Replace(f, ",", ".", 1)
		}
		v, msg := parseValue(num)
		if msg == "" {
			if s.firstNum == 0 {
				s.firstNum, s.firstNumText = line, f
			}
			return v, ""
		}
		if s.isNA(f) {
			s.missing++
			if s.missLine == 0 {
				s.missLine, s.missTok = line, f
			}
			return math.NaN(), ""
		}
		if s.fixed || s.firstNum > 0 || strings.HasPrefix(msg, "Inf") || strings.HasSuffix(msg, "out of range for float64") {
			if strings.HasPrefix(msg, "Inf") || strings.HasSuffix(msg, "out of range for float64") {
				return 0, msg
			}
			if s.firstNum > 0 && !s.fixed {
				msg += fmt.Sprintf(": column %q holds numbers (line %d: %s); a text column holds no numbers", s.name, s.firstNum, quote(s.firstNumText))
				if n, comma := isCommaNumber(f); n && comma {
					msg += " (a number written with a decimal comma? the file is read with '.' as the decimal point)"
				}
			} else if s.fixed {
				msg += fmt.Sprintf(": column %q is numeric in the training data", s.name)
			}
			return 0, msg
		}
		s.cat = true
		s.codes = map[string]int{}
	}
	if s.isNA(f) {
		s.missing++
		if s.missLine == 0 {
			s.missLine, s.missTok = line, f
		}
		return math.NaN(), ""
	}
	if k, ok := s.codes[f]; ok {
		return float64(k), ""
	}
	if s.closed {
		if s.role == roleTarget {
			return 0, fmt.Sprintf("label %s of the target %q is not one of the training data's labels (%s)", quote(f), s.name, listNames(s.levels))
		}
		return 0, fmt.Sprintf("level %s of column %q is not one of the training data's levels (%s; reference %q)", quote(f), s.name, listNames(s.levels), s.levels[0])
	}
	if !s.fixed {
		if _, msg := parseValue(f); msg == "" {
			msg := fmt.Sprintf("%s is a number, but column %q holds text (as %q on line %d is); a column is numbers or text", quote(f), s.name, s.levels[0], s.textLine)
			if n, comma := isCommaNumber(s.levels[0]); n && comma {
				msg += fmt.Sprintf(" (%q is a number written with a decimal comma: the file is read with '.' as the decimal point)", s.levels[0])
			}
			return 0, msg
		}
	}
	k := len(s.levels)
	s.codes[f] = k
	s.levels = append(s.levels, f)
	if k == 0 {
		s.textLine = line
	}
	return float64(k), ""
}

// fixLevels makes s a categorical column with the given levels (from a
// Coding): code k is levels[k].
func (s *colState) fixLevels(levels []string) {
	s.cat, s.fixed, s.closed = true, true, true
	s.levels = levels
	s.codes = make(map[string]int, len(levels))
	for k, l := range levels {
		s.codes[l] = k
	}
}

// targetPairs are the two-level targets with a known negative word (coded 0).
var targetPairs = [][2]string{
	{"no", "yes"}, {"n", "y"}, {"false", "true"}, {"f", "t"}, {"-", "+"},
	{"neg", "pos"}, {"negative", "positive"}, {"0", "1"},
}

// targetOrder returns the order of a text target's levels (class k is
// order[k]) and the rule that chose it.
func targetOrder(levels []string) ([]string, string) {
	sorted := slices.Clone(levels)
	slices.Sort(sorted)
	if len(sorted) == 2 {
		a, b := strings.ToLower(sorted[0]), strings.ToLower(sorted[1])
		for _, p := range targetPairs {
			if a == p[0] && b == p[1] {
				return sorted, p[0] + "/" + p[1] + " pair: " + p[0] + " is 0"
			}
			if a == p[1] && b == p[0] {
				return []string{sorted[1], sorted[0]}, p[0] + "/" + p[1] + " pair: " + p[0] + " is 0"
			}
		}
	}
	return sorted, "byte order: the first label is 0"
}

// maxDistinctLevels: a text column with more levels than this and than half
// the rows is taken for an ID column mistaken for a feature, and refused; so
// is a column of dates with more levels than this (a date is a time, not one
// of a few batches).
const maxDistinctLevels = 20

// maxTextLevels and minRowsPerLevel: a text column with more levels than
// maxTextLevels and fewer than minRowsPerLevel rows a level on average (more
// levels than 5% of the rows) is refused as a feature. Each level but one
// becomes a dummy whose coefficient is learnt from that level's rows alone:
// below about 20 rows a level the coefficients are the prior's more than the
// data's, and the model's dimension (and its sampler's cost) grows with every
// row; such a column is an identifier, a date or free text read as a
// category far more often than a category. Up to 50 levels (the US states)
// pass whatever the rows, and any column listed as categorical passes.
const (
	maxTextLevels   = 50
	minRowsPerLevel = 20
)

// ErrTextColumn is wrapped (through a *TextColumnError) by the *ParseError
// for a text feature column that is refused as a category.
var ErrTextColumn = errors.New("a text column refused as a category")

// TextColumnError says why a text feature column was not coded as a
// category: too many levels for its rows, or texts that are dates or
// numbers with a decimal comma. A caller names its own options (an ID
// column, dropping the column, forcing it categorical) from Column.
type TextColumnError struct {
	Column string
	Levels int    // different texts in the rows read
	Rows   int    // the rows read (after any dropped for missing values)
	What   string // "dates", "decimal-comma numbers" or "" (texts)
	msg    string
}

func (e *TextColumnError) Error() string { return e.msg }

// Unwrap returns ErrTextColumn.
func (e *TextColumnError) Unwrap() error { return ErrTextColumn }

// dateLayouts are the layouts a text column's levels are tried against to
// recognise dates (ISO 8601 and the common day-first and month-first forms,
// with or without a time).
var dateLayouts = []string{
	"2006-1-2", "2006/1/2", "2006.1.2", "1/2/2006", "2.1.2006", "2-1-2006", "1/2/06", "2.1.06",
	"2006-1-2 15:04", "2006-1-2 15:04:05", "2006-1-2T15:04", "2006-1-2T15:04:05", time.RFC3339, "2006-01-02T15:04:05.999999999",
	"1/2/2006 15:04", "1/2/2006 15:04:05", "2.1.2006 15:04", "2.1.2006 15:04:05",
	"Jan 2 2006", "Jan 2, 2006", "2 Jan 2006", "January 2 2006", "January 2, 2006", "2 January 2006", "2006-01", "Jan 2006",
}

// isDate reports whether s reads as a date by one of dateLayouts.
func isDate(s string) bool {
	if len(s) < 6 || len(s) > 40 || !strings.ContainsAny(s, "0123456789") {
		return false
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

// isCommaNumber reports whether s is a number written with a decimal comma
// ("12,8", "-0,5"), or an integer ("12", among such numbers).
func isCommaNumber(s string) (number, comma bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	whole, frac, comma := strings.Cut(s, ",")
	digits := func(t string) bool {
		if t == "" {
			return false
		}
		for _, r := range t {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	return digits(whole) && (!comma || digits(frac)), comma
}

// checkTextColumn refuses a text feature column by the rules of
// maxTextLevels, maxDistinctLevels and of dates and decimal commas; nil if it
// is coded as a category.
func checkTextColumn(name string, levels []string, rows int) *TextColumnError {
	e := &TextColumnError{Column: name, Levels: len(levels), Rows: rows}
	examples := quote(levels[0])
	if len(levels) > 1 {
		examples += ", " + quote(levels[1])
	}
	commas, numbers, dates := 0, 0, 0
	for _, l := range levels {
		if n, c := isCommaNumber(l); n {
			numbers++
			if c {
				commas++
			}
		}
		if isDate(l) {
			dates++
		}
	}
	switch n := len(levels); {
	case commas > 0 && numbers == n:
		e.What = "decimal-comma numbers"
		e.msg = fmt.Sprintf("column %q holds numbers written with a decimal comma (%d different, as %s), read as text: as a category each value would be a feature of its own; write the numbers with a decimal point (the file is read with '.' as the decimal point and ',' between cells)",
			name, n, examples)
	case dates == n && n > maxDistinctLevels:
		e.What = "dates"
		e.msg = fmt.Sprintf("column %q holds dates (%d different in %d rows, as %s): as a category each date would be a feature of its own (%d dummies); a date is read as text, not as a number: drop it, or write what it means as numbers (a day count, the month) in columns of their own",
			name, n, rows, examples, n-1)
	case n > maxDistinctLevels && n > rows/2:
		e.msg = fmt.Sprintf("column %q holds %d different texts in %d rows (as %s): an ID rather than a category", name, n, rows, examples)
	case n > maxTextLevels && n*minRowsPerLevel > rows:
		e.msg = fmt.Sprintf("column %q holds %d different texts in %d rows (as %s), fewer than %d rows a level: as a category it would be %d features, each learnt from a handful of rows (an ID, a date or free text read as text?)",
			name, n, rows, examples, minRowsPerLevel, n-1)
	default:
		return nil
	}
	return e
}

// table is a table read by ParseCSV or ReadParquet before its coding:
// features in file order (numbers, categorical codes, NaN for missing), the
// target, and the ID column.
type table struct {
	name   string
	feats  []*colState // feature columns, file order
	target *colState   // nil when the target is absent
	x      []float64   // n×len(feats), row-major
	y      []float64   // n, or nil when the target is absent
	ids    []string    // n, or nil
	n      int

	coding  *Coding // given (reading new rows), or nil
	id      string
	dropped []string
	ignored []string
	missing string
	rowWord string // "line" (text) or "row" (Parquet), for messages
	// maxBytes, if positive, bounds the coded features (8 bytes a cell,
	// after the categorical columns become dummies), as CSVOptions.MaxBytes.
	maxBytes int64
}

// finish checks missing values, fixes the levels and expands the categorical
// columns into dummies, returning the Dataset with its Coding.
func (t *table) finish() (*Dataset, error) {
	perr := func(line, col int, err error, format string, args ...any) error {
		return &ParseError{File: t.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...), Err: err}
	}
	used := slices.Clone(t.feats)
	if t.target != nil {
		used = append(used, t.target)
	}
	drop, keep, counts, err := t.missingRows(used)
	if err != nil {
		return nil, err
	}
	// Levels present in the kept rows, in byte order; the target's order.
	q := len(t.feats)
	remap := make([][]int, len(used)) // old code → new code, per used column
	coding := &Coding{Target: "", ID: t.id, Dropped: t.dropped, Missing: t.missing}
	if coding.Missing == "" {
		coding.Missing = MissingError
	}
	if t.target != nil {
		coding.Target = t.target.name
	}
	for k, c := range used {
		if !c.cat {
			continue
		}
		var levels []string
		if c.closed {
			levels = c.levels // a Coding's: already in order
		} else {
			present := make([]bool, len(c.levels))
			for i := range t.n {
				if drop != nil && drop[i] {
					continue
				}
				var v float64
				if k < q {
					v = t.x[i*q+k]
				} else {
					v = t.y[i]
				}
				if !math.IsNaN(v) {
					present[int(v)] = true
				}
			}
			for code, l := range c.levels {
				if present[code] {
					levels = append(levels, l)
				}
			}
			if k < q {
				slices.Sort(levels)
			} else {
				var rule string
				levels, rule = targetOrder(levels)
				coding.TargetRule = rule
			}
		}
		if k < q && !c.forced && !c.closed && len(levels) > 0 {
			if e := checkTextColumn(c.name, levels, keep); e != nil {
				return nil, perr(0, c.index, e, "%s; name it as the ID column or drop it (or list it as categorical to code it anyway)", e.msg)
			}
		}
		pos := make(map[string]int, len(levels))
		for i, l := range levels {
			pos[l] = i
		}
		remap[k] = make([]int, len(c.levels))
		for code, l := range c.levels {
			if p, ok := pos[l]; ok {
				remap[k][code] = p
			} else {
				remap[k][code] = -1
			}
		}
		c.levels = levels
		if k == q {
			coding.TargetLevels = levels
			if t.coding != nil {
				coding.TargetRule = t.coding.TargetRule
			}
		}
	}
	// The features: numeric columns as read, a categorical one as dummies.
	p := 0
	for _, c := range t.feats {
		kind := Numeric
		if c.cat {
			kind = Categorical
			p += max(0, len(c.levels)-1)
		} else {
			p++
		}
		coding.Columns = append(coding.Columns, ColumnCoding{Name: c.name, Kind: kind, Levels: c.levels})
	}
	if t.coding != nil {
		coding.TargetRule = t.coding.TargetRule
		coding.MissingRows, coding.RowsDropped = nil, 0
	}
	if drop != nil {
		coding.MissingRows, coding.RowsDropped = counts, t.n-keep
	}
	ds := &Dataset{Names: coding.Features(), Target: coding.Target, Source: t.name, Coding: coding, Ignored: t.ignored}
	if p == 0 {
		return nil, perr(0, 0, nil, "no features left: every feature column is constant or dropped")
	}
	if need := 8 * int64(keep) * int64(p+1); t.maxBytes > 0 && need > t.maxBytes {
		return nil, perr(0, 0, ErrTooLarge, "%d rows × %d features (%s) would hold %d MiB of numbers in memory, more than the bound of %d MiB; --drop or --id the widest categorical column",
			keep, p, widest(t.feats), need>>20, t.maxBytes>>20)
	}
	x := make([]float64, 0, keep*p)
	if t.y != nil {
		ds.Y = make([]float64, 0, keep)
	}
	if t.ids != nil {
		ds.IDs = make([]string, 0, keep)
	}
	for i := range t.n {
		if drop != nil && drop[i] {
			continue
		}
		row := t.x[i*q : (i+1)*q]
		for k, c := range t.feats {
			if !c.cat {
				x = append(x, row[k])
				continue
			}
			code := remap[k][int(row[k])]
			for l := 1; l < len(c.levels); l++ {
				if code == l {
					x = append(x, 1)
				} else {
					x = append(x, 0)
				}
			}
		}
		if t.y != nil {
			v := t.y[i]
			if t.target.cat {
				v = float64(remap[q][int(v)])
			}
			ds.Y = append(ds.Y, v)
		}
		if t.ids != nil {
			ds.IDs = append(ds.IDs, t.ids[i])
		}
	}
	ds.X = mat.NewDense(keep, p, x)
	return ds, nil
}

// widest names the categorical column of feats with the most levels and
// its dummy count, or says that every column is numeric.
func widest(feats []*colState) string {
	var w *colState
	for _, c := range feats {
		if c.cat && (w == nil || len(c.levels) > len(w.levels)) {
			w = c
		}
	}
	if w == nil {
		return "no categorical column"
	}
	return fmt.Sprintf("categorical column %q alone is %d dummies", w.name, max(0, len(w.levels)-1))
}

// missingRows checks the missing values of the used columns: an error
// naming the first (MissingError), or the rows to drop (nil: none), the rows
// kept and the count in each column (MissingDrop).
func (t *table) missingRows(used []*colState) (drop []bool, keep int, counts []MissingCount, err error) {
	perr := func(line, col int, err error, format string, args ...any) error {
		return &ParseError{File: t.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...), Err: err}
	}
	first := (*colState)(nil)
	for _, c := range used {
		if c.missing > 0 {
			counts = append(counts, MissingCount{Column: c.name, Rows: c.missing})
			if first == nil || c.missLine < first.missLine || (c.missLine == first.missLine && c.index < first.index) {
				first = c
			}
		}
	}
	keep = t.n
	if first != nil {
		if t.missing != MissingDrop {
			also := ""
			for _, mc := range counts {
				if mc.Column != first.name {
					also += fmt.Sprintf("; column %q: %s", mc.Column, rowsHave(mc.Rows))
				}
			}
			tok := "empty cell"
			if first.missTok != "" {
				tok = quote(first.missTok)
			}
			line, col := first.missLine, first.index
			where := ""
			if t.rowWord == "row" {
				where = fmt.Sprintf("row %d, ", first.missLine)
				line, col = 0, 0
			}
			return nil, 0, nil, perr(line, col, ErrMissing, "%smissing value (%s) in column %q: %s%s; missing values are not imputed: drop those rows (or the column)",
				where, tok, first.name, rowsHave(first.missing), also)
		}
		drop = make([]bool, t.n)
		q := len(t.feats)
		for i := range t.n {
			row := t.x[i*q : (i+1)*q]
			for _, v := range row {
				if math.IsNaN(v) {
					drop[i] = true
				}
			}
			if t.y != nil && math.IsNaN(t.y[i]) {
				drop[i] = true
			}
			if drop[i] {
				keep--
			}
		}
		if keep == 0 {
			return nil, 0, nil, perr(0, 0, nil, "every row has a missing value (%s)", missingList(counts))
		}
	}
	return drop, keep, counts, nil
}

func missingList(counts []MissingCount) string {
	var m []string
	for _, mc := range counts {
		m = append(m, fmt.Sprintf("column %q: %d", mc.Column, mc.Rows))
	}
	return strings.Join(m, ", ")
}

// resolveColumn returns the index in names of col, a name or a 1-based
// number (negative from the end), as the target is matched; what names the
// option in messages.
func resolveColumn(col string, names []string, what string) (int, string) {
	j, msg := resolveTarget(col, names)
	if msg != "" {
		msg = strings.Replace(msg, "target column", what+" column", 1)
	}
	return j, msg
}

// hasTextOrMissing reports whether a column of t holds text or a missing value.
func (t *table) hasTextOrMissing() bool {
	if t.target != nil && (t.target.cat || t.target.missing > 0) {
		return true
	}
	for _, c := range t.feats {
		if c.cat || c.missing > 0 {
			return true
		}
	}
	return false
}

// featureNames returns the names of the feature columns.
func (t *table) featureNames() []string {
	out := make([]string, len(t.feats))
	for k, c := range t.feats {
		out[k] = c.name
	}
	return out
}

// numericCoding returns the Coding of a table of numbers.
func (t *table) numericCoding() *Coding {
	c := &Coding{Missing: MissingError, ID: t.id, Dropped: t.dropped}
	if t.missing == MissingDrop {
		c.Missing = MissingDrop
	}
	if t.target != nil {
		c.Target = t.target.name
	}
	for _, f := range t.feats {
		c.Columns = append(c.Columns, ColumnCoding{Name: f.name, Kind: Numeric})
	}
	return c
}

func rowsHave(n int) string {
	if n == 1 {
		return "1 row has one"
	}
	return fmt.Sprintf("%d rows have one", n)
}
