package density

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// cont is a continuous density as a function of its argument vector
// (variate first) returning the log density and the partials in that order.
type cont struct {
	name string
	f    func(a []float64) (float64, []float64)
	at   [][]float64 // argument vectors to test at
	ref  func(a []float64) float64
}

func wrap3(f func(x, a, b float64) (float64, float64, float64, float64)) func([]float64) (float64, []float64) {
	return func(v []float64) (float64, []float64) {
		lp, d0, d1, d2 := f(v[0], v[1], v[2])
		return lp, []float64{d0, d1, d2}
	}
}

func wrap2(f func(x, a float64) (float64, float64, float64)) func([]float64) (float64, []float64) {
	return func(v []float64) (float64, []float64) {
		lp, d0, d1 := f(v[0], v[1])
		return lp, []float64{d0, d1}
	}
}

func conts() []cont {
	return []cont{
		{"Normal", wrap3(Normal), [][]float64{{0.3, -1, 2}, {-4, 1, 0.5}},
			func(a []float64) float64 { return distuv.Normal{Mu: a[1], Sigma: a[2]}.LogProb(a[0]) }},
		{"StudentT", func(v []float64) (float64, []float64) {
			lp, a, b, c, d := StudentT(v[0], v[1], v[2], v[3])
			return lp, []float64{a, b, c, d}
		}, [][]float64{{0.3, 3, -1, 2}, {5, 0.7, 1, 0.5}},
			func(a []float64) float64 { return distuv.StudentsT{Nu: a[1], Mu: a[2], Sigma: a[3]}.LogProb(a[0]) }},
		{"Cauchy", wrap3(Cauchy), [][]float64{{0.3, -1, 2}, {-4, 1, 0.5}},
			func(a []float64) float64 { return distuv.StudentsT{Nu: 1, Mu: a[1], Sigma: a[2]}.LogProb(a[0]) }},
		{"HalfNormal", wrap2(HalfNormal), [][]float64{{0.3, 2}, {4, 0.5}},
			func(a []float64) float64 { return math.Ln2 + distuv.Normal{Sigma: a[1]}.LogProb(a[0]) }},
		{"HalfCauchy", wrap2(HalfCauchy), [][]float64{{0.3, 2}, {4, 0.5}},
			func(a []float64) float64 { return math.Ln2 + distuv.StudentsT{Nu: 1, Sigma: a[1]}.LogProb(a[0]) }},
		{"Exponential", wrap2(Exponential), [][]float64{{0.3, 2}, {4, 0.5}},
			func(a []float64) float64 { return distuv.Exponential{Rate: a[1]}.LogProb(a[0]) }},
		{"Gamma", wrap3(Gamma), [][]float64{{0.3, 2, 3}, {4, 0.5, 0.2}},
			func(a []float64) float64 { return distuv.Gamma{Alpha: a[1], Beta: a[2]}.LogProb(a[0]) }},
		{"InvGamma", wrap3(InvGamma), [][]float64{{0.3, 2, 3}, {4, 0.5, 0.2}},
			func(a []float64) float64 { return distuv.InverseGamma{Alpha: a[1], Beta: a[2]}.LogProb(a[0]) }},
		{"LogNormal", wrap3(LogNormal), [][]float64{{0.3, -1, 2}, {4, 1, 0.5}},
			func(a []float64) float64 { return distuv.LogNormal{Mu: a[1], Sigma: a[2]}.LogProb(a[0]) }},
		{"Beta", wrap3(Beta), [][]float64{{0.3, 2, 3}, {0.9, 0.5, 0.7}},
			func(a []float64) float64 { return distuv.Beta{Alpha: a[1], Beta: a[2]}.LogProb(a[0]) }},
	}
}

// fd returns the central finite difference of f along coordinate j.
func fd(f func([]float64) float64, a []float64, j int) float64 {
	h := 1e-5 * math.Max(1, math.Abs(a[j]))
	b := append([]float64(nil), a...)
	b[j] = a[j] + h
	fp := f(b)
	b[j] = a[j] - h
	return (fp - f(b)) / (2 * h)
}

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestContinuous(t *testing.T) {
	for _, c := range conts() {
		for _, a := range c.at {
			lp, d := c.f(a)
			if ref := c.ref(a); !close(lp, ref, 1e-12) {
				t.Errorf("%s%v = %.15g, distuv %.15g", c.name, a, lp, ref)
			}
			for j := range a {
				num := fd(func(v []float64) float64 { l, _ := c.f(v); return l }, a, j)
				if !close(d[j], num, 1e-7) {
					t.Errorf("%s%v: partial %d = %.12g, finite difference %.12g", c.name, a, j, d[j], num)
				}
			}
		}
	}
}

