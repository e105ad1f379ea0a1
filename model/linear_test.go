package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

type linearCase struct {
	name string
	opt  model.LinearOptions
}

var linearCases = []linearCase{
	{"default", model.LinearOptions{}},
	{"prior", model.LinearOptions{Mu: []float64{1, -0.5, 0.2, 2}, V: 2.5, Phi: 3, Psi: 0.7}},
	{"tight", model.LinearOptions{Mu: []float64{0.3, 0.1, -2, 1}, V: 0.01, Phi: 0.5, Psi: 4}},
	{"no-intercept", model.LinearOptions{NoIntercept: true, V: 0.5, Phi: 0.5, Psi: 2}},
	{"flat", model.LinearOptions{Flat: true}},
	{"flat/no-intercept", model.LinearOptions{Flat: true, NoIntercept: true}},
}

// withOnes returns X with a leading column of ones.
func withOnes(X *mat.Dense) *mat.Dense {
	n, p := X.Dims()
	a := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		a.Set(i, 0, 1)
		for j := 0; j < p; j++ {
			a.Set(i, j+1, X.At(i, j))
		}
	}
	return a
}

// TestLinearPosteriorDensity checks μₙ, Vₙ, φₙ, ψₙ and the evidence exactly:
// log p(w) + log p(y|w) − log p(w|y) must equal LogEvidence at every w.
func TestLinearPosteriorDensity(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(11, 200, 3)
	for _, c := range linearCases {
		m := mustLinear(t, X, y, c.opt)
		post := m.Posterior()
		ev := post.LogEvidence()
		rng := rand.New(rand.NewPCG(5, 5))
		w := make([]float64, m.Dim())
		for k := 0; k < 50; k++ {
			for j := range w {
				w[j] = 2 * rng.NormFloat64()
			}
			w[len(w)-1] = -2 + 4*rng.Float64()
			joint := langevin.LogPosterior(m, w, nil)
			if got := joint - post.LogDensity(w); math.Abs(got-ev) > 1e-9*math.Max(1, math.Abs(joint)) {
				t.Errorf("%s: joint − posterior = %.12g at w = %v, want LogEvidence %.12g", c.name, got, w, ev)
			}
		}
	}
}

// TestLinearEvidence checks LogEvidence against the multivariate Student-t
// marginal of y, y ~ t_{2φ}(Xμ, (ψ/φ)(I + X V Xᵀ)), computed by gonum.
func TestLinearEvidence(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(12, 60, 3)
	for _, c := range linearCases {
		if c.opt.Flat {
			continue
		}
		m := mustLinear(t, X, y, c.opt)
		xd := X
		if !c.opt.NoIntercept {
			xd = withOnes(X)
		}
		n, d := xd.Dims()
		mu := c.opt.Mu
		if mu == nil {
			mu = make([]float64, d)
		}
		v, phi, psi := orDefault(c.opt.V, 100), orDefault(c.opt.Phi, 1), orDefault(c.opt.Psi, 1)
		var loc mat.VecDense
		loc.MulVec(xd, mat.NewVecDense(d, mu))
		var xxt mat.SymDense
		xxt.SymOuterK(v, xd)
		sigma := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				s := xxt.At(i, j)
				if i == j {
					s++
				}
				sigma.SetSym(i, j, psi/phi*s)
			}
		}
		st, ok := distmv.NewStudentsT(loc.RawVector().Data, sigma, 2*phi, nil)
		if !ok {
			t.Fatalf("%s: Student-t covariance not positive definite", c.name)
		}
		want := st.LogProb(y)
		if got := m.Posterior().LogEvidence(); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: LogEvidence %.12g, Student-t marginal %.12g", c.name, got, want)
		}
	}
}

