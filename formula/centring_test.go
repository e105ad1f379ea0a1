package formula

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCentringRule: a term is centred exactly when every level has at
// least CentredMinRows rows (levels of 100 rows: centred; one level one
// row short: not), and the groups line says which and why.
func TestCentringRule(t *testing.T) {
	f, err := Parse("y ~ x + (1 + x | g)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		short   bool // the first level has one row less
		centred bool
	}{{false, true}, {true, false}} {
		J, per := 5, CentredMinRows
		rng := rand.New(rand.NewPCG(1, 2))
		var y, x, g []float64
		for j := 0; j < J; j++ {
			k := per
			if c.short && j == 0 {
				k--
			}
			for i := 0; i < k; i++ {
				x = append(x, rng.NormFloat64())
				y = append(y, float64(rng.IntN(2)))
				g = append(g, float64(j))
			}
		}
		fr := &Frame{}
		fr.AddNumeric("y", y)
		fr.AddNumeric("x", x)
		fr.AddNumeric("g", g)
		m, err := New(f, fr, Options{Family: "bernoulli"})
		if err != nil {
			t.Fatal(err)
		}
		line := m.Groups()[0]
		if got := strings.Contains(line, "effects centred"); got != c.centred {
			t.Errorf("fewest level %d rows: centred %v, want %v (%s)", per-map[bool]int{true: 1}[c.short], got, c.centred, line)
		}
		if got := m.groups[0].centred; got != c.centred {
			t.Errorf("fewest level short %v: the term's parameterisation centred %v, want %v", c.short, got, c.centred)
		}
	}
}

// TestGaussianCentringRule: gaussian levels of 20 rows (below
// CentredMinRows) are centred when their rows inform their intercepts
// well (σ = 0.3 against a level sd of 1: κ ≈ 20·1/0.09 ≫ 10) and
// non-centred when they do not (σ = 3: κ ≈ 20/9 ≈ 2.2); the groups line
// gives κ.
func TestGaussianCentringRule(t *testing.T) {
	f, err := Parse("y ~ x + (1 | g)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sigma   float64
		centred bool
	}{{0.3, true}, {3, false}} {
		rng := rand.New(rand.NewPCG(4, 2))
		var y, x, g []float64
		for j := 0; j < 40; j++ {
			a := rng.NormFloat64()
			for i := 0; i < 20; i++ {
				xi := rng.NormFloat64()
				x = append(x, xi)
				y = append(y, 1+a+0.5*xi+c.sigma*rng.NormFloat64())
				g = append(g, float64(j))
			}
		}
		fr := &Frame{}
		fr.AddNumeric("y", y)
		fr.AddNumeric("x", x)
		fr.AddNumeric("g", g)
		m, err := New(f, fr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		line := m.Groups()[0]
		t.Log(line)
		if got := m.groups[0].centred; got != c.centred || !strings.Contains(line, "its intercept") {
			t.Errorf("σ %g: centred %v, want %v (%s)", c.sigma, got, c.centred, line)
		}
	}
}
