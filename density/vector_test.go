package density

import (
	"math"
	"testing"
)

// TestSums checks every vectorised form against the sum of its scalar form,
// with each argument in turn broadcast, partials included.
func TestSums(t *testing.T) {
	x := []float64{0.2, 0.5, 0.9}
	type sum3f func(x, a, b, dx, da, db []float64) float64
	for _, c := range []struct {
		name   string
		vec    sum3f
		scalar func(x, a, b float64) (float64, float64, float64, float64)
		a, b   []float64
	}{
		{"Normal", NormalSum, Normal, []float64{-1, 0, 1}, []float64{2}},
		{"Normal(σ vector)", NormalSum, Normal, []float64{0.5}, []float64{2, 1, 3}},
		{"Cauchy", CauchySum, Cauchy, []float64{-1, 0, 1}, []float64{2}},
		{"Gamma", GammaSum, Gamma, []float64{2}, []float64{1, 2, 3}},
		{"InvGamma", InvGammaSum, InvGamma, []float64{2, 3, 4}, []float64{1}},
		{"LogNormal", LogNormalSum, LogNormal, []float64{-1, 0, 1}, []float64{2}},
		{"Beta", BetaSum, Beta, []float64{2}, []float64{0.5, 1, 3}},
	} {
		dx, da, db := make([]float64, len(x)), make([]float64, len(c.a)), make([]float64, len(c.b))
		lp := c.vec(x, c.a, c.b, dx, da, db)
		var want float64
		wx, wa, wb := make([]float64, len(x)), make([]float64, len(c.a)), make([]float64, len(c.b))
		for i := range x {
			ia, ib := min(i, len(c.a)-1), min(i, len(c.b)-1)
			l, gx, ga, gb := c.scalar(x[i], c.a[ia], c.b[ib])
			want += l
			wx[i] += gx
			wa[ia] += ga
			wb[ib] += gb
		}
		if !close(lp, want, 1e-13) || !same(dx, wx) || !same(da, wa) || !same(db, wb) {
			t.Errorf("%sSum = %g %v %v %v, scalar sum %g %v %v %v", c.name, lp, dx, da, db, want, wx, wa, wb)
		}
		if v := c.vec(x, c.a, c.b, nil, nil, nil); !close(v, lp, 1e-15) {
			t.Errorf("%sSum without partials = %g, with %g", c.name, v, lp)
		}
	}
	// StudentT, the four-argument form.
	nu, mu, s := []float64{3}, []float64{0.1, 0.2, 0.3}, []float64{1.5}
	d := [][]float64{make([]float64, 3), make([]float64, 1), make([]float64, 3), make([]float64, 1)}
	lp := StudentTSum(x, nu, mu, s, d[0], d[1], d[2], d[3])
	var want, wnu, ws float64
	for i := range x {
		l, _, gn, _, gs := StudentT(x[i], 3, mu[i], 1.5)
		want, wnu, ws = want+l, wnu+gn, ws+gs
	}
	if !close(lp, want, 1e-13) || !close(d[1][0], wnu, 1e-13) || !close(d[3][0], ws, 1e-13) {
		t.Errorf("StudentTSum = %g (∂ν %g, ∂σ %g), want %g (%g, %g)", lp, d[1][0], d[3][0], want, wnu, ws)
	}
}

func same(a, b []float64) bool {
	for i := range a {
		if !close(a[i], b[i], 1e-13) {
			return false
		}
	}
	return true
}

func TestCountSums(t *testing.T) {
	k := []int{0, 3, 1, 7, 2}
	eta := []float64{0.1, 1.2, -0.3, 2, 0.4}
	deta, dphi := make([]float64, 5), make([]float64, 1)
	lp := NegBin2LogSum(k, eta, []float64{3}, deta, dphi)
	var want, wphi float64
	for i := range k {
		l, ge, gp := NegBin2Log(k[i], eta[i], 3)
		want, wphi = want+l, wphi+gp
		if !close(deta[i], ge, 1e-14) {
			t.Errorf("NegBin2LogSum ∂η[%d] = %g, want %g", i, deta[i], ge)
		}
	}
	if !close(lp, want, 1e-13) || !close(dphi[0], wphi, 1e-13) {
		t.Errorf("NegBin2LogSum = %g (∂φ %g), want %g (%g)", lp, dphi[0], want, wphi)
	}
	clear(deta)
	lp = PoissonLogSum(k, eta, deta)
	want = 0
	for i := range k {
		l, g := PoissonLog(k[i], eta[i])
		want += l
		if !close(deta[i], g, 1e-14) {
			t.Errorf("PoissonLogSum ∂η[%d] = %g, want %g", i, deta[i], g)
		}
	}
	if !close(lp, want, 1e-13) {
		t.Errorf("PoissonLogSum = %g, want %g", lp, want)
	}
	// Bernoulli over more than one 512-term block, against the scalar sum.
	n := 1500
	y, e, de := make([]int, n), make([]float64, n), make([]float64, n)
	want = 0
	for i := range y {
		y[i] = i % 3 % 2
		e[i] = math.Sin(float64(i)) * 4
		l, _ := BernoulliLogit(y[i], e[i])
		want += l
	}
	lp = BernoulliLogitSum(y, e, de)
	if !close(lp, want, 1e-12) {
		t.Errorf("BernoulliLogitSum = %.15g, scalar sum %.15g", lp, want)
	}
	for i := range y {
		if _, g := BernoulliLogit(y[i], e[i]); !close(de[i], g, 1e-14) {
			t.Fatalf("BernoulliLogitSum ∂η[%d] = %g, want %g", i, de[i], g)
		}
	}
	if lp := BernoulliLogitSum([]int{2}, []float64{0}, nil); !math.IsInf(lp, -1) {
		t.Errorf("BernoulliLogitSum with label 2 = %g, want −Inf", lp)
	}
}