func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// TestLinearModes checks the MLE against least squares by QR and the MAP by
// its zero gradient and by being a maximum.
func TestLinearModes(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(13, 200, 3)
	for _, c := range linearCases {
		m := mustLinear(t, X, y, c.opt)
		post := m.Posterior()
		xd := X
		if !c.opt.NoIntercept {
			xd = withOnes(X)
		}
		n, d := xd.Dims()

		// MLE: least squares by QR, σ̂² = RSS/n.
		var ols mat.VecDense
		if err := ols.SolveVec(xd, mat.NewVecDense(n, y)); err != nil {
			t.Fatal(err)
		}
		var fit mat.VecDense
		fit.MulVec(xd, &ols)
		var rss float64
		for i := range y {
			r := y[i] - fit.AtVec(i)
			rss += r * r
		}
		mle := post.MLE()
		if !floats.EqualApprox(mle[:d], ols.RawVector().Data, 1e-10) {
			t.Errorf("%s: MLE β %v, least squares %v", c.name, mle[:d], ols.RawVector().Data)
		}
		if math.Abs(post.Sigma2Hat-rss/float64(n)) > 1e-12*rss || math.Abs(math.Exp(mle[d])-post.Sigma2Hat) > 1e-12 {
			t.Errorf("%s: σ̂² = %v, RSS/n = %v", c.name, post.Sigma2Hat, rss/float64(n))
		}
		g := make([]float64, m.Dim())
		m.LogLik(mle, nil, g)
		if floats.Norm(g, math.Inf(1)) > 1e-8 {
			t.Errorf("%s: likelihood gradient at the MLE %v", c.name, g)
		}

		// MAP: zero gradient of the log density in w and a local maximum.
		mp := post.MAP()
		f0 := langevin.LogPosterior(m, mp, g)
		if floats.Norm(g, math.Inf(1)) > 1e-8 {
			t.Errorf("%s: posterior gradient at the MAP %v", c.name, g)
		}
		rng := rand.New(rand.NewPCG(9, 9))
		w := make([]float64, len(mp))
		for k := 0; k < 20; k++ {
			for j := range w {
				w[j] = mp[j] + 1e-3*rng.NormFloat64()
			}
			if f := langevin.LogPosterior(m, w, nil); f >= f0 {
				t.Errorf("%s: log posterior %v at %v exceeds %v at the MAP", c.name, f, w, f0)
			}
		}
		if c.opt.Flat && !floats.EqualApprox(mp, mle, 1e-12) {
			t.Errorf("%s: flat-prior MAP %v differs from the MLE %v", c.name, mp, mle)
		}
		// σ²_MAP = ψₙ/(φ + n/2 + d/2) for the proper prior.
		if !c.opt.Flat {
			want := post.Psi / (orDefault(c.opt.Phi, 1) + float64(n)/2 + float64(d)/2)
			if math.Abs(math.Exp(mp[d])-want) > 1e-12*want {
				t.Errorf("%s: σ²_MAP = %v, want %v", c.name, math.Exp(mp[d]), want)
			}
		}
	}
}

// TestLinearPosteriorAlgebra checks the stated forms of the posterior
// parameters against a direct computation.
func TestLinearPosteriorAlgebra(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(14, 100, 3)
	c := linearCases[1]
	m := mustLinear(t, X, y, c.opt)
	post := m.Posterior()
	xd := withOnes(X)
	n, d := xd.Dims()
	vinv := 1 / c.opt.V
	var lam mat.Dense
	lam.Mul(xd.T(), xd)
	for j := 0; j < d; j++ {
		lam.Set(j, j, lam.At(j, j)+vinv)
	}
	var vn mat.Dense
	if err := vn.Inverse(&lam); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(&vn, post.V, 1e-12) {
		t.Errorf("Vₙ = %v, want %v", mat.Formatted(post.V), mat.Formatted(&vn))
	}
	b := mat.NewVecDense(d, nil)
	b.MulVec(xd.T(), mat.NewVecDense(n, y))
	mu := mat.NewVecDense(d, c.opt.Mu)
	b.AddScaledVec(b, vinv, mu)
	var mun mat.VecDense
	mun.MulVec(&vn, b)
	if !floats.EqualApprox(mun.RawVector().Data, post.Mu, 1e-10) {
		t.Errorf("μₙ = %v, want %v", post.Mu, mun.RawVector().Data)
	}
	if want := c.opt.Phi + float64(n)/2; post.Phi != want {
		t.Errorf("φₙ = %v, want %v", post.Phi, want)
	}
	yy := floats.Dot(y, y)
	want := c.opt.Psi + 0.5*(yy+vinv*mat.Dot(mu, mu)-mat.Inner(&mun, &lam, &mun))
	if math.Abs(post.Psi-want) > 1e-9*want {
		t.Errorf("ψₙ = %.12g, want %.12g", post.Psi, want)
	}
}

