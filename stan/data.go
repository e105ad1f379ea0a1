package stan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Data is a data set in CmdStan's JSON format: one object whose members
// are the data block's variables — numbers, or arrays nested as the
// variable's dimensions (a matrix as an array of rows), "Inf", "-Inf" and
// "NaN" as strings.
type Data struct {
	File string
	vars map[string]any // json.Number, string, or *numArray
}

// numArray is a JSON array of numbers, nested to any depth and rectangular,
// stored flat: 8 bytes a value, however large the file.
type numArray struct {
	dims   []int     // the sizes of the nesting, outermost first
	f      []float64 // the values, row-major
	nonInt int       // the position of the first value that is not an integer literal, −1 if none
	leaf   int       // the level of the numbers, −1 until one is read
	text   string    // that value as written
}

// ParseData decodes the JSON data b; file names it in errors.
func ParseData(file string, b []byte) (*Data, error) { return ReadData(file, bytes.NewReader(b)) }

// ReadData decodes JSON data from r as it reads it, keeping 8 bytes for
// each number of an array (a million rows of six columns take 48 MB, not
// the file's size or encoding/json's tree); file names it in errors, with
// the line and column of what is not valid.
func ReadData(file string, r io.Reader) (*Data, error) {
	p := &jsonParser{r: bufio.NewReaderSize(r, 1<<16), line: 1}
	v, err := p.top()
	if p.ioErr != nil {
		return nil, &Error{File: file, Msg: p.ioErr.Error()}
	}
	if err != nil {
		return nil, &Error{File: file, Msg: "not valid JSON: " + err.Error()}
	}
	if v == nil {
		return nil, &Error{File: file, Msg: "expected a JSON object of the data block's variables"}
	}
	return &Data{File: file, vars: v}, nil
}

// jsonParser reads CmdStan's JSON: an object of numbers, strings and
// rectangular arrays of numbers.
type jsonParser struct {
	r         *bufio.Reader
	line, col int
	tok       []byte
	ioErr     error // a failure to read (not the end of the input)
}

const jsonMaxDepth = 200

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d, column %d: %s", p.line, p.col, fmt.Sprintf(format, args...))
}

func (p *jsonParser) read() (byte, bool) {
	c, err := p.r.ReadByte()
	if err != nil {
		if err != io.EOF && p.ioErr == nil {
			p.ioErr = err
		}
		return 0, false
	}
	if c == '\n' {
		p.line, p.col = p.line+1, 0
	} else {
		p.col++
	}
	return c, true
}

func (p *jsonParser) unread() {
	p.r.UnreadByte()
	p.col--
}

