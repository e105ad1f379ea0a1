package stan

import (
	"math"
	"strings"
	"testing"
)

// TestReadData reads CmdStan JSON with the streaming reader: nested arrays
// stored flat, Stan's strings for infinities, and errors naming the line and
// column (not valid JSON) or the variable (not the declared shape).
func TestReadData(t *testing.T) {
	d, err := ReadData("d.json", strings.NewReader(`{"N": 2, "x": [[1, 2.5, -3e0], [4, 5, "Inf"]],
  "y": [1, 0], "a": [[[1], [2]], [[3], [4]]], "e": [], "s": "NaN", "b": [[], []]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, x, err := d.read("x", []int{2, 3}, false)
	if err != nil || len(x) != 6 || x[1] != 2.5 || x[2] != -3 || !math.IsInf(x[5], 1) {
		t.Errorf("x: %v, %v", x, err)
	}
	if y, _, err := d.read("y", []int{2}, true); err != nil || y[0] != 1 || y[1] != 0 {
		t.Errorf("y: %v, %v", y, err)
	}
	if a, _, err := d.read("a", []int{2, 2, 1}, true); err != nil || a[3] != 4 {
		t.Errorf("a: %v, %v", a, err)
	}
	if _, e, err := d.read("e", []int{0}, false); err != nil || len(e) != 0 {
		t.Errorf("e: %v, %v", e, err)
	}
	if _, s, err := d.read("s", nil, false); err != nil || !math.IsNaN(s[0]) {
		t.Errorf("s: %v, %v", s, err)
	}
	if _, _, err := d.read("b", []int{2, 0}, false); err != nil {
		t.Errorf("b: %v", err)
	}
	for _, c := range []struct {
		name string
		dims []int
		int  bool
		want string
	}{
		{"x", []int{2, 3}, true, "d.json: x: expected an integer[1][2], found 2.5"},
		{"x", []int{3, 3}, false, "d.json: x: expected 3 values (the declared size), found 2"},
		{"x", []int{2, 4}, false, "d.json: x: expected 4 values[1] (the declared size), found 3"},
		{"x", []int{2, 3, 1}, false, "d.json: x: expected an array of 1 values[1][1], found the number 1"},
		{"x", []int{2}, false, "d.json: x: expected a number[1], found an array of 3 values"},
		{"N", []int{2}, true, "d.json: N: expected an array of 2 values, found the number 2"},
		{"y", nil, true, "d.json: y: expected a number, found an array of 2 values"},
		{"z", nil, false, "d.json: z: missing from the data"},
	} {
		if _, _, err := d.read(c.name, c.dims, c.int); err == nil || err.Error() != c.want {
			t.Errorf("%s %v: got %v, want %s", c.name, c.dims, err, c.want)
		}
	}
	for _, c := range []struct{ json, want string }{
		{`{"x": [[1, 2], [3]]}`, "d.json: not valid JSON: line 1, column 18: an array of 1 values where its neighbours have 2 (arrays must be rectangular)"},
		{`{"x": [1, [2]]}`, "d.json: not valid JSON: line 1, column 11: an array where a number was expected (arrays of different depths)"},
		{`{"x": [[[]], [1]]}`, "d.json: not valid JSON: line 1, column 15: a number where an array was expected (arrays of different depths)"},
		{`{"x": [1, 2}`, "d.json: not valid JSON: line 1, column 12: expected ',' or ']' in an array"},
		{"{\"x\":\n [1, \"a\"]}", `d.json: not valid JSON: line 2, column 8: expected a number, found the string "a"`},
		{`{"x": 1} 2`, "d.json: not valid JSON: line 1, column 10: more after the data's object"},
		{`[1]`, "d.json: expected a JSON object of the data block's variables"},
		{`{"x": ` + strings.Repeat("[", 300) + `1` + strings.Repeat("]", 300) + `}`, "d.json: not valid JSON: line 1, column 207: arrays nested deeper than 200"},
	} {
		if _, err := ReadData("d.json", strings.NewReader(c.json)); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.json, err, c.want)
		}
	}
}

// FuzzReadData: any input is read or refused with an error, never a panic,
// and an array read holds as many values as its dimensions say.
func FuzzReadData(f *testing.F) {
	for _, s := range []string{`{"N": 2, "x": [[1, 2.5], [3, "-Inf"]], "y": [1, 0]}`, `{"a": [[], []], "s": "NaN"}`,
		`{"x": [1, [2]]}`, `{"x": [[1], [2, 3]]}`, `{"x": [[[]], [1]]}`, `{"n": true, "m": null}`, `{"x": 1e400}`, `[1]`, `{"x": "\u00e9"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadData("f.json", strings.NewReader(s))
		if err != nil {
			return
		}
		for name, v := range d.vars {
			if a, ok := v.(*numArray); ok {
				n := 1
				for _, k := range a.dims {
					n *= k
				}
				if n != len(a.f) {
					t.Fatalf("%s: dims %v hold %d values, read %d", name, a.dims, n, len(a.f))
				}
			}
		}
	})
}
