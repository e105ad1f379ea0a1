package model_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
)

// glmData draws n rows of p standard-normal features and responses of the
// kind from the model with intercept a and slopes b (and φ = 3, σ = 0.7 with
// ν = 4 noise), with offsets log(exposure), exposure ~ U(0.5, 2).
func glmData(kind model.GLMKind, n, p int, a float64, b []float64, seed uint64) (*mat.Dense, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := mat.NewDense(n, p, nil)
	y, off := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		eta := a
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			eta += b[j] * v
		}
		off[i] = math.Log(0.5 + 1.5*rng.Float64())
		switch kind {
		case model.Poisson:
			y[i] = poisson(rng, math.Exp(eta+off[i]))
		case model.NegBin:
			// Gamma(φ, φ/μ) mixture of Poissons.
			mu := math.Exp(eta + off[i])
			y[i] = poisson(rng, gammaDraw(rng, 3)*mu/3)
		case model.Probit:
			if eta+rng.NormFloat64() > 0 {
				y[i] = 1
			}
		case model.Robust:
			w := gammaDraw(rng, 2) / 2 // t₄ = N/√(χ²₄/4)
			y[i] = eta + 0.7*rng.NormFloat64()/math.Sqrt(w)
		}
	}
	return X, y, off
}

func poisson(rng *rand.Rand, mu float64) float64 {
	l, k, p := math.Exp(-mu), 0.0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// gammaDraw draws Gamma(shape, 1) (Marsaglia & Tsang), shape ≥ 1.
func gammaDraw(rng *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		if math.Log(rng.Float64()) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

func newGLM(t testing.TB, kind model.GLMKind, X *mat.Dense, y, off []float64, opt model.GLMOptions) *model.GLM {
	t.Helper()
	if kind == model.Poisson || kind == model.NegBin {
		opt.Offset = off
	}
	m, err := model.NewGLM(kind, X, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGLMGradients(t *testing.T) {
	for _, kind := range []model.GLMKind{model.Poisson, model.NegBin, model.Probit, model.Robust} {
		X, y, off := glmData(kind, 40, 3, 0.5, []float64{0.3, -0.5, 0.2}, 1)
		for _, opt := range []model.GLMOptions{{}, {NoIntercept: true, PriorScale: 1, Nu: 5}} {
			m := newGLM(t, kind, X, y, off, opt)
			rng := rand.New(rand.NewPCG(2, 2))
			theta := make([]float64, m.Dim())
			for j := range theta {
				theta[j] = 0.3 * rng.NormFloat64()
			}
			for _, batch := range [][]int{nil, {3, 1, 4, 1, 5}} {
				if err := langevin.CheckGradient(m, theta, batch, 1e-6); err != nil {
					t.Errorf("%v %+v (batch %v): %v", kind, opt, batch, err)
				}
			}
		}
	}
}

func TestGLMNamesAndErrors(t *testing.T) {
	X, y, _ := glmData(model.Robust, 20, 2, 0, []float64{1, 1}, 1)
	m := newGLM(t, model.Robust, X, y, nil, model.GLMOptions{})
	want := []string{"intercept", "beta.1", "beta.2", "log_sigma", "log_nu"}
	got := m.ParamNames()
	for j := range want {
		if got[j] != want[j] {
			t.Errorf("ParamNames = %v, want %v", got, want)
			break
		}
	}
	if dn := m.DerivedNames(); len(dn) != 2 || dn[0] != "sigma" || dn[1] != "nu" {
		t.Errorf("DerivedNames = %v", dn)
	}
	for _, c := range []struct {
		kind model.GLMKind
		y    float64
		want string
	}{{model.Poisson, 1.5, "row 3: response 1.5"}, {model.NegBin, -1, "row 3"}, {model.Probit, 2, "row 3"}} {
		yy := append([]float64(nil), y...)
		for i := range yy {
			yy[i] = 1
		}
		yy[2] = c.y
		if _, err := model.NewGLM(c.kind, X, yy, model.GLMOptions{}); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%v with response %v: error %v, want %q", c.kind, c.y, err, c.want)
		}
	}
	if _, err := model.NewGLM(model.Probit, X, y, model.GLMOptions{Offset: make([]float64, 20)}); err == nil {
		t.Error("probit with an offset: no error")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// gridMoments returns the posterior means and sds of θ by quadrature on a
// grid of k points per coordinate over MAP ± 7 Laplace sds.
func gridMoments(t *testing.T, m langevin.Model, k int) (mean, sd []float64) {
	d := m.Dim()
	mode, err := approx.FindMAP(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	H := make([]float64, d*d)
	langevin.HessianFD(m, mode, H)
	var cov mat.Dense
	if err := cov.Inverse(mat.NewDense(d, d, H)); err != nil {
		t.Fatal(err)
	}
	half := make([]float64, d)
	for j := range half {
		half[j] = 7 * math.Sqrt(-cov.At(j, j))
	}
	idx := make([]int, d)
	th := make([]float64, d)
	var w float64
	s1, s2 := make([]float64, d), make([]float64, d)
	lp0 := langevin.LogPosterior(m, mode, nil)
	for {
		for j := range th {
			th[j] = mode[j] + half[j]*(2*float64(idx[j])/float64(k-1)-1)
		}
		p := math.Exp(langevin.LogPosterior(m, th, nil) - lp0)
		w += p
		for j, v := range th {
			s1[j] += p * v
			s2[j] += p * v * v
		}
		a := 0
		for ; a < d; a++ {
			idx[a]++
			if idx[a] < k {
				break
			}
			idx[a] = 0
		}
		if a == d {
			break
		}
	}
	mean, sd = make([]float64, d), make([]float64, d)
	for j := range mean {
		mean[j] = s1[j] / w
		sd[j] = math.Sqrt(s2[j]/w - mean[j]*mean[j])
	}
	return mean, sd
}

// TestGLMPosteriors runs NUTS on each GLM and compares the posterior means
// and sds of θ with quadrature on a grid: means within 5 MCSEs (plus the
// grid's error, 1% of the sd), sds within 10%.
//
// The quadrature uses the model's own density, so it checks the sampler and
// the gradients; the model itself is checked against the truth that drew the
// data: every regression coefficient within 4 posterior sds.
func TestGLMPosteriors(t *testing.T) {
	if testing.Short() {
		t.Skip("NUTS runs of four GLMs (about 6 s)")
	}
	truth := []float64{0.4, 0.5, -0.4}
	cases := []struct {
		kind model.GLMKind
		p    int
		opt  model.GLMOptions
	}{
		{model.Poisson, 2, model.GLMOptions{}},
		{model.NegBin, 1, model.GLMOptions{}},
		{model.Probit, 2, model.GLMOptions{}},
		{model.Robust, 1, model.GLMOptions{Nu: 4}},
	}
	for _, c := range cases {
		X, y, off := glmData(c.kind, 80, c.p, 0.4, []float64{0.5, -0.4}, 7)
		m := newGLM(t, c.kind, X, y, off, c.opt)
		k := 61
		if m.Dim() >= 3 {
			k = 25
		}
		mean, sd := gridMoments(t, m, k)
		for j := 0; j <= c.p; j++ {
			if math.Abs(mean[j]-truth[j]) > 4*sd[j] {
				t.Errorf("%v: posterior mean of θ%d %.3f ± %.3f, data drawn with %.3f", c.kind, j+1, mean[j], sd[j], truth[j])
			}
		}
		tr, err := langevin.Run(context.Background(), m, sampler.NUTS{},
			langevin.Options{Chains: 4, Iters: 1500, BurnIn: 500, Seed: 5, Init: langevin.InitUniform{}})
		if err != nil {
			t.Fatalf("%v: %v", c.kind, err)
		}
		for j := 0; j < m.Dim(); j++ {
			ch := tr.Param(j)
			var all []float64
			for _, c := range ch {
				all = append(all, c...)
			}
			mu := 0.0
			for _, v := range all {
				mu += v
			}
			mu /= float64(len(all))
			var ss float64
			for _, v := range all {
				ss += (v - mu) * (v - mu)
			}
			s := math.Sqrt(ss / float64(len(all)-1))
			mcse := diag.MCSEMean(ch)
			if math.Abs(mu-mean[j]) > 5*mcse+0.01*sd[j] {
				t.Errorf("%v %s: NUTS mean %.4f ± %.4f, quadrature %.4f", c.kind, tr.Names[j], mu, mcse, mean[j])
			}
			if math.Abs(s-sd[j]) > 0.1*sd[j] {
				t.Errorf("%v %s: NUTS sd %.4f, quadrature %.4f", c.kind, tr.Names[j], s, sd[j])
			}
		}
	}
}

// TestGLMOffsetMatters checks that the offset enters the likelihood: the
// Poisson posterior mean of the intercept moves by the mean offset when the
// offsets are dropped (the slip the posterior test would catch).
func TestGLMOffsetMatters(t *testing.T) {
	X, y, off := glmData(model.Poisson, 80, 2, 0.4, []float64{0.5, -0.4}, 7)
	with, _ := gridMoments(t, newGLM(t, model.Poisson, X, y, off, model.GLMOptions{}), 41)
	m, _ := model.NewGLM(model.Poisson, X, y, model.GLMOptions{})
	without, _ := gridMoments(t, m, 41)
	if math.Abs(with[0]-without[0]) < 0.05 {
		t.Errorf("intercept with offsets %.3f, without %.3f: the offsets have no effect", with[0], without[0])
	}
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

func TestGLMPredict(t *testing.T) {
	X, y, off := glmData(model.Poisson, 50, 2, 0.4, []float64{0.5, -0.4}, 7)
	m := newGLM(t, model.Poisson, X, y, off, model.GLMOptions{})
	theta := []float64{0.4, 0.5, -0.4}
	mean := m.Mean(theta, X, off, nil)
	x0 := mat.Row(nil, 0, X)
	if want := math.Exp(0.4 + 0.5*x0[0] - 0.4*x0[1] + off[0]); math.Abs(mean[0]-want) > 1e-12 {
		t.Errorf("Mean[0] = %g, want %g", mean[0], want)
	}
	pm := predict.OffsetMean(m, [][]float64{theta, theta}, X, off, nil)
	if pm[3] != mean[3] {
		t.Errorf("OffsetMean of equal draws %g, Mean %g", pm[3], mean[3])
	}
	lp := m.LogDensity(theta, X, off, y, nil)
	if want := float64(y[0])*math.Log(mean[0]) - mean[0] - lgamma(y[0]+1); math.Abs(lp[0]-want) > 1e-9 {
		t.Errorf("LogDensity[0] = %g, want the Poisson log density %g", lp[0], want)
	}
	lpd := predict.OffsetLogPredictiveDensity(m, [][]float64{theta}, X, off, y)
	var sum float64
	for _, v := range lp {
		sum += v
	}
	if !(lpd < 0) || math.Abs(lpd-sum/float64(len(lp))) > 1e-12 {
		t.Errorf("OffsetLogPredictiveDensity of one draw = %g, want the mean log density %g", lpd, sum/float64(len(lp)))
	}
	r := newGLM(t, model.Robust, X, y, nil, model.GLMOptions{Nu: 4})
	if v := r.NoiseVar([]float64{0, 0, 0, 0}); math.Abs(v-2) > 1e-12 {
		t.Errorf("Robust NoiseVar with σ = 1, ν = 4: %g, want 2", v)
	}
}
