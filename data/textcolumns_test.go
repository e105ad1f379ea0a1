package data

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// textTable is a CSV table of n rows: a text column x whose row i holds
// level(i), a numeric column z and a 0/1 target y.
func textTable(n int, level func(i int) string) string {
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := range n {
		fmt.Fprintf(&b, "%q,%d,%d\n", level(i), i%7, i%2)
	}
	return b.String()
}

// TestTextColumnLevels: a text feature column is refused when it has more
// than 50 levels and fewer than 20 rows a level (a date column of 336 days
// in 2,917 rows became 335 dummies), when it is a column of dates (more
// than 20) or of decimal-comma numbers; the error names the column and
// says which; ordinary categories, and a column listed as categorical,
// pass.
func TestTextColumnLevels(t *testing.T) {
	date := func(k int) string { return fmt.Sprintf("2023-%02d-%02d", 1+k/28, 1+k%28) }
	for _, c := range []struct {
		name     string
		n        int
		level    func(i int) string
		what     string // "" : refused as text; "ok": accepted
		wantText string
	}{
		{"dates", 2917, func(i int) string { return date(i % 336) }, "dates", `column "x" holds dates (336 different in 2917 rows`},
		{"day-first dates", 500, func(i int) string { return fmt.Sprintf("%d.%d.2024", 1+i%28, 1+i/28%12) }, "dates", "dates"},
		{"decimal commas", 300, func(i int) string { return fmt.Sprintf("%d,%d", i%40, i%10) }, "decimal-comma numbers", "decimal comma"},
		{"few decimal commas", 300, func(i int) string { return []string{"1,5", "2,5"}[i%2] }, "decimal-comma numbers", "decimal comma"},
		{"200 words in 2000 rows", 2000, func(i int) string { return fmt.Sprintf("w%03d", i%200) }, "", "fewer than 20 rows a level"},
		{"an ID", 100, func(i int) string { return fmt.Sprintf("C%03d", i) }, "", "an ID rather than a category"},
		{"50 states in 200 rows", 200, func(i int) string { return fmt.Sprintf("s%02d", i%50) }, "ok", ""},
		{"200 levels in 10000 rows", 10000, func(i int) string { return fmt.Sprintf("c%03d", i%200) }, "ok", ""},
		{"few dates", 400, func(i int) string { return date(i % 4) }, "ok", ""},
		{"words with commas", 60, func(i int) string { return []string{"a,b", "c"}[i%2] }, "ok", ""},
	} {
		csv := textTable(c.n, c.level)
		_, err := ParseCSV(strings.NewReader(csv), "t.csv", CSVOptions{Target: "y"})
		if c.what == "ok" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var te *TextColumnError
		if !errors.As(err, &te) || !errors.Is(err, ErrTextColumn) {
			t.Errorf("%s: error %v, want a *TextColumnError", c.name, err)
			continue
		}
		if te.Column != "x" || te.What != c.what || !strings.Contains(err.Error(), c.wantText) || !strings.HasPrefix(err.Error(), "t.csv: ") {
			t.Errorf("%s: column %q, what %q, %q; want x, %q and %q", c.name, te.Column, te.What, err, c.what, c.wantText)
		}
		if _, err := ParseCSV(strings.NewReader(csv), "t.csv", CSVOptions{Target: "y", Categorical: []string{"x"}}); err != nil {
			t.Errorf("%s listed as categorical: %v", c.name, err)
		}
	}
}

// TestMixedDecimalComma: a column of numbers some of which are written with
// a decimal comma is an error that says so, whichever comes first.
func TestMixedDecimalComma(t *testing.T) {
	for _, cells := range [][]string{{"1,5", "2"}, {"2", "1,5"}} {
		csv := textTable(10, func(i int) string { return cells[i%2] })
		csv = strings.ReplaceAll(csv, `"2"`, "2")
		_, err := ParseCSV(strings.NewReader(csv), "t.csv", CSVOptions{Target: "y"})
		if err == nil || !strings.Contains(err.Error(), "decimal comma") {
			t.Errorf("%v: %v, want an error naming the decimal comma", cells, err)
		}
	}
}