// next returns the next byte that is not white space.
func (p *jsonParser) next() (byte, bool) {
	for {
		c, ok := p.read()
		if !ok {
			return 0, false
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, true
	}
}

// top parses the whole input: an object, nil if the value is not one.
func (p *jsonParser) top() (map[string]any, error) {
	c, ok := p.next()
	if !ok {
		return nil, p.errorf("unexpected end of input")
	}
	if c != '{' {
		p.unread()
		if _, err := p.value(0); err != nil {
			return nil, err
		}
		return nil, nil
	}
	m := map[string]any{}
	c, ok = p.next()
	if ok && c == '}' {
		return m, p.end()
	}
	for {
		if !ok || c != '"' {
			return nil, p.errorf("expected a member's name in quotes")
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		if c, ok = p.next(); !ok || c != ':' {
			return nil, p.errorf("expected ':' after %q", name)
		}
		v, err := p.value(0)
		if err != nil {
			return nil, err
		}
		m[name] = v
		c, ok = p.next()
		switch {
		case ok && c == '}':
			return m, p.end()
		case ok && c == ',':
			c, ok = p.next()
		default:
			return nil, p.errorf("expected ',' or '}' after %q's value", name)
		}
	}
}

func (p *jsonParser) end() error {
	if _, ok := p.next(); ok {
		return p.errorf("more after the data's object")
	}
	return nil
}

// str reads a string after its opening quote.
func (p *jsonParser) str() (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for {
		c, ok := p.read()
		if !ok {
			return "", p.errorf("unterminated string")
		}
		b.WriteByte(c)
		if c == '\\' {
			e, ok := p.read()
			if !ok {
				return "", p.errorf("unterminated string")
			}
			b.WriteByte(e)
			continue
		}
		if c == '"' {
			break
		}
	}
	var s string
	if err := json.Unmarshal([]byte(b.String()), &s); err != nil {
		return "", p.errorf("bad string: %v", err)
	}
	return s, nil
}

// number reads a number's token, the first byte c already read.
func (p *jsonParser) number(c byte) []byte {
	p.tok = append(p.tok[:0], c)
	for {
		c, ok := p.read()
		if !ok {
			return p.tok
		}
		if c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			p.tok = append(p.tok, c)
			continue
		}
		p.unread()
		return p.tok
	}
}

// value parses a value: a json.Number, a string, or a *numArray. Objects,
// booleans and null are read as what describe can name.
func (p *jsonParser) value(depth int) (any, error) {
	c, ok := p.next()
	if !ok {
		return nil, p.errorf("unexpected end of input")
	}
	switch {
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		tok := p.number(c)
		if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
			return nil, p.errorf("bad number %s", tok)
		}
		return json.Number(tok), nil
	case c == '[':
		a := &numArray{nonInt: -1, leaf: -1}
		if err := p.array(a, 0, depth+1); err != nil {
			return nil, err
		}
		return a, nil
	case c == '{':
		return nil, p.errorf("an object inside the data's object (expected a number or an array)")
	}
	p.unread()
	for _, w := range []string{"true", "false", "null"} {
		if b, _ := p.r.Peek(len(w)); string(b) == w {
			p.r.Discard(len(w))
			p.col += len(w)
			if w == "null" {
				return nil, nil
			}
			return w == "true", nil
		}
	}
	return nil, p.errorf("unexpected character %q", c)
}

// array reads an array after its '[' at nesting level lvl into a, whose
// dims it sets at the first array of each level and checks at the others.
func (p *jsonParser) array(a *numArray, lvl, depth int) error {
	if depth > jsonMaxDepth {
		return p.errorf("arrays nested deeper than %d", jsonMaxDepth)
	}
	first := len(a.dims) == lvl
	if first {
		a.dims = append(a.dims, 0)
	}
	n := 0
	c, ok := p.next()
	if ok && c == ']' {
		return p.size(a, lvl, first, 0)
	}
	for {
		if !ok {
			return p.errorf("unexpected end of input in an array")
		}
		switch {
		case c == '[':
			if a.leaf >= 0 && a.leaf <= lvl {
				return p.errorf("an array where a number was expected (arrays of different depths)")
			}
			if err := p.array(a, lvl+1, depth+1); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9' || c == '"':
			if a.leaf < 0 && len(a.dims) == lvl+1 {
				a.leaf = lvl
			}
			if a.leaf != lvl {
				return p.errorf("a number where an array was expected (arrays of different depths)")
			}
			if c == '"' {
				s, err := p.str()
				if err != nil {
					return err
				}
				x, ok := special(s)
				if !ok {
					return p.errorf("expected a number, found the string %q", s)
				}
				p.push(a, x, s, false)
			} else {
				tok := p.number(c)
				x, err := strconv.ParseFloat(string(tok), 64)
				if err != nil {
					return p.errorf("bad number %s", tok)
				}
				isInt := bytes.IndexAny(tok, ".eE") < 0 && math.Abs(x) <= 1<<53
				p.push(a, x, "", isInt)
			}
		default:
			return p.errorf("expected a number or an array, found %q", c)
		}
		n++
		c, ok = p.next()
		switch {
		case ok && c == ']':
			return p.size(a, lvl, first, n)
		case ok && c == ',':
			c, ok = p.next()
		default:
			return p.errorf("expected ',' or ']' in an array")
		}
	}
}

// size records or checks the length n of an array at level lvl.
func (p *jsonParser) size(a *numArray, lvl int, first bool, n int) error {
	if first {
		a.dims[lvl] = n
		return nil
	}
	if a.dims[lvl] != n {
		return p.errorf("an array of %d values where its neighbours have %d (arrays must be rectangular)", n, a.dims[lvl])
	}
	return nil
}

