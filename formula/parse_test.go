package formula

import (
	"errors"
	"strings"
	"testing"
)

// describe renders a parsed formula compactly for the table tests.
func describe(f *Formula) string {
	var s []string
	if f.Intercept {
		s = append(s, "1")
	} else {
		s = append(s, "0")
	}
	for _, t := range f.Terms {
		s = append(s, t.Label())
	}
	for _, o := range f.Offsets {
		s = append(s, "offset:"+o.Text)
	}
	for _, g := range f.Groups {
		var in []string
		if g.Intercept {
			in = append(in, "1")
		} else {
			in = append(in, "0")
		}
		for _, t := range g.Terms {
			in = append(in, t.Label())
		}
		bar := "|"
		if !g.Correlated {
			bar = "||"
		}
		s = append(s, "("+strings.Join(in, "+")+bar+g.Name()+")")
	}
	return f.Response.Text + " ~ " + strings.Join(s, " + ")
}

func TestParse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"y ~ x", "y ~ 1 + x"},
		{"y ~ 1 + x + z", "y ~ 1 + x + z"},
		{"y ~ 0 + x", "y ~ 0 + x"},
		{"y ~ x - 1", "y ~ 0 + x"},
		{"y ~ x:z", "y ~ 1 + x:z"},
		{"y ~ x*z", "y ~ 1 + x + z + x:z"},
		{"y ~ a*b*c", "y ~ 1 + a + b + c + a:b + a:c + b:c + a:b:c"},
		{"y ~ x + x*z", "y ~ 1 + x + z + x:z"},
		{"y ~ log(x) + I(x^2) + poly(z, 3)", "y ~ 1 + log(x) + I(x^2) + poly(z,3)"},
		{"y ~ I(2 * x + z/3)", "y ~ 1 + I(2*x+z/3)"},
		{"y ~ factor(k)", "y ~ 1 + factor(k)"},
		{"y ~ x + offset(log(n))", "y ~ 1 + x + offset:log(n)"},
		{"y ~ x + (1 | g)", "y ~ 1 + x + (1|g)"},
		{"y ~ x + (1 + x | g)", "y ~ 1 + x + (1+x|g)"},
		{"y ~ x + (x || g)", "y ~ 1 + x + (1+x||g)"},
		{"y ~ x + (0 + x | g)", "y ~ 1 + x + (0+x|g)"},
		{"y ~ (1 | a) + (1 | b)", "y ~ 1 + (1|a) + (1|b)"},
		{"y ~ (1 | a/b)", "y ~ 1 + (1|a) + (1|a:b)"},
		{"y ~ (1 | a:b)", "y ~ 1 + (1|a:b)"},
		{"log(y) ~ x", "log(y) ~ 1 + x"},
		{"y ~ 1", "y ~ 1"},
		{"y~x+`odd name`", "y ~ 1 + x + odd name"},
	}
	for _, c := range cases {
		f, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := describe(f); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	f, err := Parse("succ | trials(n) ~ x + (1 | g)")
	if err != nil || f.Trials != "n" || f.Response.Text != "succ" || describe(f) != "succ ~ 1 + x + (1|g)" {
		t.Errorf("Parse(succ | trials(n) ~ x + (1 | g)): %v, trials %q", err, f.Trials)
	}
	f, _ = Parse("log(y) | trials(n) ~ x*z + I(w^2) + poly(v, 2) + offset(log(u)) + (1 + x | a/b)")
	if got := strings.Join(f.Columns(), " "); got != "y n x z w v u a b" {
		t.Errorf("Columns() = %q, want the columns in order: y n x z w v u a b", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		col  int
		want string
	}{
		{"~ x", 1, "expected a response"},
		{"y x", 3, "expected '~'"},
		{"y ~ x +", 8, "expected a column"},
		{"y ~ x + (1 + x g)", 16, "expected '|' or '||'"},
		{"y ~ x + (1 | )", 14, "expected a grouping column"},
		{"y ~ foo(x)", 5, "unknown function foo()"},
		{"y ~ poly(x, 1.5)", 13, "whole degree"},
		{"y ~ x $ z", 7, "unexpected character"},
		{"y ~ x + (1 | g", 15, "expected ')'"},
		{"y ~ x - z", 9, "removing a term"},
		{"y ~ 2", 5, "a number 2 as a term"},
		{"y ~ log(x, z)", 5, "takes 1 argument"},
		{"y ~ (0 | g)", 5, "neither an intercept nor slopes"},
		{"y ~ x + (1 | g) )", 17, "expected '+' or the end"},
		{"y | weights(w) ~ x", 5, "expected trials(n)"},
		{"y | trials(2) ~ x", 12, "expected the column"},
		{"y | trials(n ~ x", 14, "expected ')'"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): error %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Col != c.col || !strings.Contains(se.Msg, c.want) {
			t.Errorf("Parse(%q): %v, want column %d and %q", c.in, err, c.col, c.want)
		}
	}
}
