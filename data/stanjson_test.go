package data

import (
	"math"
	"strings"
	"testing"
)

const eightSchools = `{
  "J": 8,
  "y": [28, 8, -3, 7, -1, 1, 18, 12],
  "sigma": [15, 10, 16, 11, 9, 11, 10, 18],
  "X": [[1, 2.5, 3], [4, 5, 6]],
  "w": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
  "big": "inf",
  "empty": []
}`

func TestReadStanJSON(t *testing.T) {
	d, err := ReadStanJSON(strings.NewReader(eightSchools), "eight.json")
	if err != nil {
		t.Fatal(err)
	}
	if j, err := d.Int("J"); err != nil || j != 8 {
		t.Errorf("J = %d, %v", j, err)
	}
	y, err := d.Ints("y")
	if err != nil || len(y) != 8 || y[2] != -3 {
		t.Errorf("y = %v, %v", y, err)
	}
	s, err := d.Vector("sigma")
	if err != nil || s[7] != 18 {
		t.Errorf("sigma = %v, %v", s, err)
	}
	X, err := d.Matrix("X")
	if err != nil || X.At(0, 1) != 2.5 || X.At(1, 2) != 6 {
		t.Errorf("X = %v, %v", X, err)
	}
	w, _ := d.Var("w")
	if len(w.Dims) != 3 || w.Values[5] != 6 || !w.IsInt {
		t.Errorf("w = %+v", w)
	}
	if b, err := d.Real("big"); err != nil || !math.IsInf(b, 1) {
		t.Errorf("big = %v, %v", b, err)
	}
	if e, _ := d.Var("empty"); len(e.Dims) != 1 || e.Dims[0] != 0 {
		t.Errorf("empty = %+v", e)
	}
	if _, err := d.Ints("X"); err == nil || !strings.Contains(err.Error(), `"X"`) {
		t.Errorf("Ints of a matrix: %v", err)
	}
	if _, err := d.Ints("sigma"); err != nil {
		t.Errorf("sigma holds integers: %v", err)
	}
	if _, err := d.Int("X"); err == nil {
		t.Error("Int of a matrix: no error")
	}
	if _, err := d.Vector("nope"); err == nil || !strings.Contains(err.Error(), "have J, X, big") {
		t.Errorf("missing variable: %v", err)
	}
}

func TestReadStanJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": [1, 2}`, "bad.json:1:12"},
		{`{"a": [[1, 2], [3]]}`, "rectangular"},
		{`{"a": [1, "x"]}`, `a[2] = "x"`},
		{`{"a": {"b": 1}}`, "expected a number"},
		{`[1, 2]`, "expected a JSON object"},
	} {
		_, err := ReadStanJSON(strings.NewReader(c.in), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}
