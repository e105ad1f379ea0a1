package formula

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestParseLinear: parsing takes memory linear in the formula's length: a
// 120 KB sum inside I() (once 3.7 GB: each partial sum's text a copy) and
// 10⁴ terms (each once compared with every earlier one) allocate a small
// multiple of their length, and the texts are still R's.
func TestParseLinear(t *testing.T) {
	long := "y ~ I(x" + strings.Repeat("+x", 60_000) + ")"
	var terms strings.Builder
	terms.WriteString("y ~ x0")
	for i := 1; i < 10_000; i++ {
		terms.WriteString(" + x" + strconv.Itoa(i))
	}
	for _, tc := range []struct {
		name, src string
		terms     int
	}{{"120 KB sum", long, 1}, {"10⁴ terms", terms.String(), 10_000}} {
		var f *Formula
		var err error
		got := allocated(func() { f, err = Parse(tc.src) })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(f.Terms) != tc.terms {
			t.Errorf("%s: %d terms, want %d", tc.name, len(f.Terms), tc.terms)
		}
		if max := uint64(400 * len(tc.src)); got > max {
			t.Errorf("%s (%d bytes): parsing allocated %d MB, want under %d MB", tc.name, len(tc.src), got>>20, max>>20)
		}
		t.Logf("%s: %d bytes of formula, %d KB allocated", tc.name, len(tc.src), got>>10)
	}
	f, _ := Parse(long)
	if want := strings.ReplaceAll(long[4:], " ", ""); f.Terms[0].Label() != want {
		t.Errorf("the term's text is not the formula's")
	}
	f, err := Parse("y ~ I( (x + 1) ^2 ) + log( -z * 2) + poly(w, 2) + `a b`:c")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tm := range f.Terms {
		labels = append(labels, tm.Label())
	}
	if got := strings.Join(labels, " + "); got != "I((x+1)^2) + log(-z*2) + poly(w,2) + a b:c" {
		t.Errorf("labels %q", got)
	}
}

// TestParseDepth: nesting deeper than MaxDepth is a SyntaxError at the
// column where the limit is passed, for every way to nest (calls,
// parentheses, signs), not a stack overflow at 10⁵ levels; a formula at
// the limit parses.
func TestParseDepth(t *testing.T) {
	for _, tc := range []struct{ open, close string }{{"log(", ")"}, {"(", ")"}, {"-", ""}} {
		for _, n := range []int{MaxDepth - 2, MaxDepth + 1, 100_000} {
			src := "y ~ I(" + strings.Repeat(tc.open, n) + "x" + strings.Repeat(tc.close, n) + ")"
			_, err := Parse(src)
			if n < MaxDepth {
				if err != nil {
					t.Errorf("%q × %d: %v", tc.open, n, err)
				}
				continue
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested deeper than 100 levels") {
				t.Fatalf("%q × %d: err %v", tc.open, n, err)
			}
			// I( is level 1: the limit is passed at the 100th opening inside it.
			if want := len("y ~ I(") + (MaxDepth-1)*len(tc.open) + 1; se.Col != want {
				t.Errorf("%q × %d: column %d, want %d", tc.open, n, se.Col, want)
			}
		}
	}
	_, err := Parse("y ~ " + strings.Repeat("a*", 11) + "a")
	if err == nil || !strings.Contains(err.Error(), "12 factors crossed with '*'") {
		t.Errorf("a*…*a of 12: %v", err)
	}
}
