package stan

import (
	"strings"
	"testing"
)

// TestErrors checks that a wrong program or data gives the file, line and
// column (or the variable) and what was expected.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, data, want string }{
		{"parameters { real x }", "", "test.stan:1:21: expected ';', found '}'"},
		{"model { x ~ normal(0, 1); }", "", "test.stan:1:9: undeclared identifier x"},
		{"parameters { real x; }\nmodel { x ~ normal(0, 1) T[0, ]; }", "", "test.stan:2:11: truncation T[,] is not supported yet"},
		{"parameters { real x; }\nmodel { x ~ frechet(1, 1); }", "", "test.stan:2:11: distribution frechet is not supported"},
		{"parameters { real x; }\nmodel { target += normal_lcdf(x | 0, 1); }", "", "test.stan:2:19: normal_lcdf of parameters or of containers is not supported yet"},
		{"functions { real f_lp(real x) { return x; } }", "", "test.stan:1:18: f_lp: functions ending in _lp are not supported yet"},
		{"functions { real f(real x) { return x; } }\nmodel { target += f(1, 2); }", "", "test.stan:2:19: f takes 1 arguments, found 2"},
		{"functions { real f(real x) { if (x > 0) return x; } }\nmodel { target += f(-1); }", "", "test.stan:1:18: f ended without returning a value"},
		{"model { return 1; }", "", "test.stan:1:9: 'return' outside a function"},
		{"parameters { real x; }\nmodel { x = 1; }", "", "test.stan:2:11: cannot assign to x, declared in the parameters block, here"},
		{"parameters { cov_matrix[2] S; }", "", "test.stan:1:28: parameter type cov_matrix is not supported yet (S)"},
		{"parameters { real x; }\nmodel { x ~ normal(0, 1, 2); }", "", "test.stan:2:11: normal takes 2 arguments after the variate, found 3"},
		{"parameters { vector[2] x; }\nmodel { x[3] ~ normal(0, 1); }", "", "test.stan:2:11: index 3 out of range 1:2"},
		{"data { int N; }\nparameters { real x; }\nmodel { x ~ normal(0, 1); }", "{}", "test.json: N: missing from the data"},
		{"data { int<lower=1> N; }", `{"N": 0}`, "test.json: data N: value 1 = 0 violates its lower bound 1"},
		{"data { int N; array[N] int y; }", `{"N": 2, "y": [1, 2.5]}`, "test.json: y: expected an integer[2], found 2.5"},
		{"data { int N; vector[N] y; }", `{"N": 2, "y": [1, 2, 3]}`, "test.json: y: expected 2 values (the declared size), found 3"},
		{"data { simplex[2] p; }", `{"p": [0.5, 0.6]}`, "test.json: data p is not a simplex: its sum is 1.1"},
		{"data { matrix[2, 2] X; }", `{"X": [1, 2]}`, "test.json: X: expected an array of 2 values[1], found the number 1"},
		{"parameters { real x; }\nmodel { x ~ normal(0, 1); }\ndata { }", "", "test.stan:3:1: block 'data' out of order or repeated"},
		{"model { real x = 1 +; }", "", "test.stan:1:21: expected an expression, found ';'"},
		{"model { real x = 1 $ 2; }", "", "test.stan:1:20: unexpected character '$'"},
		{"model { /* open", "", "test.stan:1:9: comment /* not closed by */"},
	} {
		_, err := loadSrc(t, c.src, c.data)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// FuzzParse checks that the parser and checker never panic: every input is
// a program or an error.
func FuzzParse(f *testing.F) {
	for _, p := range programs {
		f.Add(p.src)
	}
	for _, s := range []string{"data { int N; }", "model { target += 1; }", "parameters { real x; } model { x ~ normal(0, 1); }",
		"model { for (i in 1:3) { if (i > 1) break; else continue; } }", "model { real x = {1, 2}[1] ? [1, 2]' : 3; }",
		"functions { real f(data real x, array[] vector v); real f(data real x, array[] vector v) { return x; } vector g(real[] a) { return to_vector(a); } }\nmodel { target += f(1, {[1]'}); }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Parse("fuzz.stan", src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if _, err := check(prog); err != nil && !strings.Contains(err.Error(), "fuzz.stan:") {
			t.Fatalf("checker error without a position: %v", err)
		}
	})
}
