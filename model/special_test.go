package model

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func TestTrigamma(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ x, want float64 }{
		{1, math.Pi * math.Pi / 6},
		{0.5, math.Pi * math.Pi / 2},
		{2, math.Pi*math.Pi/6 - 1},
		{1.5, math.Pi*math.Pi/2 - 4},
		{-0.5, math.Pi*math.Pi/2 + 4}, // ψ′(−½) = ψ′(½) + 1/(−½)²
		{0, math.Inf(1)},
		{-3, math.Inf(1)},
		{math.Inf(1), 0},
	} {
		got := trigamma(c.x)
		if !(math.Abs(got-c.want) <= 1e-14*math.Abs(c.want)) && got != c.want {
			t.Errorf("trigamma(%v) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
	if !math.IsNaN(trigamma(math.NaN())) {
		t.Error("trigamma(NaN) is not NaN")
	}
	// Against the Hurwitz zeta function, ψ′(x) = ζ(2, x), and the derivative
	// of gonum's digamma.
	for _, x := range []float64{1e-3, 0.1, 0.7, 1.3, 3.5, 9.99, 10, 10.5, 27, 101, 1e4} {
		got := trigamma(x)
		if z := mathext.Zeta(2, x); math.Abs(got-z) > 1e-12*z {
			t.Errorf("trigamma(%v) = %.17g, ζ(2, x) = %.17g", x, got, z)
		}
		h := 1e-5 * x
		fd := (mathext.Digamma(x+h) - mathext.Digamma(x-h)) / (2 * h)
		if math.Abs(got-fd) > 1e-6*got {
			t.Errorf("trigamma(%v) = %.17g, digamma finite difference %.17g", x, got, fd)
		}
	}
	// Reflection: ψ′(1 − x) + ψ′(x) = π²/sin²(πx).
	for _, x := range []float64{-0.3, -1.7, -4.25} {
		s := math.Sin(math.Pi * x)
		if got, want := trigamma(x)+trigamma(1-x), math.Pi*math.Pi/(s*s); math.Abs(got-want) > 1e-12*want {
			t.Errorf("reflection at %v: %.17g, want %.17g", x, got, want)
		}
	}
}
