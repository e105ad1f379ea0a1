package data

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// maxDense is the largest number of elements ReadLIBSVM will allocate for a
// dense feature matrix (2 GiB of float64). Tests may lower it.
var maxDense = 1 << 28

// ReadLIBSVM reads a file in LIBSVM (SVMlight) sparse format; see
// ParseLIBSVM. Files compressed with gzip are decompressed transparently.
// All errors, including failure to open the file, are of type *ParseError.
func ReadLIBSVM(path string, dim int) (*Dataset, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLIBSVM(f, path, dim)
}

// ParseLIBSVM reads data in LIBSVM sparse format from r into a dense
// Dataset. name is used in error messages and as the Source of the Dataset.
//
// Each non-blank line is
//
//	label index:value index:value ...
//
// separated by spaces or tabs, with 1-based, strictly increasing feature
// indices. Features that are not listed are zero. Text from a '#' to the end
// of the line is a comment. Labels are kept as they are (for example ±1);
// they and the values must be finite numbers.
//
// If dim is positive the data set has dim features and a larger index is an
// error; if dim is 0 the number of features is the largest index seen. The
// features are named V1, V2, ..., Vd and the target "label". Gzip-compressed
// input is decompressed transparently. Errors are of type *ParseError; the
// column of an error is the 1-based number of the space-separated item on the
// line, the label being item 1.
func ParseLIBSVM(r io.Reader, name string, dim int) (*Dataset, error) {
	return parseLIBSVM(r, name, dim, 0)
}

// parseLIBSVM is ParseLIBSVM holding at most maxBytes (if positive) in
// memory: the entries as read, and the dense matrix made of them.
func parseLIBSVM(r io.Reader, name string, dim int, maxBytes int64) (*Dataset, error) {
	perr := func(line, col int, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
	}
	if dim < 0 {
		return nil, perr(0, 0, "invalid dimension %d: must be positive, or 0 to use the largest index", dim)
	}
	lr, err := newLineReader(r, name)
	if err != nil {
		return nil, err
	}
	var (
		y      []float64
		start  = []int{0} // row i has entries start[i]:start[i+1]
		idx    []int
		val    []float64
		maxIdx int
	)
	for {
		text, line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if c := strings.IndexByte(text, '#'); c >= 0 {
			text = text[:c]
		}
		items := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(items) == 0 {
			continue
		}
		label, msg := parseValue(items[0])
		if msg != "" {
			return nil, perr(line, 1, "label: %s", msg)
		}
		prev := 0
		for j, it := range items[1:] {
			col := j + 2
			colon := strings.IndexByte(it, ':')
			if colon < 0 {
				return nil, perr(line, col, "expected index:value, got %s", quoteValue(it))
			}
			k, err := strconv.Atoi(it[:colon])
			if err != nil {
				return nil, perr(line, col, "cannot parse index %s", quoteValue(it[:colon]))
			}
			switch {
			case k < 1:
				return nil, perr(line, col, "index %d is not positive: indices are 1-based", k)
			case k <= prev:
				return nil, perr(line, col, "index %d follows index %d: indices must be strictly increasing", k, prev)
			case dim > 0 && k > dim:
				return nil, perr(line, col, "index %d exceeds the dimension %d", k, dim)
			}
			v, msg := parseValue(it[colon+1:])
			if msg != "" {
				return nil, perr(line, col, "%s", msg)
			}
			prev = k
			maxIdx = max(maxIdx, k)
			idx = append(idx, k-1)
			val = append(val, v)
		}
		y = append(y, label)
		start = append(start, len(idx))
		if maxBytes > 0 && 16*int64(len(idx)+len(y)) > maxBytes {
			return nil, tooLarge(name, line, maxBytes)
		}
	}
	n := len(y)
	if n == 0 {
		return nil, perr(0, 0, "empty file: expected a data row")
	}
	d := dim
	if d == 0 {
		d = maxIdx
	}
	if d == 0 {
		return nil, perr(0, 0, "no features: no line has an index:value item")
	}
	if d > maxDense/n {
		return nil, perr(0, 0, "%d rows × %d features is too large for a dense matrix", n, d)
	}
	if maxBytes > 0 && 8*int64(n)*int64(d) > maxBytes {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("%d rows × %d features would hold %d MiB of numbers in memory, more than the bound of %d MiB", n, d, 8*int64(n)*int64(d)>>20, maxBytes>>20), Err: ErrTooLarge}
	}
	raw := make([]float64, n*d)
	for i := range n {
		row := raw[i*d : (i+1)*d]
		for e := start[i]; e < start[i+1]; e++ {
			row[idx[e]] = val[e]
		}
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "V" + strconv.Itoa(j+1)
	}
	return &Dataset{
		X:      mat.NewDense(n, d, raw),
		Y:      y,
		Names:  names,
		Target: "label",
		Source: name,
	}, nil
}
