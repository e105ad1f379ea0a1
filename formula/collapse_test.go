package formula

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
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

// rowsOnly is a formula model whose full-data likelihood sums the rows
// (the batch of every row) instead of the collapsed statistics.
type rowsOnly struct {
	*Model
	all []int
}

func (r rowsOnly) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if batch == nil {
		batch = r.all
	}
	return r.Model.LogLik(theta, batch, grad)
}

// TestCollapsedGaussianNUTS: NUTS on the collapsed gaussian likelihood
// and on the sum over the rows draw the same posterior of y ~ x + (1 + x
// | g) (300 rows, 10 levels, d = 26): every population-level, scale,
// correlation and σ mean within 4 combined Monte Carlo standard errors
// plus 0.05 sd, every sd within 4 relative standard errors. A collapsed
// model whose residual sum is doubled (σ's evidence wrong) must fail.
func TestCollapsedGaussianNUTS(t *testing.T) {
	if testing.Short() {
		t.Skip("three NUTS runs")
	}
	fr := simFrame(300, 10, "gaussian", 8)
	f, _ := Parse("y ~ x + (1 + x | g)")
	m, err := New(f, fr, Options{Family: "gaussian"})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, m.Len())
	for i := range all {
		all[i] = i
	}
	ctx := context.Background()
	opt := langevin.Options{Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 3, Init: langevin.InitUniform{}}
	ref, err := langevin.Run(ctx, rowsOnly{m, all}, sampler.NUTS{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := populationTable(m, ref)
	bad := func(mm *Model) (n int) {
		opt.Seed = 4
		tr, err := langevin.Run(ctx, mm, sampler.NUTS{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := populationTable(mm, tr)
		for i, g := range got {
			w := want[i]
			tolM := 4*math.Hypot(g.MCSEMean, w.MCSEMean) + 0.05*w.SD
			tolS := 4 * (1/math.Sqrt(2*g.ESSBulk) + 1/math.Sqrt(2*w.ESSBulk))
			if math.Abs(g.Mean-w.Mean) > tolM || math.Abs(g.SD/w.SD-1) > tolS {
				n++
				t.Logf("%s: mean %.4g sd %.4g, rows %.4g sd %.4g", g.Name, g.Mean, g.SD, w.Mean, w.SD)
			}
		}
		return n
	}
	if n := bad(m); n > 0 {
		t.Errorf("collapsed NUTS: %d quantities off the rows' NUTS", n)
	}
	wrong, _ := New(f, fr, Options{Family: "gaussian"})
	wrong.coll.rss *= 2
	if n := bad(wrong); n == 0 {
		t.Error("a collapsed likelihood with twice the residual sum passed")
	}
}
