package formula

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestModelGradients checks every family's log density and gradient
// against finite differences, at a random θ and on a minibatch.
func TestModelGradients(t *testing.T) {
	cases := []struct{ family, formula string }{
		{"bernoulli", "y ~ x + w + f + (1 + x | g)"},
		{"binomial", "y ~ x + (1 + x | g)"},
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
		opt := Options{Family: c.family}
		if c.family == "binomial" {
			fr = binomialOf(fr)
			opt.Trials = "n"
		}
		for _, centring := range []string{"noncentred", "centred"} {
			opt.Centring = centring
			m, err := New(f, fr, opt)
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
					t.Errorf("%s %s %s (batch %v): %v", c.family, c.formula, centring, b, err)
				}
			}
		}
		m, err := New(f, fr, Options{Family: c.family, Trials: opt.Trials})
		if err != nil {
			t.Fatal(err)
		}
		th := make([]float64, m.Dim())
		dst := make([]float64, len(m.DerivedNames()))
		m.Derive(th, dst)
		// The R̂ rule's group effects (fit.GroupEffects): exactly the
		// effects, among θ's names and among the derived ones.
		effects := 0
		for _, g := range m.groups {
			effects += g.J * g.K
		}
		for _, names := range [][]string{m.ParamNames(), m.DerivedNames()} {
			n := 0
			for _, nm := range names {
				if m.GroupEffect(nm) {
					n++
				}
			}
			if n != effects {
				t.Errorf("%s: %d of %v are group effects, want %d", c.formula, n, names, effects)
			}
		}
		t.Logf("%s: %v", c.formula, m.BrmsNames()[:min(8, len(dst))])
	}
}

// TestModelDensity computes the log posterior of y ~ x + (1 + x | g)
// (bernoulli) by hand — priors, Jacobians, the centred design and the
// non-centred correlated effects — and compares it with the model's, and
// the derived brms quantities with the hand values.
func TestModelDensity(t *testing.T) {
	fr := simFrame(40, 4, "bernoulli", 3)
	f, _ := Parse("y ~ x + (1 + x | g)")
	m, err := New(f, fr, Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 1+1+2+1+8 {
		t.Fatalf("dim %d, want 13 (b, Intercept, sd_1 ×2, L_1, z_1 4×2)", m.Dim())
	}
	rng := rand.New(rand.NewPCG(5, 5))
	th := make([]float64, m.Dim())
	for j := range th {
		th[j] = 0.6 * rng.NormFloat64()
	}
	alpha := th[1]
	x, _ := fr.Column("x")
	// θ's sd_1[2] is the sd of the slope on x divided by its root mean
	// square sx (not centred): in the data's units sd = exp(θ)/sx.
	var sx float64
	for _, v := range x.Num {
		sx += v * v
	}
	sx = math.Sqrt(sx / float64(len(x.Num)))
	sd := []float64{math.Exp(th[2]), math.Exp(th[3]) / sx}
	rho := math.Tanh(th[4])
	z := th[5:]
	tlog := func(x, nu, s float64) float64 { // log student_t(x | nu, 0, s)
		a, _ := math.Lgamma((nu + 1) / 2)
		c, _ := math.Lgamma(nu / 2)
		return a - c - 0.5*math.Log(nu*math.Pi) - math.Log(s) - (nu+1)/2*math.Log1p(x*x/(nu*s*s))
	}
	want := tlog(alpha, 3, 2.5)
	for k := range sd {
		want += math.Ln2 + tlog(sd[k], 3, 2.5) + th[2+k] // half-t and the log Jacobian
	}
	want += -math.Ln2 + math.Log(1-rho*rho) // LKJ(1) on a 2×2 correlation, through tanh
	for _, v := range z {
		want += -0.5*v*v - 0.5*math.Log(2*math.Pi)
	}
	y, _ := fr.Column("y")
	g, _ := fr.Column("g")
	var xbar float64
	for _, v := range x.Num {
		xbar += v
	}
	xbar /= float64(len(x.Num))
	// θ's b is the coefficient of the centred column scaled by its root
	// mean square s (the sd with divisor n): b in the data's units is θ_b/s.
	var ss float64
	for _, v := range x.Num {
		ss += (v - xbar) * (v - xbar)
	}
	b := th[0] / math.Sqrt(ss/float64(len(x.Num)))
	r := make([][2]float64, 4)
	for j := range r {
		r[j][0] = sd[0] * z[2*j]
		r[j][1] = sd[1] * (rho*z[2*j] + math.Sqrt(1-rho*rho)*z[2*j+1])
	}
	for i := range x.Num {
		j := int(g.Num[i]) - 1
		eta := alpha + b*(x.Num[i]-xbar) + r[j][0] + r[j][1]*x.Num[i]
		want += y.Num[i]*eta - math.Log1p(math.Exp(eta))
	}
	got := langevin.LogPosterior(m, th, nil)
	if math.Abs(got-want) > 1e-10*math.Abs(want) {
		t.Errorf("log posterior %.12g, by hand %.12g", got, want)
	}
	names := m.DerivedNames()
	dst := make([]float64, len(names))
	m.Derive(th, dst)
	wantD := map[string]float64{"b_Intercept": alpha - b*xbar, "b_x": b, "sd_g__Intercept": sd[0], "sd_g__x": sd[1],
		"cor_g__Intercept__x": rho, "r_g.3.2": r[2][1], "r_g.1.1": r[0][0]}
	for k, n := range names {
		if w, ok := wantD[n]; ok && math.Abs(dst[k]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", n, dst[k], w)
		}
		delete(wantD, n)
	}
	if len(wantD) > 0 {
		t.Errorf("missing derived quantities %v in %v", wantD, names)
	}
	if bn := m.BrmsNames(); bn[len(bn)-1] != "r_g[4,x]" {
		t.Errorf("last brms name %q, want r_g[4,x]", bn[len(bn)-1])
	}
}

// TestDefaultPriors compares the default priors with brms 2.18.0's
// get_prior on the same data (the side-by-side data sets): the intercept's
// location is median(link(y)) rounded to 0.1 minus the mean offset, unrounded.
func TestDefaultPriors(t *testing.T) {
	cases := []struct {
		family, formula string
		n, J            int
		sim             string
		want            map[string][]float64
	}{
		{"poisson", "y ~ x + offset(log(u)) + (1 | g)", 1000, 15, "poisson",
			map[string][]float64{"Intercept": {3, 0.365527019889332, 2.5}, "sd": {3, 0, 2.5}}},
		{"negbinomial", "y ~ x + offset(log(u)) + (1 | g)", 1000, 15, "poisson",
			map[string][]float64{"Intercept": {3, 0.365527019889332, 2.5}, "shape": {0.01, 0.01}}},
		{"student", "y ~ x + (1 | g)", 600, 12, "gaussian",
			map[string][]float64{"Intercept": {3, 2.4, 2.5}, "nu": {2, 0.1}, "sigma": {3, 0, 2.5}, "sd": {3, 0, 2.5}}},
		{"bernoulli", "y ~ x + w + f + (1 + x | g)", 2000, 20, "bernoulli",
			map[string][]float64{"Intercept": {3, 0, 2.5}, "sd": {3, 0, 2.5}, "cor": {1}}},
	}
	for _, c := range cases {
		f, _ := Parse(c.formula)
		m, err := New(f, simFrame(c.n, c.J, c.sim, 7), Options{Family: c.family})
		if err != nil {
			t.Fatal(err)
		}
		for class, want := range c.want {
			got := m.prior[class].Args
			if len(got) != len(want) {
				t.Errorf("%s %s: %v, brms %v", c.family, class, m.prior[class], want)
				continue
			}
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-12 {
					t.Errorf("%s %s: %v, brms %v", c.family, class, m.prior[class], want)
				}
			}
		}
		if p := m.prior["b"]; p.Dist != "flat" {
			t.Errorf("%s b: %v, brms flat", c.family, p)
		}
	}
}