// TestLinearMarginals checks the Student-t, inverse-gamma and log σ²
// marginals against numerical integration of the joint posterior density
// (d = 2, no intercept), and their moments against quadrature of the
// marginal densities.
func TestLinearMarginals(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(15, 30, 2)
	for _, c := range []linearCase{
		{"prior", model.LinearOptions{NoIntercept: true, Mu: []float64{0.5, -1}, V: 0.3, Phi: 2, Psi: 1.5}},
		{"flat", model.LinearOptions{NoIntercept: true, Flat: true}},
	} {
		m := mustLinear(t, X, y, c.opt)
		post := m.Posterior()
		mean, sd := post.Mean(), post.SD()

		// Moments of the marginal densities by quadrature.
		for j := 0; j < 2; j++ {
			f := func(x float64) float64 { return post.BetaPDF(j, x) }
			checkMoments(t, c.name+" β", f, mean[j]-40*sd[j], mean[j]+40*sd[j], mean[j], sd[j], 1e-6)
		}
		lo, hi := post.LogSigma2Mean()-30*post.LogSigma2SD(), post.LogSigma2Mean()+30*post.LogSigma2SD()
		checkMoments(t, c.name+" log σ²", post.LogSigma2PDF, lo, hi, mean[2], sd[2], 1e-9)
		// σ² = e^g: integrate h(σ²) p(σ²) dσ² as h(e^g) p(e^g) e^g dg.
		s2 := func(h func(float64) float64) float64 {
			return quadFixed(func(g float64) float64 { x := math.Exp(g); return h(x) * post.Sigma2PDF(x) * x }, lo, hi, 200)
		}
		m0, m1 := s2(func(float64) float64 { return 1 }), s2(func(x float64) float64 { return x })
		m2 := s2(func(x float64) float64 { return (x - m1) * (x - m1) })
		if math.Abs(m0-1) > 1e-9 || math.Abs(m1-post.Sigma2Mean()) > 1e-9*m1 || math.Abs(math.Sqrt(m2)-post.Sigma2SD()) > 1e-8*m1 {
			t.Errorf("%s σ²: mass, mean, sd by quadrature %v, %v, %v; closed form mean %v, sd %v", c.name, m0, m1, math.Sqrt(m2), post.Sigma2Mean(), post.Sigma2SD())
		}
		if mean[2] != post.LogSigma2Mean() || sd[2] != post.LogSigma2SD() {
			t.Errorf("%s: Mean/SD do not end with the log σ² moments", c.name)
		}

		// Marginals of the joint density in w by integration over the
		// other coordinates.
		joint := func(w []float64) float64 { return math.Exp(post.LogDensity(w)) }
		gLo, gHi := post.LogSigma2Mean()-12*post.LogSigma2SD(), post.LogSigma2Mean()+12*post.LogSigma2SD()
		for _, z := range []float64{-1.5, 0, 0.7, 2} {
			// β₀ at mean + z sd.
			x := mean[0] + z*sd[0]
			got := integrate2(func(b1, g float64) float64 { return joint([]float64{x, b1, g}) },
				mean[1]-20*sd[1], mean[1]+20*sd[1], gLo, gHi)
			if want := post.BetaPDF(0, x); math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s: β₀ marginal at %v: integral %.10g, Student-t %.10g", c.name, x, got, want)
			}
			// log σ² at its mean + z sd.
			g := mean[2] + z*sd[2]
			got = integrate2(func(b0, b1 float64) float64 { return joint([]float64{b0, b1, g}) },
				mean[0]-20*sd[0], mean[0]+20*sd[0], mean[1]-20*sd[1], mean[1]+20*sd[1])
			if want := post.LogSigma2PDF(g); math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s: log σ² marginal at %v: integral %.10g, closed form %.10g", c.name, g, got, want)
			}
			if got, want := post.Sigma2PDF(math.Exp(g))*math.Exp(g), post.LogSigma2PDF(g); math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s: σ² density × σ² = %v, log σ² density %v", c.name, got, want)
			}
		}
	}
}

