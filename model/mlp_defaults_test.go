package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// TestMLPDefaultsGradient: the fan-in prior, the standardised response and
// the learned noise of MLPDefaults keep the gradient exact (central finite
// differences), for the three likelihoods.
func TestMLPDefaultsGradient(t *testing.T) {
	t.Parallel()
	for k, lik := range []model.Likelihood{model.LikGaussian, model.LikBernoulli, model.LikCategorical} {
		X, y := mlpData(uint64(k+11), 200, 3, lik, 3)
		if lik == model.LikGaussian {
			for i := range y {
				y[i] = 40 + 7*y[i] // far from standardised
			}
		}
		m := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{6, 4}, Activation: model.Tanh, Likelihood: lik, Classes: 3}))
		theta := make([]float64, m.Dim())
		m.SamplePrior(theta, rand.New(rand.NewPCG(uint64(k), 5)))
		for _, batch := range [][]int{{3, 17, 3, 150}, nil} {
			if err := langevin.CheckGradient(m, theta, batch, 1e-6); err != nil {
				t.Errorf("%v, batch %v: %v", lik, batch, err)
			}
		}
	}
}

// TestMLPStandardizeY: with StandardizeY the model is the same network in
// other units: its log-likelihood is that of the unstandardised network at
// the matching parameters (output layer and σ² scaled by s_y, bias shifted
// by ȳ), and its predictions and σ² are in y's units.
func TestMLPStandardizeY(t *testing.T) {
	t.Parallel()
	X, y := mlpData(3, 100, 2, model.LikGaussian, 2)
	for i := range y {
		y[i] = 10 + 5*y[i]
	}
	var mean, sd float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for _, v := range y {
		sd += (v - mean) * (v - mean) / float64(len(y))
	}
	sd = math.Sqrt(sd)
	opt := model.MLPOptions{Hidden: []int{3}, Activation: model.Tanh, LearnNoise: true}
	ms := mustMLP(t, X, y, model.MLPOptions{Hidden: opt.Hidden, Activation: opt.Activation, LearnNoise: true, StandardizeY: true})
	mr := mustMLP(t, X, y, opt)
	th := make([]float64, ms.Dim())
	ms.SamplePrior(th, rand.New(rand.NewPCG(2, 2)))
	raw := append([]float64(nil), th...)
	// Layer 2: w.2.1.1..3, b.2.1, then log_sigma2.
	for j := 3*2 + 3; j < 3*2+3+3; j++ {
		raw[j] *= sd
	}
	raw[12] = mean + sd*th[12]
	raw[13] = th[13] + 2*math.Log(sd)
	if a, b := ms.LogLik(th, nil, nil), mr.LogLik(raw, nil, nil); math.Abs(a-b) > 1e-9*math.Abs(b) {
		t.Errorf("LogLik standardised %v, raw %v", a, b)
	}
	if a, b := ms.NoiseVar(th), mr.NoiseVar(raw); math.Abs(a-b) > 1e-12*b {
		t.Errorf("NoiseVar %v, want %v", a, b)
	}
	got, want := make([]float64, 100), make([]float64, 100)
	ms.RegressionMean(th, X, got)
	mr.RegressionMean(raw, X, want)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("row %d: mean %v, want %v", i, got[i], want[i])
		}
	}
	fv := make([]float64, 100)
	ms.FunctionValues(th, X, fv)
	if fv[7] != got[7] {
		t.Errorf("FunctionValues %v, RegressionMean %v", fv[7], got[7])
	}
	if _, err := model.NewMLP(X, make([]float64, 100), model.MLPOptions{StandardizeY: true}); err == nil {
		t.Error("constant responses standardised: no error")
	}
}

