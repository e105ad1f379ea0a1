package data

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRowNumberColumns: a column of the row numbers (1…n or 0…n−1, in any
// order) was silently a feature; now a warning names it and --id. Columns
// that only look alike (a gap, a repeat, a fraction, a start at 2) are not
// named.
func TestRowNumberColumns(t *testing.T) {
	const n = 12
	col := func(f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	for _, tc := range []struct {
		name string
		v    []float64
		warn bool
	}{
		{"1…n", col(func(i int) float64 { return float64(i + 1) }), true},
		{"0…n−1 shuffled", col(func(i int) float64 { return float64((i * 5) % n) }), true},
		{"2…n+1", col(func(i int) float64 { return float64(i + 2) }), false},
		{"a repeat", col(func(i int) float64 { return float64(min(i, n-2)) }), false},
		{"halves", col(func(i int) float64 { return float64(i) / 2 }), false},
		{"counts", col(func(i int) float64 { return float64(i % 3) }), false},
	} {
		X := mat.NewDense(n, 2, nil)
		X.SetCol(0, col(func(i int) float64 { return 0.5 }))
		X.SetCol(1, tc.v)
		w := RowNumberColumns(X, []string{"a", "row"})
		got := len(w) == 1 && strings.Contains(w[0], `column "row" holds the row numbers`) && strings.Contains(w[0], "--id row")
		if got != tc.warn || (!tc.warn && len(w) > 0) {
			t.Errorf("%s: warnings %q, want a warning %v", tc.name, w, tc.warn)
		}
	}
}

// TestDuplicateIDs: an ID column that repeats values was accepted silently.
func TestDuplicateIDs(t *testing.T) {
	if w := DuplicateIDs([]string{"a", "b", "c"}, "id"); w != "" {
		t.Errorf("distinct IDs: %q", w)
	}
	w := DuplicateIDs([]string{"a", "b", "a", "c", "b"}, "id")
	for _, want := range []string{`ID column "id"`, "2 rows repeat an ID", `as "a", rows 1 and 3`} {
		if !strings.Contains(w, want) {
			t.Errorf("%q lacks %q", w, want)
		}
	}
}
