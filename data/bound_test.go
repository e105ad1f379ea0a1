package data

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCategoricalExpansionBounded: a numeric column named categorical with
// one level a row (or a text column coded anyway) becomes n·(levels−1)
// dummies; the bound must hold for the coded matrix, not only for the
// cells as read. Before, 10⁶ rows of 10⁵ levels asked for 745 GiB and the
// process died with Go's out-of-memory trace.
func TestCategoricalExpansionBounded(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("x,g,y\n")
	const n = 2000
	for i := range n {
		fmt.Fprintf(&sb, "%d,%d,%d\n", i%7, i, i%2)
	}
	// As read: 2000 × 3 cells (48 KB); coded: 2000 × 2000 (32 MB).
	_, err := ParseCSV(strings.NewReader(sb.String()), "wide.csv", CSVOptions{Categorical: []string{"g"}, MaxBytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	for _, w := range []string{"wide.csv", `"g"`, "1999 dummies", "bound of 1 MiB"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// Under the bound the same file reads.
	ds, err := ParseCSV(strings.NewReader(sb.String()), "wide.csv", CSVOptions{Categorical: []string{"g"}, MaxBytes: 64 << 20})
	if err != nil || ds.Dim() != 1+n-1 {
		t.Fatalf("dim %v, err %v", ds, err)
	}
}