// TestMLPFanIn: the fan-in prior's sd of layer l's weights is s/√inₗ, its
// biases' s; FanInInit is random (never θ = 0) with weights of sd √(2/in)
// for ReLU.
func TestMLPFanIn(t *testing.T) {
	t.Parallel()
	X := mat.NewDense(5, 4, nil)
	y := []float64{0, 1, 0, 1, 1}
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{400}, Likelihood: model.LikBernoulli, FanIn: true, PriorScale: []float64{2}})
	sd := make([]float64, m.Dim())
	m.PriorSDs(sd)
	// w.1 (400×4), b.1 (400), w.2 (1×400), b.2.
	for _, c := range []struct {
		j    int
		want float64
	}{{0, 1}, {1600, 2}, {2000, 0.1}, {2400, 2}} {
		if math.Abs(sd[c.j]-c.want) > 1e-12 {
			t.Errorf("prior sd of %s = %v, want %v", m.ParamNames()[c.j], sd[c.j], c.want)
		}
	}
	theta := make([]float64, m.Dim())
	m.FanInInit(theta, rand.New(rand.NewPCG(1, 1)))
	var ss float64
	for _, v := range theta[:1600] {
		ss += v * v
	}
	if v := ss / 1600; math.Abs(v-0.5) > 0.05 { // 2/in = 0.5, sd of the estimate 0.5·√(2/1600) ≈ 0.018
		t.Errorf("FanInInit: variance of the first layer's weights %v, want 0.5 (He)", v)
	}
	g := m.Groups()
	if g[0] != 0 || g[1600] != 1 || g[2000] != 2 || g[2400] != 3 {
		t.Errorf("groups %v %v %v %v", g[0], g[1600], g[2000], g[2400])
	}
}

// TestMLPFanInInitNoise: with the defaults, a start puts σ² at the
// response's variance whatever NoiseVar (10⁻⁸ or 10⁸ would leave the MAP
// search far from any sensible mode), and NoiseVar is in y's units.
func TestMLPFanInInitNoise(t *testing.T) {
	t.Parallel()
	X, y := mlpData(4, 50, 2, model.LikGaussian, 2)
	for _, nv := range []float64{1e-8, 1, 1e8} {
		m := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{3}, NoiseVar: nv}))
		th := make([]float64, m.Dim())
		m.FanInInit(th, rand.New(rand.NewPCG(1, 1)))
		if g := th[m.Dim()-1]; g != 0 {
			t.Errorf("NoiseVar %v: start log σ² %v, want 0 (σ² = var y)", nv, g)
		}
		fixed := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{3}, NoiseVar: nv, StandardizeY: true})
		if got := fixed.NoiseVar(th[:fixed.Dim()]); math.Abs(got-nv) > 1e-9*nv {
			t.Errorf("fixed NoiseVar %v: NoiseVar() = %v, want it in y's units", nv, got)
		}
	}
}

// TestMLPScaleShape: the hierarchical prior (ScaleShape) is the Gaussian
// prior with each group's precision τ ~ Gamma(a, a) integrated out: its
// LogPrior equals the numerical integral over τ, group by group, of the
// fixed prior at scale σ₀/√τ; its gradient is exact (finite differences);
// SamplePrior draws the output bias (a group of one) from the Student-t
// with 2a degrees of freedom.
func TestMLPScaleShape(t *testing.T) {
	t.Parallel()
	X, y := mlpData(5, 30, 1, model.LikGaussian, 1)
	const a = 1.5
	opt := model.MLPOptions{Hidden: []int{2}, Activation: model.Tanh, FanIn: true, PriorScale: []float64{0.7, 1.3}, ScaleShape: a}
	mh := mustMLP(t, X, y, opt)
	theta := []float64{0.3, -1.1, 0.4, 0.2, 0.9, -0.5, 0.25}
	// Groups: w.1 (2, σ₀ 0.7/√1), b.1 (2, 0.7), w.2 (2, 1.3/√2), b.2 (1, 1.3).
	groups := []struct {
		lo, hi int
		s0     float64
	}{{0, 2, 0.7}, {2, 4, 0.7}, {4, 6, 1.3 / math.Sqrt2}, {6, 7, 1.3}}
	var want float64
	for _, g := range groups {
		// ∫ Gamma(τ; a, a) Πⱼ N(wⱼ; 0, σ₀²/τ) dτ on a log grid of τ.
		var sum float64
		const lo, hi, n = -25.0, 12.0, 40000
		h := (hi - lo) / n
		for i := 0; i <= n; i++ {
			u := lo + float64(i)*h
			tau := math.Exp(u)
			lgA, _ := math.Lgamma(a)
			lp := a*math.Log(a) - lgA + (a-1)*math.Log(tau) - a*tau + u // dτ = τ du
			for _, w := range theta[g.lo:g.hi] {
				v := g.s0 * g.s0 / tau
				lp += -0.5*math.Log(2*math.Pi*v) - w*w/(2*v)
			}
			wt := 1.0
			if i == 0 || i == n {
				wt = 0.5
			}
			sum += wt * math.Exp(lp) * h
		}
		want += math.Log(sum)
	}
	if got := mh.LogPrior(theta, nil); math.Abs(got-want) > 1e-7 {
		t.Errorf("LogPrior %v, numerical integral over the groups' precisions %v", got, want)
	}
	mg := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{5, 3}, Activation: model.Tanh, Likelihood: model.LikGaussian, ScaleShape: 1}))
	th := make([]float64, mg.Dim())
	mg.SamplePrior(th, rand.New(rand.NewPCG(1, 2)))
	if err := langevin.CheckGradient(mg, th, nil, 1e-6); err != nil {
		t.Error(err)
	}
	// The output bias b.2 (σ₀ = 1.3): b/σ₀ ~ t(2a); P(|t₃| < 1) = 0.6090.
	rng := rand.New(rand.NewPCG(3, 3))
	in, nd := 0, 20000
	for i := 0; i < nd; i++ {
		mh.SamplePrior(th[:7], rng)
		if math.Abs(th[6]/1.3) < 1 {
			in++
		}
	}
	if p := float64(in) / float64(nd); math.Abs(p-0.6090) > 4*math.Sqrt(0.609*0.391/float64(nd)) {
		t.Errorf("P(|b.2/σ₀| < 1) = %.4f from SamplePrior, want 0.6090 (t with %g degrees of freedom)", p, 2*a)
	}
}