// checkMoments integrates f over [lo, hi] and compares its mass, mean and
// standard deviation.
func checkMoments(t *testing.T, name string, f func(float64) float64, lo, hi, mean, sd, tol float64) {
	t.Helper()
	const n = 200
	m0 := quadFixed(f, lo, hi, n)
	m1 := quadFixed(func(x float64) float64 { return x * f(x) }, lo, hi, n)
	m2 := quadFixed(func(x float64) float64 { return (x - mean) * (x - mean) * f(x) }, lo, hi, n)
	if math.Abs(m0-1) > tol {
		t.Errorf("%s: density integrates to %.12g", name, m0)
	}
	if math.Abs(m1-mean) > tol*math.Max(1, sd) {
		t.Errorf("%s: mean by quadrature %.12g, closed form %.12g", name, m1, mean)
	}
	if s := math.Sqrt(m2); math.Abs(s-sd) > tol*sd*10 {
		t.Errorf("%s: sd by quadrature %.12g, closed form %.12g", name, s, sd)
	}
}

// quadFixed is composite Gauss–Legendre quadrature of f over [lo, hi] with
// k panels.
func quadFixed(f func(float64) float64, lo, hi float64, k int) float64 {
	var s float64
	h := (hi - lo) / float64(k)
	for i := 0; i < k; i++ {
		a := lo + float64(i)*h
		s += quad.Fixed(f, a, a+h, 20, nil, 0)
	}
	return s
}

func integrate2(f func(x, y float64) float64, x0, x1, y0, y1 float64) float64 {
	return quadFixed(func(x float64) float64 {
		return quadFixed(func(y float64) float64 { return f(x, y) }, y0, y1, 20)
	}, x0, x1, 20)
}

// TestLinearPosteriorRand checks exact posterior draws against Mean and SD.
func TestLinearPosteriorRand(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(16, 25, 3)
	m := mustLinear(t, X, y, model.LinearOptions{Mu: []float64{1, 0, 0, 1}, V: 0.5, Phi: 2, Psi: 3})
	post := m.Posterior()
	const n = 100000
	rng := rand.New(rand.NewPCG(17, 17))
	cols := make([][]float64, m.Dim())
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	w := make([]float64, m.Dim())
	for i := 0; i < n; i++ {
		post.Rand(w, rng)
		for j, v := range w {
			cols[j][i] = v
		}
	}
	mean, sd := post.Mean(), post.SD()
	for j := range cols {
		mu, s := stat.MeanStdDev(cols[j], nil)
		// Standard errors of the mean and of the sd (the latter for
		// Student-t marginals with ν ≈ 29, kurtosis near 3).
		if se := sd[j] / math.Sqrt(n); math.Abs(mu-mean[j]) > 5*se {
			t.Errorf("parameter %d: draw mean %v, exact %v (se %v)", j, mu, mean[j], se)
		}
		if se := sd[j] / math.Sqrt(2*n) * 1.5; math.Abs(s-sd[j]) > 5*se {
			t.Errorf("parameter %d: draw sd %v, exact %v (se %v)", j, s, sd[j], se)
		}
	}
	// Covariance of β given the draws of σ²: E[σ²] Vₙ.
	var cov mat.SymDense
	data := mat.NewDense(n, m.Dim(), nil)
	for j := range cols {
		data.SetCol(j, cols[j])
	}
	stat.CovarianceMatrix(&cov, data, nil)
	for i := 0; i < post.D; i++ {
		for j := 0; j < post.D; j++ {
			want := post.Sigma2Mean() * post.V.At(i, j)
			tol := 5 * math.Sqrt(post.Sigma2Mean()*post.V.At(i, i)*post.Sigma2Mean()*post.V.At(j, j)) * math.Sqrt(2.0/n) * 1.5
			if math.Abs(cov.At(i, j)-want) > tol {
				t.Errorf("Cov(β%d, β%d) = %v, want %v ± %v", i, j, cov.At(i, j), want, tol)
			}
		}
	}
}

