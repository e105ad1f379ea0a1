package formula

import (
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestModelGradients checks every family's log density and gradient
// against finite differences, at a random θ and on a minibatch.
func TestModelGradients(t *testing.T) {
	cases := []struct{ family, formula string }{
		{"bernoulli", "y ~ x + w + f + (1 + x | g)"},
		{"probit", "y ~ x * w + (1 + x || g)"},
		{"poisson", "y ~ x + offset(log(u)) + (1 | g) + (1 | h)"},
		{"negbinomial", "y ~ poly(x, 2) + (1 + x | g)"},
		{"gaussian", "y ~ x + I(w^2) + (1 + x + w | g) + (1 | h)"},
		{"student", "y ~ 0 + f + x:f + (1 | g/h)"},
	}
	for _, c := range cases {
		simFam := c.family
		switch simFam {
		case "probit":
			simFam = "bernoulli"
		case "negbinomial":
			simFam = "poisson"
		case "student":
			simFam = "gaussian"
		}
		fr := simFrame(60, 5, simFam, 1)
		f, err := Parse(c.formula)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(f, fr, Options{Family: c.family})
		if err != nil {
			t.Fatalf("%s %s: %v", c.family, c.formula, err)
		}
		rng := rand.New(rand.NewPCG(2, 2))
		th := make([]float64, m.Dim())
		for j := range th {
			th[j] = 0.5 * rng.NormFloat64()
		}
		for _, b := range [][]int{nil, {3, 17, 17, 40}} {
			if err := langevin.CheckGradient(m, th, b, 1e-6); err != nil {
				t.Errorf("%s %s (batch %v): %v", c.family, c.formula, b, err)
			}
		}
		dst := make([]float64, len(m.DerivedNames()))
		m.Derive(th, dst)
		t.Logf("%s: %v", c.formula, m.BrmsNames()[:min(8, len(dst))])
	}
}