// binomialOf returns the frame with y (0/1) made successes 2y out of n = 3
// trials.
func binomialOf(fr *Frame) *Frame {
	out := &Frame{}
	for _, name := range fr.Names() {
		c, _ := fr.Column(name)
		switch {
		case name == "y":
			y := make([]float64, fr.Len())
			for i, v := range c.Num {
				y[i] = 2 * v
			}
			out.AddNumeric("y", y)
		case c.Num != nil:
			out.AddNumeric(name, c.Num)
		default:
			out.AddFactor(name, c.Codes, c.Levels)
		}
	}
	n := make([]float64, fr.Len())
	for i := range n {
		n[i] = 3
	}
	out.AddNumeric("n", n)
	return out
}

// TestCentredSamePosterior: the centred and non-centred forms are one
// posterior: at r_j = diag(sd) L z_j the centred log density equals the
// non-centred one minus the log Jacobian J·Σₖ log(sdₖ Lₖₖ) of z → r, for a
// correlated (L₁₁ = √(1 − ρ²)) and an uncorrelated term and a second
// grouping factor.
func TestCentredSamePosterior(t *testing.T) {
	fr := simFrame(300, 6, "bernoulli", 3)
	for _, text := range []string{"y ~ x + (1 + x | g)", "y ~ x + (1 + x || g) + (1 | h)"} {
		f, _ := Parse(text)
		nc, err := New(f, fr, Options{Family: "bernoulli", Centring: "noncentred"})
		if err != nil {
			t.Fatal(err)
		}
		ce, err := New(f, fr, Options{Family: "bernoulli", Centring: "centred"})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 4))
		for rep := 0; rep < 3; rep++ {
			th := make([]float64, nc.Dim())
			for j := range th {
				th[j] = 0.5 * rng.NormFloat64()
			}
			der := make([]float64, len(nc.DerivedNames()))
			nc.Derive(th, der)
			// θ of the centred model: the same, with each term's z block
			// replaced by its r (the derived r_ columns, in the same order).
			thc := append([]float64(nil), th...)
			var logJac float64
			for _, g := range nc.groups {
				r := der[g.genR.Off : g.genR.Off+g.genR.Len]
				// θ holds the effects and scales of the scaled columns.
				for j := 0; j < g.J*g.K; j++ {
					thc[g.zb.Off+j] = r[j] * g.scales[j%g.K]
				}
				sds := der[g.genSD.Off : g.genSD.Off+g.K]
				for k := 0; k < g.K; k++ {
					logJac += float64(g.J) * math.Log(sds[k]*g.scales[k])
				}
				if g.corr && g.K == 2 {
					rho := der[g.genCor.Off]
					logJac += float64(g.J) * 0.5 * math.Log(1-rho*rho)
				}
			}
			lnc := nc.LogPrior(th, nil) + nc.LogLik(th, nil, nil)
			lce := ce.LogPrior(thc, nil) + ce.LogLik(thc, nil, nil)
			if d := lce - (lnc - logJac); math.Abs(d) > 1e-8*math.Abs(lnc) {
				t.Errorf("%s: centred %.10g, non-centred − log Jacobian %.10g: differ by %g", text, lce, lnc-logJac, d)
			}
			d2 := make([]float64, len(der))
			ce.Derive(thc, d2)
			for j := range der {
				if math.Abs(der[j]-d2[j]) > 1e-10*(1+math.Abs(der[j])) {
					t.Fatalf("%s: %s: %g and %g", text, nc.DerivedNames()[j], der[j], d2[j])
				}
			}
		}
	}
}
