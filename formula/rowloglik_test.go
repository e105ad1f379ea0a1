package formula

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowLogLik checks each row's log-likelihood against the family's
// normalised density written out here (so a dropped constant, −½ log 2π or
// −log y!, fails), at a random θ, and that the rows sum to LogLik.
func TestRowLogLik(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	n := 60
	x, yg, yc := make([]float64, n), make([]float64, n), make([]float64, n)
	g := make([]int, n)
	for i := range x {
		x[i] = 10 + 5*rng.NormFloat64()
		g[i] = i % 4
		yg[i] = 1 + 0.2*x[i] + rng.NormFloat64()
		yc[i] = float64(rng.IntN(6))
	}
	for _, tc := range []struct {
		family string
		y      []float64
		logp   func(y, eta, aux float64) float64
	}{
		{"gaussian", yg, func(y, eta, sigma float64) float64 {
			z := (y - eta) / sigma
			return -0.5*z*z - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
		}},
		{"poisson", yc, func(y, eta, _ float64) float64 {
			lf, _ := math.Lgamma(y + 1)
			return y*eta - math.Exp(eta) - lf
		}},
	} {
		fr := &Frame{}
		fr.AddNumeric("y", tc.y)
		fr.AddNumeric("x", x)
		fr.AddFactor("g", g, []string{"a", "b", "c", "d"})
		f, err := Parse("y ~ x + (1 | g)")
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(f, fr, Options{Family: tc.family})
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = 0.3 * rng.NormFloat64()
		}
		vals := make([]float64, len(m.DerivedNames()))
		m.Derive(theta, vals)
		get := func(name string) float64 {
			for i, nm := range m.DerivedNames() {
				if nm == name {
					return vals[i]
				}
			}
			t.Fatalf("%s: no derived %s in %v", tc.family, name, m.DerivedNames())
			return 0
		}
		aux := 0.0
		if tc.family == "gaussian" {
			aux = get("sigma")
		}
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		dst := make([]float64, n)
		m.RowLogLik(dst, theta, rows)
		var sum float64
		for i, v := range dst {
			eta := get("b_Intercept") + get("b_x")*x[i] + get("r_g."+string(rune('1'+g[i]))+".1")
			if want := tc.logp(tc.y[i], eta, aux); math.Abs(v-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s row %d: %v, want %v", tc.family, i, v, want)
			}
			sum += v
		}
		if all := m.LogLik(theta, nil, nil); math.Abs(sum-all) > 1e-9*(1+math.Abs(all)) {
			t.Errorf("%s: rows sum to %v, LogLik %v", tc.family, sum, all)
		}
		if got := m.Response(); len(got) != n || got[3] != tc.y[3] {
			t.Errorf("%s: Response %v…", tc.family, got[:4])
		}
	}
}
