package formula

import (
	"math"
	"strings"
	"testing"
)

func testFrame() *Frame {
	f := &Frame{}
	f.AddNumeric("x", []float64{1, 2, 3, 4, 5, 6})
	f.AddNumeric("k", []float64{3, 1, 3, 2, 1, 2})
	f.AddFactor("s", []int{0, 1, 2, 0, 1, 2}, []string{"lo", "mid", "hi"})
	return f
}

// TestDesignColumns checks column names and values: treatment contrasts,
// R's contrast rule for interactions, factor() of a number, poly.
func TestDesignColumns(t *testing.T) {
	cases := []struct {
		formula string
		names   string
		check   func(cols [][]float64) bool
	}{
		{"y ~ s", "smid shi", func(c [][]float64) bool { return c[0][1] == 1 && c[0][0] == 0 && c[1][2] == 1 }},
		{"y ~ 0 + s", "slo smid shi", func(c [][]float64) bool { return c[0][0] == 1 && c[0][1] == 0 }},
		{"y ~ x:s", "x:slo x:smid x:shi", func(c [][]float64) bool { return c[1][1] == 2 && c[0][3] == 4 }},
		{"y ~ x*s", "x smid shi x:smid x:shi", func(c [][]float64) bool { return c[3][1] == 2 && c[3][0] == 0 }},
		{"y ~ factor(k)", "factor(k)2 factor(k)3", func(c [][]float64) bool { return c[1][0] == 1 && c[0][3] == 1 }},
		{"y ~ log(x) + I(x^2)", "log(x) I(x^2)", func(c [][]float64) bool { return c[0][2] == math.Log(3) && c[1][2] == 9 }},
		{"y ~ poly(x, 2)", "poly(x,2)1 poly(x,2)2", func(c [][]float64) bool {
			// Orthonormal, orthogonal to the constant, and R's values:
			// poly(1:6, 2)[1, ] = (−0.5976143, 0.5455447).
			var s0, s1, n0, n1, c01 float64
			for i := range c[0] {
				s0 += c[0][i]
				s1 += c[1][i]
				n0 += c[0][i] * c[0][i]
				n1 += c[1][i] * c[1][i]
				c01 += c[0][i] * c[1][i]
			}
			return math.Abs(s0)+math.Abs(s1)+math.Abs(c01) < 1e-12 && math.Abs(n0-1)+math.Abs(n1-1) < 1e-12 &&
				math.Abs(c[0][0]+0.5976143) < 1e-7 && math.Abs(c[1][0]-0.5455447) < 1e-7
		}},
	}
	for _, c := range cases {
		f, err := Parse(c.formula)
		if err != nil {
			t.Fatal(err)
		}
		e := &env{tab: testFrame(), book: codebook{}, train: true}
		names, cols, err := e.terms(f.Terms, f.Intercept)
		if err != nil {
			t.Errorf("%s: %v", c.formula, err)
			continue
		}
		if got := strings.Join(names, " "); got != c.names {
			t.Errorf("%s: columns %q, want %q", c.formula, got, c.names)
			continue
		}
		if !c.check(cols) {
			t.Errorf("%s: values %v", c.formula, cols)
		}
	}
}

// TestDesignErrors: data errors name the column of the formula and what
// was expected.
func TestDesignErrors(t *testing.T) {
	cases := []struct{ formula, family, want string }{
		{"y ~ z", "gaussian", "column 5: no column \"z\" in the data"},
		{"y ~ log(s)", "gaussian", "column 9: column \"s\" is categorical"},
		{"y ~ x + (1 | q)", "gaussian", "grouping column \"q\" is not in the data"},
		{"y ~ log(x - 3)", "gaussian", "is NaN at row 1"},
		{"k ~ x", "bernoulli", "the bernoulli family expects 0 or 1"},
		{"x ~ k", "poisson", "expects a count"},
		{"s ~ x", "gaussian", "response s is categorical"},
		{"y ~ x", "weibull", "family \"weibull\": expected one of"},
	}
	for _, c := range cases {
		fr := testFrame()
		fr.AddNumeric("y", []float64{0.5, 1, 2, 0, 1, 3})
		fr.cols["x"] = Column{Num: []float64{1.5, 2, 3, 4, 5, 6}}
		f, err := Parse(c.formula)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(f, fr, Options{Family: c.family})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): error %v, want %q", c.formula, c.family, err, c.want)
		}
	}
}