// TestMLPDefaultsPriorScale: MLPDefaults gives a regression network the
// prior scale RegressionPriorScale = 2 (weights 2/√fan-in, biases 2), its
// output layer RegressionOutputScale = 4 unless heteroscedastic, and a
// classifier 1 with 3 on the output layer; a scale that is set is kept; the
// prior is printed with its reason.
func TestMLPDefaultsPriorScale(t *testing.T) {
	X, y := mlpData(1, 20, 4, model.LikGaussian, 2)
	m := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{16}, Likelihood: model.LikGaussian}))
	sd := make([]float64, m.Dim())
	m.PriorSDs(sd)
	// w.1 (16×4), b.1 (16), w.2 (1×16), b.2.
	for _, c := range []struct {
		j    int
		want float64
	}{{0, 1}, {64, 2}, {80, 1}, {96, 4}} {
		if math.Abs(sd[c.j]-c.want) > 1e-12 {
			t.Errorf("regression: prior sd of %s = %v, want %v", m.ParamNames()[c.j], sd[c.j], c.want)
		}
	}
	if s := m.PriorString(); !strings.Contains(s, "s = 2, 4 by layer") || !strings.Contains(s, "validation") {
		t.Errorf("PriorString %q", s)
	}
	// The heteroscedastic network keeps 2 on its output layer (the variance head's prior).
	mh := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{16}, Likelihood: model.LikGaussian, Hetero: true}))
	sdh := make([]float64, mh.Dim())
	mh.PriorSDs(sdh)
	if sdh[80] != 0.5 || sdh[len(sdh)-1] != 2 {
		t.Errorf("heteroscedastic: output prior sds %v, %v, want 0.5, 2", sdh[80], sdh[len(sdh)-1])
	}
	Xc, yc := mlpData(1, 20, 4, model.LikBernoulli, 2)
	mc := mustMLP(t, Xc, yc, model.MLPDefaults(model.MLPOptions{Hidden: []int{16}, Likelihood: model.LikBernoulli}))
	mc.PriorSDs(sd[:mc.Dim()])
	if sd[0] != 0.5 || sd[64] != 1 || sd[80] != 3/4.0 || sd[96] != 3 {
		t.Errorf("classifier: prior sds %v %v %v %v, want 0.5 1 0.75 3", sd[0], sd[64], sd[80], sd[96])
	}
	mk := mustMLP(t, X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{16}, Likelihood: model.LikGaussian, PriorScale: []float64{1}}))
	mk.PriorSDs(sd)
	if sd[64] != 1 {
		t.Errorf("PriorScale 1 set: bias sd %v, want 1 kept", sd[64])
	}
}