// TestLinearPredictive checks the Student-t predictive against the ratio of
// evidences p(y, y₀)/p(y), and the predictive helpers against direct sums.
func TestLinearPredictive(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(18, 40, 3)
	for _, c := range linearCases {
		if c.name == "flat/no-intercept" {
			continue
		}
		m := mustLinear(t, X.Slice(0, 39, 0, 3).(*mat.Dense), y[:39], c.opt)
		all := mustLinear(t, X, y, c.opt)
		x0 := mat.Row(nil, 39, X)
		got := m.Posterior().Predictive(x0).LogProb(y[39])
		want := all.Posterior().LogEvidence() - m.Posterior().LogEvidence()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: predictive log density %.12g, evidence ratio %.12g", c.name, got, want)
		}
	}

	m := mustLinear(t, X, y, model.LinearOptions{})
	post := m.Posterior()
	rng := rand.New(rand.NewPCG(19, 19))
	draws := make([][]float64, 50)
	for s := range draws {
		draws[s] = make([]float64, m.Dim()+1) // a derived quantity at the end
		post.Rand(draws[s], rng)
		draws[s][m.Dim()] = 123
	}
	Xt, _, _ := regData(20, 7, 3)
	if got, want := m.NoiseVar(draws[0]), math.Exp(draws[0][4]); got != want {
		t.Errorf("NoiseVar = %v, want %v", got, want)
	}
	rm := make([]float64, 7)
	m.RegressionMean(draws[1], Xt, rm)
	for i := range rm {
		w := draws[1]
		if z := w[0] + w[1]*Xt.At(i, 0) + w[2]*Xt.At(i, 1) + w[3]*Xt.At(i, 2); math.Abs(rm[i]-z) > 1e-12 {
			t.Errorf("RegressionMean[%d] = %v, want %v", i, rm[i], z)
		}
	}
	p := m.Predict(draws[0], Xt, make([]float64, 7))
	for i := range p {
		w := draws[0]
		if z := w[0] + w[1]*Xt.At(i, 0) + w[2]*Xt.At(i, 1) + w[3]*Xt.At(i, 2); math.Abs(p[i]-z) > 1e-12 {
			t.Errorf("Predict[%d] = %v, want %v", i, p[i], z)
		}
	}
}

// TestLinearSamplePrior checks prior draws: E[log σ²] = log ψ − ψ(φ) and
// E[β] = μ.
func TestLinearSamplePrior(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(21, 10, 2)
	opt := model.LinearOptions{Mu: []float64{1, -2, 3}, V: 0.5, Phi: 4, Psi: 2}
	for _, flat := range []bool{false, true} {
		opt.Flat = flat
		m := mustLinear(t, X, y, opt)
		rng := rand.New(rand.NewPCG(22, 22))
		const n = 50000
		sum := make([]float64, m.Dim())
		w := make([]float64, m.Dim())
		for i := 0; i < n; i++ {
			m.SamplePrior(w, rng)
			floats.Add(sum, w)
		}
		floats.Scale(1.0/n, sum)
		// IG(4, 2): E log σ² = log 2 − ψ(4) = log 2 − (1 + 1/2 + 1/3 − γ_E).
		wantG := math.Log(2) - (1 + 0.5 + 1.0/3 - 0.5772156649015329)
		if math.Abs(sum[3]-wantG) > 0.01 {
			t.Errorf("flat=%v: mean log σ² %v, want %v", flat, sum[3], wantG)
		}
		for j := 0; j < 3; j++ {
			if math.Abs(sum[j]-opt.Mu[j]) > 0.02 {
				t.Errorf("flat=%v: mean β%d %v, want %v", flat, j, sum[j], opt.Mu[j])
			}
		}
	}
}
