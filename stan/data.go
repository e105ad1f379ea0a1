package stan

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	vars map[string]any
}

// ParseData decodes the JSON data b; file names it in errors.
func ParseData(file string, b []byte) (*Data, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &Error{File: file, Msg: "not valid JSON: " + err.Error()}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{File: file, Msg: "expected a JSON object of the data block's variables"}
	}
	return &Data{File: file, vars: m}, nil
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
	var walk func(v any, depth int, path string) error
	walk = func(v any, depth int, path string) error {
		if depth < len(dims) {
			a, ok := v.([]any)
			if !ok {
				if len(dims) == 1 && dims[0] == 1 && depth == 0 { // a scalar for an array of one
					return walk(v, depth+1, path)
				}
				return fail("expected an array of %d values%s, found %s", dims[depth], path, describe(v))
			}
			if len(a) != dims[depth] {
				return fail("expected %d values%s (the declared size), found %d", dims[depth], path, len(a))
			}
			for k, e := range a {
				if err := walk(e, depth+1, path+"["+strconv.Itoa(k+1)+"]"); err != nil {
					return err
				}
			}
			return nil
		}
		var x float64
		switch t := v.(type) {
		case json.Number:
			if isInt {
				i, err := strconv.Atoi(t.String())
				if err != nil {
					return fail("expected an integer%s, found %s", path, t.String())
				}
				ints = append(ints, i)
				return nil
			}
			f, err := t.Float64()
			if err != nil {
				return fail("bad number %s%s", t.String(), path)
			}
			x = f
		case string:
			switch strings.ToLower(t) {
			case "inf", "+inf", "infinity", "+infinity":
				x = math.Inf(1)
			case "-inf", "-infinity":
				x = math.Inf(-1)
			case "nan":
				x = math.NaN()
			default:
				return fail("expected a number%s, found the string %q", path, t)
			}
			if isInt {
				return fail("expected an integer%s, found %q", path, t)
			}
		default:
			return fail("expected a number%s, found %s", path, describe(v))
		}
		reals = append(reals, x)
		return nil
	}
	if err := walk(v, 0, ""); err != nil {
		return nil, nil, err
	}
	if isInt && ints == nil {
		ints = []int{}
	}
	if !isInt && reals == nil {
		reals = []float64{}
	}
	return ints, reals, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case []any:
		return fmt.Sprintf("an array of %d values", len(v))
	case map[string]any:
		return "an object"
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
