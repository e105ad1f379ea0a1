package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

func TestMixtureGradient(t *testing.T) {
	m := model.NewMixture25()
	for _, th := range [][]float64{{0, 0}, {0.1, -0.2}, {1, 1}, {3.9, -2.1}, {-9, 8}, {2.05, 4.1}} {
		if err := langevin.CheckGradient(m, th, nil, 1e-6); err != nil {
			t.Errorf("θ = %v: %v", th, err)
		}
		if err := langevin.CheckGradient(m, th, []int{0, 0, 0}, 1e-6); err != nil {
			t.Errorf("θ = %v, batch of 3: %v", th, err)
		}
	}
	if m.K() != 25 || m.Center(0)[0] != -4 || m.Center(24)[1] != 4 || m.Var() != 0.03 {
		t.Errorf("mixture25: K %d, first centre %v, last %v, var %v", m.K(), m.Center(0), m.Center(24), m.Var())
	}
}

// The density integrates to 1: a Riemann sum over [−6, 6]² on a fine grid.
func TestMixtureNormalised(t *testing.T) {
	m := model.NewMixture25()
	const h = 0.01
	var s float64
	th := make([]float64, 2)
	for x := -6.0; x < 6; x += h {
		for y := -6.0; y < 6; y += h {
			th[0], th[1] = x, y
			s += math.Exp(m.LogLik(th, nil, nil))
		}
	}
	if math.Abs(s*h*h-1) > 1e-6 {
		t.Errorf("∫p = %v", s*h*h)
	}
}

func TestMixtureErrors(t *testing.T) {
	for _, tc := range []struct {
		cs [][]float64
		s2 float64
	}{
		{nil, 1}, {[][]float64{{0, 0}}, 0}, {[][]float64{{0, 0}, {1}}, 1}, {[][]float64{{math.NaN()}}, 1},
	} {
		if _, err := model.NewMixture(tc.cs, tc.s2); err == nil {
			t.Errorf("NewMixture(%v, %v): no error", tc.cs, tc.s2)
		}
	}
	if _, err := model.NewGauss2(1); err == nil {
		t.Error("NewGauss2(1): no error")
	}
}

// The injected noise is N(0, SD²I) (mean, variance, no correlation between
// coordinates or successive points of a moving chain), reproducible, and
// leaves the value alone.
func TestNoisyGradientLaw(t *testing.T) {
	g, err := model.NewGauss2(0.9)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NoisyGradient{Model: g, SD: 2, Seed: 3}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	th := []float64{0.3, -0.2}
	exact := make([]float64, 2)
	noisy := make([]float64, 2)
	var s, ss [2]float64
	var cross, lag, prev float64
	for i := 0; i < n; i++ {
		th[0] += 1e-3 * rng.NormFloat64() // a slowly moving chain
		th[1] += 1e-3 * rng.NormFloat64()
		clear(exact)
		clear(noisy)
		if g.LogLik(th, nil, exact) != m.LogLik(th, nil, noisy) {
			t.Fatal("noise changed the value")
		}
		e0 := noisy[0] - exact[0]
		e1 := noisy[1] - exact[1]
		s[0] += e0
		s[1] += e1
		ss[0] += e0 * e0
		ss[1] += e1 * e1
		cross += e0 * e1
		lag += e0 * prev
		prev = e0
	}
	// Five standard errors: the mean of N(0, 4) has sd 2/√n; a variance
	// estimate has relative sd √(2/n); a correlation estimate has sd 1/√n.
	tol := 5 / math.Sqrt(n)
	for j := 0; j < 2; j++ {
		if mu := s[j] / n; math.Abs(mu) > 2*tol {
			t.Errorf("noise %d: mean %v", j, mu)
		}
		if v := ss[j] / n; math.Abs(v/4-1) > math.Sqrt2*tol {
			t.Errorf("noise %d: variance %v, want 4", j, v)
		}
	}
	if r := cross / n / 4; math.Abs(r) > tol {
		t.Errorf("correlation between coordinates %v", r)
	}
	if r := lag / n / 4; math.Abs(r) > tol {
		t.Errorf("lag-1 autocorrelation %v", r)
	}
	// Reproducible: the same θ and seed give the same noise, another seed
	// other noise.
	a, b, c := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	m.LogLik(th, nil, a)
	m.LogLik(append([]float64(nil), th...), nil, b)
	model.NoisyGradient{Model: g, SD: 2, Seed: 4}.LogLik(th, nil, c)
	if a[0] != b[0] || a[1] != b[1] || a[0] == c[0] {
		t.Errorf("noise not a function of (θ, seed): %v %v %v", a, b, c)
	}
	if got := m.ParamNames(); len(got) != 2 || got[0] != "theta.1" {
		t.Errorf("names %v", got)
	}
}

func BenchmarkMixture25Grad(b *testing.B) {
	m := model.NoisyGradient{Model: model.NewMixture25(), SD: 1}
	th := []float64{0.3, 1.2}
	g := make([]float64, 2)
	b.ReportAllocs()
	for b.Loop() {
		m.LogLik(th, nil, g)
	}
}

func TestStdNormal(t *testing.T) {
	m := model.StdNormal{D: 5}
	th := []float64{0.3, -1.2, 2, 0, 0.7}
	if err := langevin.CheckGradient(m, th, nil, 1e-6); err != nil {
		t.Error(err)
	}
	if got, want := langevin.LogPosterior(m, th, nil), -(0.09+1.44+4+0.49)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("log density %v, want %v", got, want)
	}
}
