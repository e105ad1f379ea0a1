package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// StanData holds the variables of a data file in the JSON format of CmdStan
// and posteriordb: one object whose members are numbers or (nested,
// rectangular) arrays of numbers, arrays stored row-major (the last index
// fastest, as CmdStan's JSON does for matrices and arrays). Integers stay
// distinguishable from reals, and the strings "inf", "-inf", "infinity" and
// "nan" (any case, optional sign) stand for the IEEE values, as CmdStan
// accepts them.
type StanData struct {
	Source string
	vars   map[string]*StanVar
	order  []string
}

// StanVar is one variable of a StanData: its dimensions (nil for a scalar),
// its values row-major, and whether every value was written as an integer.
type StanVar struct {
	Name   string
	Dims   []int
	Values []float64
	IsInt  bool
}

// ReadStanJSONFile reads a Stan JSON data file.
func ReadStanJSONFile(path string) (*StanData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadStanJSON(f, path)
}

// ReadStanJSON reads Stan JSON data from r; source names it in errors.
// Errors name the variable and, for a bad element, its 1-based index.
func ReadStanJSON(r io.Reader, source string) (*StanData, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		var se *json.SyntaxError
		if ok := asSyntax(err, &se); ok {
			line, col := lineCol(raw, se.Offset-1) // Offset is just past the bad byte
			return nil, fmt.Errorf("%s:%d:%d: %v: expected a JSON object of numbers and arrays", source, line, col, err)
		}
		return nil, fmt.Errorf("%s: %v: expected a JSON object of numbers and arrays", source, err)
	}
	d := &StanData{Source: source, vars: map[string]*StanVar{}}
	for name := range top {
		d.order = append(d.order, name)
	}
	sort.Strings(d.order)
	for _, name := range d.order {
		v := &StanVar{Name: name, IsInt: true}
		dims, err := shape(top[name])
		if err != nil {
			return nil, fmt.Errorf("%s: variable %q: %v", source, name, err)
		}
		v.Dims = dims
		if err := flatten(top[name], v, name); err != nil {
			return nil, fmt.Errorf("%s: variable %q: %v", source, name, err)
		}
		d.vars[name] = v
	}
	return d, nil
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}

// lineCol returns the 1-based line and column of byte offset off.
func lineCol(b []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < off && i < int64(len(b)); i++ {
		if b[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// shape returns the dimensions of a nested array (nil for a scalar),
// checking that it is rectangular.
func shape(x any) ([]int, error) {
	a, ok := x.([]any)
	if !ok {
		return nil, nil
	}
	if len(a) == 0 {
		return []int{0}, nil
	}
	inner, err := shape(a[0])
	if err != nil {
		return nil, err
	}
	for i, e := range a[1:] {
		s, err := shape(e)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(s, inner) {
			return nil, fmt.Errorf("element %d has dimensions %v, element 1 has %v: expected a rectangular array", i+2, s, inner)
		}
	}
	return append([]int{len(a)}, inner...), nil
}

// flatten appends the values of x, row-major, to v.Values.
func flatten(x any, v *StanVar, path string) error {
	switch e := x.(type) {
	case []any:
		for i, el := range e {
			if err := flatten(el, v, path+"["+strconv.Itoa(i+1)+"]"); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		s := e.String()
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%s = %s: expected a number", path, s)
		}
		if strings.ContainsAny(s, ".eE") {
			v.IsInt = false
		}
		v.Values = append(v.Values, f)
		return nil
	case string:
		f, ok := special(e)
		if !ok {
			return fmt.Errorf("%s = %q: expected a number (or \"inf\", \"-inf\", \"nan\")", path, e)
		}
		v.IsInt = false
		v.Values = append(v.Values, f)
		return nil
	}
	return fmt.Errorf("%s = %v: expected a number or an array of numbers", path, x)
}

func special(s string) (float64, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	sign := 1.0
	if strings.HasPrefix(t, "-") {
		sign, t = -1, t[1:]
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	switch t {
	case "inf", "infinity":
		return math.Inf(int(sign)), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// Names returns the variable names, sorted.
func (d *StanData) Names() []string { return append([]string(nil), d.order...) }

// Var returns the variable called name, or an error naming the file and the
// variables it has.
func (d *StanData) Var(name string) (*StanVar, error) {
	v, ok := d.vars[name]
	if !ok {
		return nil, fmt.Errorf("%s: no variable %q (have %s)", d.Source, name, strings.Join(d.order, ", "))
	}
	return v, nil
}

func (d *StanData) want(name string, rank int, what string) (*StanVar, error) {
	v, err := d.Var(name)
	if err != nil {
		return nil, err
	}
	if len(v.Dims) != rank {
		return nil, fmt.Errorf("%s: variable %q has dimensions %v: expected %s", d.Source, name, v.Dims, what)
	}
	return v, nil
}

// Real returns the scalar variable name.
func (d *StanData) Real(name string) (float64, error) {
	v, err := d.want(name, 0, "a scalar")
	if err != nil {
		return 0, err
	}
	return v.Values[0], nil
}

// Int returns the integer scalar variable name.
func (d *StanData) Int(name string) (int, error) {
	v, err := d.want(name, 0, "a scalar")
	if err != nil {
		return 0, err
	}
	if !v.IsInt {
		return 0, fmt.Errorf("%s: variable %q = %v: expected an integer", d.Source, name, v.Values[0])
	}
	return int(v.Values[0]), nil
}

// Vector returns the one-dimensional variable name.
func (d *StanData) Vector(name string) ([]float64, error) {
	v, err := d.want(name, 1, "a vector")
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), v.Values...), nil
}

// Ints returns the one-dimensional integer variable name.
func (d *StanData) Ints(name string) ([]int, error) {
	v, err := d.want(name, 1, "an integer array")
	if err != nil {
		return nil, err
	}
	if !v.IsInt {
		return nil, fmt.Errorf("%s: variable %q holds non-integers: expected an integer array", d.Source, name)
	}
	out := make([]int, len(v.Values))
	for i, x := range v.Values {
		out[i] = int(x)
	}
	return out, nil
}

// Matrix returns the two-dimensional variable name (rows × columns).
func (d *StanData) Matrix(name string) (*mat.Dense, error) {
	v, err := d.want(name, 2, "a matrix")
	if err != nil {
		return nil, err
	}
	if v.Dims[0] == 0 || v.Dims[1] == 0 {
		return nil, fmt.Errorf("%s: variable %q is %d×%d: expected a non-empty matrix", d.Source, name, v.Dims[0], v.Dims[1])
	}
	return mat.NewDense(v.Dims[0], v.Dims[1], append([]float64(nil), v.Values...)), nil
}