func TestSupport(t *testing.T) {
	for _, c := range []struct {
		name string
		lp   float64
	}{
		{"HalfNormal(−1)", first(HalfNormal(-1, 1))},
		{"HalfCauchy(−1)", first(HalfCauchy(-1, 1))},
		{"Exponential(−1)", first(Exponential(-1, 1))},
		{"Gamma(0)", first4(Gamma(0, 1, 1))},
		{"InvGamma(−1)", first4(InvGamma(-1, 1, 1))},
		{"LogNormal(0)", first4(LogNormal(0, 1, 1))},
		{"Beta(1)", first4(Beta(1, 1, 1))},
	} {
		if !math.IsInf(c.lp, -1) {
			t.Errorf("%s = %g, want −Inf", c.name, c.lp)
		}
	}
	if lp, _, _, _ := Normal(0, 0, -1); !math.IsNaN(lp) {
		t.Errorf("Normal with σ = −1: %g, want NaN", lp)
	}
}

func first(a, _, _ float64) float64     { return a }
func first4(a, _, _, _ float64) float64 { return a }

// disc checks a discrete log mass: it must sum to 1 over its support and have
// finite-difference partials in its continuous parameters.
func TestDiscrete(t *testing.T) {
	type dcase struct {
		name string
		f    func(k int, a []float64) (float64, []float64)
		a    []float64
		ref  func(k int, a []float64) float64 // nil: check Σₖ p = 1 only
		kmax int
	}
	cases := []dcase{
		{"BernoulliLogit", func(k int, a []float64) (float64, []float64) { l, g := BernoulliLogit(k, a[0]); return l, []float64{g} },
			[]float64{0.7}, func(k int, a []float64) float64 {
				return distuv.Bernoulli{P: 1 / (1 + math.Exp(-a[0]))}.LogProb(float64(k))
			}, 1},
		{"BernoulliLogit(−30)", func(k int, a []float64) (float64, []float64) { l, g := BernoulliLogit(k, a[0]); return l, []float64{g} },
			[]float64{-30}, nil, 1},
		{"BinomialLogit", func(k int, a []float64) (float64, []float64) {
			l, g := BinomialLogit(k, 7, a[0])
			return l, []float64{g}
		},
			[]float64{-0.4}, func(k int, a []float64) float64 {
				return distuv.Binomial{N: 7, P: 1 / (1 + math.Exp(-a[0]))}.LogProb(float64(k))
			}, 7},
		{"PoissonLog", func(k int, a []float64) (float64, []float64) { l, g := PoissonLog(k, a[0]); return l, []float64{g} },
			[]float64{1.3}, func(k int, a []float64) float64 { return distuv.Poisson{Lambda: math.Exp(a[0])}.LogProb(float64(k)) }, 60},
		{"NegBin2Log", func(k int, a []float64) (float64, []float64) {
			l, g, h := NegBin2Log(k, a[0], a[1])
			return l, []float64{g, h}
		}, []float64{1.3, 2.5}, nil, 400},
	}
	for _, c := range cases {
		var total float64
		for k := 0; k <= c.kmax; k++ {
			lp, d := c.f(k, c.a)
			total += math.Exp(lp)
			if c.ref != nil {
				if ref := c.ref(k, c.a); !close(lp, ref, 1e-10) {
					t.Errorf("%s(k=%d) = %.15g, distuv %.15g", c.name, k, lp, ref)
				}
			}
			for j := range c.a {
				num := fd(func(v []float64) float64 { l, _ := c.f(k, v); return l }, c.a, j)
				if !close(d[j], num, 1e-7) {
					t.Errorf("%s(k=%d): partial %d = %.12g, finite difference %.12g", c.name, k, j, d[j], num)
				}
			}
		}
		if !close(total, 1, 1e-10) {
			t.Errorf("%s: masses sum to %.15g, want 1", c.name, total)
		}
	}
	// Negative binomial: mean e^η and variance μ + μ²/φ.
	var m1, m2 float64
	for k := 0; k < 2000; k++ {
		lp, _, _ := NegBin2Log(k, 1.3, 2.5)
		p := math.Exp(lp)
		m1 += float64(k) * p
		m2 += float64(k*k) * p
	}
	mu := math.Exp(1.3)
	if v := m2 - m1*m1; !close(m1, mu, 1e-9) || !close(v, mu+mu*mu/2.5, 1e-9) {
		t.Errorf("NegBin2Log: mean %g variance %g, want %g and %g", m1, v, mu, mu+mu*mu/2.5)
	}
}

