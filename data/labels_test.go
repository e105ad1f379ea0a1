package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestTwoLabels(t *testing.T) {
	for _, c := range []struct {
		name string
		y    []float64
		want []float64
	}{
		{"skin 1/2", []float64{1, 2, 2, 1, 2}, []float64{1, 2}},
		{"larger first", []float64{2, 2, 1}, []float64{1, 2}},
		{"0/2", []float64{0, 2}, []float64{0, 2}},
		{"−1/0", []float64{0, -1, 0}, []float64{-1, 0}},
		{"reals", []float64{0.5, 3.25, 0.5}, []float64{0.5, 3.25}},
		{"already 0/1", []float64{0, 1, 1}, nil},
		{"already ±1", []float64{-1, 1, -1}, nil},
		{"one value", []float64{2, 2, 2}, nil},
		{"three values", []float64{1, 2, 3}, nil},
		{"third value last", []float64{1, 2, 1, 2, 7}, nil},
		{"NaN", []float64{1, 2, math.NaN()}, nil},
		{"empty", nil, nil},
	} {
		if got := TwoLabels(c.y); !slices.Equal(got, c.want) {
			t.Errorf("%s: TwoLabels(%v) = %v, want %v", c.name, c.y, got, c.want)
		}
	}
}

func TestRecodeLabels(t *testing.T) {
	y := []float64{2, 1, 1, 2}
	if err := RecodeLabels(y, []float64{1, 2}); err != nil || !slices.Equal(y, []float64{1, 0, 0, 1}) {
		t.Fatalf("RecodeLabels: %v, %v; want 1 0 0 1", y, err)
	}
	y = []float64{1, 2, 3}
	var le *UnknownLabelError
	err := RecodeLabels(y, []float64{1, 2})
	if !errors.As(err, &le) || le.Row != 3 || le.Value != 3 {
		t.Fatalf("label 3 outside 1/2: %v, want an UnknownLabelError at row 3", err)
	}
	if want := "row 3: label 3: expected one of the training labels 1 or 2"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got, want := LabelRule([]float64{1, 2}), "1 → 0, 2 → 1 (two distinct values; the larger is the event"; !strings.HasPrefix(got, want) {
		t.Errorf("LabelRule = %q, want it to start %q", got, want)
	}
}

// New rows of a table of numbers without the response column (predict on
// unlabelled rows) are read with no target; this panicked (index −1).
func TestParseCSVNumbersWithoutTarget(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("V1\tV2\tV3\n74\t85\t123\n"), "new.tsv", CSVOptions{Target: "V4", OptionalTarget: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Y != nil || d.Target != "" || d.Dim() != 3 || d.Len() != 1 {
		t.Errorf("got target %q, Y %v, %d×%d; want no target, 1×3", d.Target, d.Y, d.Len(), d.Dim())
	}
}

// The store's path: the rule over rows read in blocks, and the rows recoded
// as they are read.
func TestTwoLabelsRows(t *testing.T) {
	for _, c := range []struct {
		y, want []float64
	}{
		{[]float64{1, 2, 2, 1}, []float64{1, 2}},
		{[]float64{0, 1, 1}, nil},
		{[]float64{1, 2, 3}, nil},
		{[]float64{5, 5}, nil},
	} {
		d := &Dataset{X: mat.NewDense(len(c.y), 1, make([]float64, len(c.y))), Y: c.y}
		if got := TwoLabelsRows(d); !slices.Equal(got, c.want) {
			t.Errorf("TwoLabelsRows(%v) = %v, want %v", c.y, got, c.want)
		}
	}
	d := &Dataset{X: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Y: []float64{2, 1, 7, 2}}
	x, y := make([]float64, 4), make([]float64, 4)
	RecodedRows{Rows: d, Values: []float64{1, 2}}.ReadRows(0, x, y)
	if !slices.Equal(y, []float64{1, 0, 7, 1}) || x[3] != 4 {
		t.Errorf("recoded rows: y %v, x %v; want 1 0 7 1 (7 as read), x as read", y, x)
	}
}
