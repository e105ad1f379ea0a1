package formula

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestCollapsedGaussian checks the gaussian likelihood of all rows from
// its sufficient statistics (collapsed) against the sum over the rows
// (the same model's minibatch path on the batch of every row): value and
// gradient equal to 1e-9 relative, at random points, for varying
// intercepts and slopes (correlated, uncorrelated, centred, non-centred),
// no group term, an offset, no intercept; and the collapsed gradient
// against finite differences. A dropped constant, a lost residual sum or
// a wrong pseudo-row fails it.
func TestCollapsedGaussian(t *testing.T) {
	cases := []struct {
		formula, centring string
		unscaled          bool
	}{
		{"y ~ x + (1 + x | g)", "noncentred", false},
		{"y ~ x + (1 + x | g)", "centred", false},
		{"y ~ x + w + (1 + x || g)", "centred", true},
		{"y ~ x + I(w^2) + offset(u) + (1 | g)", "", false},
		{"y ~ 0 + x + (1 + w | g)", "noncentred", false},
		{"y ~ x + w + f", "", true},
		{"y ~ 1 + (0 + x | g)", "centred", false},
	}
	fr := simFrame(400, 7, "gaussian", 5)
	// natural units: shift and stretch x, so that cancellation would show
	xs := fr.cols["x"].Num
	xn := make([]float64, len(xs))
	for i, v := range xs {
		xn[i] = 40 + 12*v
	}
	fr.AddNumeric("xn", xn)
	cases = append(cases, struct {
		formula, centring string
		unscaled          bool
	}{"y ~ xn + (1 + xn | g)", "centred", true})
	all := make([]int, 400)
	for i := range all {
		all[i] = i
	}
	for _, c := range cases {
		f, err := Parse(c.formula)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(f, fr, Options{Family: "gaussian", Centring: c.centring, Unscaled: c.unscaled})
		if err != nil {
			t.Fatalf("%s: %v", c.formula, err)
		}
		if m.coll == nil {
			t.Fatalf("%s: not collapsed", c.formula)
		}
		if M := len(m.coll.y); M >= m.Len() || M == 0 {
			t.Errorf("%s: %d pseudo-rows for %d rows", c.formula, M, m.Len())
		}
		rng := rand.New(rand.NewPCG(7, 1))
		d := m.Dim()
		for rep := 0; rep < 3; rep++ {
			th := make([]float64, d)
			for j := range th {
				th[j] = 0.7 * rng.NormFloat64()
			}
			gc, gr := make([]float64, d), make([]float64, d)
			lc := m.LogLik(th, nil, gc)
			lr := m.LogLik(th, all, gr)
			if math.Abs(lc-lr) > 1e-9*math.Abs(lr) {
				t.Errorf("%s: collapsed log-likelihood %.15g, rows %.15g", c.formula, lc, lr)
			}
			var gn float64
			for j := range gr {
				gn = math.Max(gn, math.Abs(gr[j]))
			}
			for j := range gr {
				if math.Abs(gc[j]-gr[j]) > 1e-9*gn {
					t.Errorf("%s: gradient %s collapsed %.15g, rows %.15g", c.formula, m.ParamNames()[j], gc[j], gr[j])
				}
			}
			if err := langevin.CheckGradient(m, th, nil, 1e-6); err != nil {
				t.Errorf("%s: %v", c.formula, err)
			}
		}
	}
	// The student family is not quadratic, crossed terms share rows:
	// neither collapses.
	for _, c := range []struct{ family, formula string }{{"student", "y ~ x + (1 | g)"}, {"gaussian", "y ~ x + (1 | g) + (1 | h)"}} {
		f, _ := Parse(c.formula)
		m, err := New(f, fr, Options{Family: c.family})
		if err != nil {
			t.Fatal(err)
		}
		if m.coll != nil {
			t.Errorf("%s %s: collapsed", c.family, c.formula)
		}
	}
}

// BenchmarkCollapsedGradient is one full-data gradient of a 10⁵-row
// gaussian y ~ x + (1 + x | g) in 1,000 levels: from the sufficient
// statistics (its cost independent of N) and from the rows.
func BenchmarkCollapsedGradient(b *testing.B) {
	fr := simFrame(100000, 1000, "gaussian", 3)
	f, _ := Parse("y ~ x + (1 + x | g)")
	m, err := New(f, fr, Options{Family: "gaussian"})
	if err != nil {
		b.Fatal(err)
	}
	th := make([]float64, m.Dim())
	g := make([]float64, m.Dim())
	all := make([]int, m.Len())
	for i := range all {
		all[i] = i
	}
	b.Run("collapsed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m.LogLik(th, nil, g)
		}
	})
	b.Run("rows", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m.LogLik(th, all, g)
		}
	})
}