func (p *jsonParser) push(a *numArray, x float64, s string, isInt bool) {
	if !isInt && a.nonInt < 0 {
		a.nonInt = len(a.f)
		a.text = s
		if s == "" {
			a.text = string(p.tok)
		}
	}
	a.f = append(a.f, x)
}

// special reads Stan's strings for infinities and NaN.
func special(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// read returns the values of the variable name with dimensions dims
// (row-major), as ints or as reals.
func (d *Data) read(name string, dims []int, isInt bool) (ints []int, reals []float64, err error) {
	file := "data"
	if d != nil {
		file = d.File
	}
	fail := func(format string, args ...any) error {
		return &Error{File: file, Msg: name + ": " + fmt.Sprintf(format, args...)}
	}
	var v any
	ok := false
	if d != nil {
		v, ok = d.vars[name]
	}
	n := 1
	for _, k := range dims {
		n *= k
	}
	if !ok {
		if n == 0 {
			return []int{}, []float64{}, nil
		}
		return nil, nil, fail("missing from the data")
	}
	a, isArr := v.(*numArray)
	if !isArr {
		if len(dims) == 1 && dims[0] == 1 { // a scalar for an array of one
			dims = nil
		}
		if len(dims) > 0 {
			return nil, nil, fail("expected an array of %d values, found %s", dims[0], describe(v))
		}
		var x float64
		switch t := v.(type) {
		case json.Number:
			if isInt {
				i, err := strconv.Atoi(t.String())
				if err != nil {
					return nil, nil, fail("expected an integer, found %s", t.String())
				}
				return []int{i}, nil, nil
			}
			if x, err = t.Float64(); err != nil {
				return nil, nil, fail("bad number %s", t.String())
			}
		case string:
			if x, ok = special(t); !ok {
				return nil, nil, fail("expected a number, found the string %q", t)
			}
			if isInt {
				return nil, nil, fail("expected an integer, found %q", t)
			}
		default:
			return nil, nil, fail("expected a number, found %s", describe(v))
		}
		return nil, []float64{x}, nil
	}
	// path is the JSON position of the flat index k, [i][j]…, 1-based
	path := func(k, depth int) string {
		var b strings.Builder
		idx := make([]int, len(a.dims))
		for j := len(a.dims) - 1; j >= 0; j-- {
			if a.dims[j] > 0 {
				idx[j] = k % a.dims[j]
				k /= a.dims[j]
			}
		}
		for j := 0; j < depth && j < len(idx); j++ {
			b.WriteString("[" + strconv.Itoa(idx[j]+1) + "]")
		}
		return b.String()
	}
	if len(dims) == 0 {
		return nil, nil, fail("expected a number, found %s", describe(v))
	}
	for depth := range dims {
		at := strings.Repeat("[1]", depth)
		switch {
		case depth >= len(a.dims):
			if n == 0 {
				break
			}
			x := a.f[0]
			return nil, nil, fail("expected an array of %d values%s, found the number %v", dims[depth], at, x)
		case a.dims[depth] != dims[depth]:
			return nil, nil, fail("expected %d values%s (the declared size), found %d", dims[depth], at, a.dims[depth])
		}
		if n == 0 {
			break
		}
	}
	if len(a.dims) > len(dims) && n > 0 {
		return nil, nil, fail("expected a number%s, found an array of %d values", strings.Repeat("[1]", len(dims)), a.dims[len(dims)])
	}
	if isInt {
		if a.nonInt >= 0 {
			return nil, nil, fail("expected an integer%s, found %s", path(a.nonInt, len(a.dims)), a.text)
		}
		ints = make([]int, len(a.f))
		for k, x := range a.f {
			ints[k] = int(x)
		}
		return ints, nil, nil
	}
	if a.f == nil {
		return nil, []float64{}, nil
	}
	return nil, a.f, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case *numArray:
		if len(v.dims) == 0 {
			return "an array"
		}
		return fmt.Sprintf("an array of %d values", v.dims[0])
	case json.Number:
		return "the number " + v.String()
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}