func TestCategoricalLogit(t *testing.T) {
	eta := []float64{0.3, -1, 2, 0.5}
	var total float64
	for y := range eta {
		d := make([]float64, len(eta))
		lp := CategoricalLogit(y, eta, d)
		total += math.Exp(lp)
		ref := distuv.NewCategorical(softmax(eta), nil).LogProb(float64(y))
		if !close(lp, ref, 1e-12) {
			t.Errorf("CategoricalLogit(%d) = %g, distuv %g", y, lp, ref)
		}
		for j := range eta {
			num := fd(func(v []float64) float64 { return CategoricalLogit(y, v, nil) }, eta, j)
			if !close(d[j], num, 1e-7) {
				t.Errorf("CategoricalLogit(%d): partial %d = %g, finite difference %g", y, j, d[j], num)
			}
		}
	}
	if !close(total, 1, 1e-12) {
		t.Errorf("CategoricalLogit sums to %g", total)
	}
}

func softmax(eta []float64) []float64 {
	p := make([]float64, len(eta))
	var s float64
	for i, v := range eta {
		p[i] = math.Exp(v)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func TestBernoulliProbit(t *testing.T) {
	for _, eta := range []float64{-40, -31, -29, -5, -0.3, 0, 1.2, 8, 35} {
		var total float64
		for y := 0; y <= 1; y++ {
			lp, d := BernoulliProbit(y, eta)
			total += math.Exp(lp)
			num := fd(func(v []float64) float64 { l, _ := BernoulliProbit(y, v[0]); return l }, []float64{eta}, 0)
			if !close(d, num, 1e-6) {
				t.Errorf("BernoulliProbit(%d, %g): ∂η = %.12g, finite difference %.12g", y, eta, d, num)
			}
			p := distuv.UnitNormal.CDF(eta)
			if y == 0 {
				p = distuv.UnitNormal.CDF(-eta)
			}
			if p > 1e-300 && !close(lp, math.Log(p), 1e-9) {
				t.Errorf("BernoulliProbit(%d, %g) = %.15g, log Φ = %.15g", y, eta, lp, math.Log(p))
			}
		}
		if !close(total, 1, 1e-12) {
			t.Errorf("BernoulliProbit(·, %g) sums to %g", eta, total)
		}
	}
}

// TestNegBin2LogPoissonLimit checks that the negative binomial tends to the
// Poisson as φ → ∞, with finite partials, where log-gamma differences would
// lose every digit, and that the large-count branch agrees with the sums.
func TestNegBin2LogPoissonLimit(t *testing.T) {
	for _, k := range []int{0, 3, 17} {
		want, wd := PoissonLog(k, 1.3)
		lp, d, dphi := NegBin2Log(k, 1.3, 1e30)
		if !close(lp, want, 1e-12) || !close(d, wd, 1e-12) || math.IsNaN(dphi) || math.Abs(dphi) > 1e-20 {
			t.Errorf("NegBin2Log(%d, 1.3, 1e30) = %g, %g, %g; Poisson %g, %g, and ∂φ → 0", k, lp, d, dphi, want, wd)
		}
	}
	// Near the branch point: k = 1000 (sums) against the log-gamma form.
	lp, _, dphi := NegBin2Log(1000, 6.5, 40)
	a, _ := math.Lgamma(1000 + 40.0)
	b, _ := math.Lgamma(1001)
	c, _ := math.Lgamma(40)
	mu := math.Exp(6.5)
	want := a - b - c + 1000*6.5 + 40*math.Log(40) - 1040*math.Log(mu+40)
	if !close(lp, want, 1e-10) {
		t.Errorf("NegBin2Log(1000, 6.5, 40) = %.12g, log-gamma form %.12g", lp, want)
	}
	num := fd(func(v []float64) float64 { l, _, _ := NegBin2Log(1001, 6.5, v[0]); return l }, []float64{40}, 0)
	if _, _, g := NegBin2Log(1001, 6.5, 40); !close(g, num, 1e-6) {
		t.Errorf("NegBin2Log(1001, ·): ∂φ = %g, finite difference %g", g, num)
	}
	_ = dphi
}
