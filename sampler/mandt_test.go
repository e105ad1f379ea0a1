package sampler_test

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
	"github.com/langevin-go/langevin/sampler"
)

// mandtLinear returns the known-noise Gaussian linear regression (σ² = 1,
// prior precision 1, intercept) on n rows of p standard normal features with
// correlation rho between neighbours, and responses drawn from the model
// with weights drawn from the prior (Mandt et al. 2017, §7.2).
func mandtLinear(n, p int, rho float64, seed uint64) *model.LinearFixedNoise {
	rng := rand.New(rand.NewPCG(seed, 11))
	w := make([]float64, p+1)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	s := math.Sqrt(1 - rho*rho)
	for i := 0; i < n; i++ {
		prev := rng.NormFloat64()
		z := w[0]
		for j := 0; j < p; j++ {
			if j > 0 {
				prev = rho*prev + s*rng.NormFloat64()
			}
			X.Set(i, j, prev)
			z += w[j+1] * prev
		}
		y[i] = z + rng.NormFloat64()
	}
	m, err := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{})
	if err != nil {
		panic(err)
	}
	return m
}

// mandtSetup holds the exact posterior and the gradient covariance at its
// mode.
type mandtSetup struct {
	m    *model.LinearFixedNoise
	lap  *approx.LaplaceApprox
	cov  *mat.SymDense // exact posterior covariance
	V    *mat.SymDense // per-observation gradient covariance at the mode
	n, s int
}

func newMandtSetup(t testing.TB, n, p, s int, rho float64, seed uint64) *mandtSetup {
	m := mandtLinear(n, p, rho, seed)
	lap, err := approx.Laplace(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, cov := m.Posterior()
	V := mat.NewSymDense(m.Dim(), nil)
	if err := sampler.GradCov(m, lap.Mean, V); err != nil {
		t.Fatal(err)
	}
	return &mandtSetup{m: m, lap: lap, cov: cov, V: V, n: n, s: s}
}

// mandtCovCheck runs a chain from the mode for burn + n steps and compares the
// iterates' covariance with want. It returns the largest relative error of a
// variance or of a covariance (in units of √(ΣᵢᵢΣⱼⱼ)) and the largest Monte Carlo error (4 relative standard errors of a
// variance, from the ESS of the squared deviations).
func mandtCovCheck(m langevin.Model, s langevin.Sampler, theta0 []float64, want mat.Symmetric, burn, n int, seed uint64) (worst, mcse float64, err error) {
	ch, err := s.NewChain(m, theta0, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return 0, 0, err
	}
	d := m.Dim()
	for i := 0; i < burn; i++ {
		if err := ch.Step(); err != nil {
			return 0, 0, err
		}
	}
	xs := make([][]float64, d)
	for j := range xs {
		xs[j] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		if err := ch.Step(); err != nil {
			return 0, 0, err
		}
		for j, v := range ch.Position() {
			xs[j][i] = v
		}
	}
	means := make([]float64, d)
	for j := 0; j < d; j++ {
		var mean float64
		for _, v := range xs[j] {
			mean += v
		}
		mean /= float64(n)
		means[j] = mean
		sq := make([]float64, n)
		var v float64
		for i, x := range xs[j] {
			sq[i] = (x - mean) * (x - mean)
			v += sq[i]
		}
		v /= float64(n)
		ess := diag.ESSBasic([][]float64{sq})
		mcse = max(mcse, 4*math.Sqrt(2/ess))
		rel := v/want.At(j, j) - 1
		if math.Abs(rel) > math.Abs(worst) {
			worst = rel
		}
	}
	// Off-diagonal entries, in units of √(Σᵢᵢ Σⱼⱼ): an error there counts
	// like a relative error of a variance.
	for a := 0; a < d; a++ {
		for b := a + 1; b < d; b++ {
			var c float64
			for i := range xs[a] {
				c += (xs[a][i] - means[a]) * (xs[b][i] - means[b])
			}
			c /= float64(n)
			off := (c - want.At(a, b)) / math.Sqrt(want.At(a, a)*want.At(b, b))
			if math.Abs(off) > math.Abs(worst) {
				worst = off
			}
		}
	}
	return worst, mcse, nil
}

// expectCov asserts that the largest relative covariance error is within tol
// and that tol is at least 4 Monte Carlo standard errors.
func expectCov(t *testing.T, what string, worst, mcse float64, err error, tol float64) {
	t.Helper()
	switch {
	case err != nil:
		t.Errorf("%s: %v", what, err)
	case mcse > tol:
		t.Errorf("%s: Monte Carlo error (4 s.e. = %.3f) exceeds the tolerance %.2f: run longer", what, mcse, tol)
	case math.Abs(worst) > tol:
		t.Errorf("%s: largest relative covariance error %+.3f, tolerance %.2f (4 s.e. %.3f)", what, worst, tol, mcse)
	default:
		t.Logf("%s: largest relative covariance error %+.3f, tolerance %.2f (4 s.e. %.3f)", what, worst, tol, mcse)
	}
}

// expectCovFails asserts that a deliberately wrong variant misses the
// tolerance by more than its Monte Carlo error (on the log scale, where a
// relative standard error is an additive one).
func expectCovFails(t *testing.T, what string, worst, mcse float64, err error, tol float64) {
	t.Helper()
	switch {
	case err != nil:
		t.Logf("%s: fails with %v", what, err)
	case worst > -1 && math.Abs(math.Log1p(worst)) <= math.Log1p(tol)+mcse:
		t.Errorf("%s passed the check: largest relative covariance error %+.3f, tolerance %.2f (4 s.e. %.3f)", what, worst, tol, mcse)
	default:
		t.Logf("%s: largest relative covariance error %+.3f fails the tolerance %.2f (4 s.e. %.3f)", what, worst, tol, mcse)
	}
}

// noiseCovOfGhat returns Cov(ĝ) = (N²/S)·V.
func (ms *mandtSetup) noiseCovOfGhat() *mat.SymDense {
	c := mat.NewSymDense(ms.V.SymmetricDim(), nil)
	nf := float64(ms.n)
	c.ScaleSym(nf*nf/float64(ms.s), ms.V)
	return c
}

// lyapunov returns the eq. 13 prediction for step η: ΛΣ + ΣΛ = η Cov(ĝ).
func (ms *mandtSetup) lyapunov(t testing.TB, eta float64) *mat.SymDense {
	q := ms.noiseCovOfGhat()
	q.ScaleSym(eta, q)
	sig, err := approx.SolveLyapunov(ms.lap.Prec, q)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// Acceptance: constant SGD's iterate covariance matches the Lyapunov
// prediction (eq. 13) within 10% on the diagonal, at the optimal rate ε*.
func TestConstSGDMatchesLyapunov(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	ms := newMandtSetup(t, 1000, 2, 10, 0.6, 1)
	eta := sampler.OptimalStep(ms.V, ms.n, ms.s)
	want := ms.lyapunov(t, eta)
	mb := sampler.Minibatch{Size: ms.s, Replace: true}
	s := sampler.ConstSGD{Eta: eta, Batch: mb}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, want, 2000, 600_000, 2)
	expectCov(t, "constant SGD at η*", w, e, err, 0.10)
	// The check fails on wrong variants: the likelihood gradient scaled by 1
	// instead of N/|B|, and a step off by a factor 2 (the ε = 2η slip).
	w, e, err = mandtCovCheck(scaledLik{ms.m, float64(ms.s) / float64(ms.n)}, s, ms.lap.Mean, want, 2000, 600_000, 2)
	expectCovFails(t, "scale 1 instead of N/|B|", w, e, err, 0.10)
	s2 := s
	s2.Eta = 2 * eta
	w, e, err = mandtCovCheck(ms.m, s2, ms.lap.Mean, want, 2000, 600_000, 2)
	expectCovFails(t, "step 2η", w, e, err, 0.10)
}

// Momentum: only η/μ matters (eq. 25): with μ = 0.25 and step μη* the
// stationary covariance is the Lyapunov prediction at η*.
func TestConstSGDMomentumMatchesLyapunov(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	ms := newMandtSetup(t, 1000, 2, 10, 0.6, 1)
	eta := sampler.OptimalStep(ms.V, ms.n, ms.s)
	want := ms.lyapunov(t, eta)
	const mu = 0.25
	s := sampler.ConstSGD{Eta: mu * eta, Momentum: mu, Batch: sampler.Minibatch{Size: ms.s, Replace: true}}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, want, 2000, 600_000, 3)
	expectCov(t, "momentum μ = 0.25, step μη*", w, e, err, 0.10)
	s.Eta = eta
	w, e, err = mandtCovCheck(ms.m, s, ms.lap.Mean, want, 2000, 600_000, 3)
	expectCovFails(t, "momentum with step η* (η/μ four times too large)", w, e, err, 0.10)
}

// Acceptance (Corollary 4): the full preconditioner M = 2 Cov(ĝ)⁻¹ makes
// constant SGD's stationary covariance the exact posterior's, within 15%.
func TestConstSGDFullRecoversPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	ms := newMandtSetup(t, 1000, 2, 10, 0.6, 4)
	full, err := sampler.OptimalFull(ms.V, ms.n, ms.s)
	if err != nil {
		t.Fatal(err)
	}
	mb := sampler.Minibatch{Size: ms.s, Replace: true}
	s := sampler.ConstSGD{Eta: 1, Batch: mb, PrecondFull: full}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, ms.cov, 2000, 300_000, 5)
	expectCov(t, "constant SGD-f", w, e, err, 0.15)
	// Wrong variants: H without the factor 2, and scale 1 instead of N/|B|.
	half := mat.NewSymDense(full.SymmetricDim(), nil)
	half.ScaleSym(0.5, full)
	bad := s
	bad.PrecondFull = half
	w, e, err = mandtCovCheck(ms.m, bad, ms.lap.Mean, ms.cov, 2000, 600_000, 5)
	expectCovFails(t, "preconditioner (S/N²)V⁻¹", w, e, err, 0.15)
	w, e, err = mandtCovCheck(scaledLik{ms.m, float64(ms.s) / float64(ms.n)}, s, ms.lap.Mean, ms.cov, 2000, 300_000, 5)
	expectCovFails(t, "scale 1 instead of N/|B|", w, e, err, 0.15)
}

// Acceptance (Theorem 5): SGFS-f at a non-vanishing ε (ε = 2: two thirds
// of the noise injected) has the posterior's stationary covariance within
// 15%.
func TestSGFSFullRecoversPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	ms := newMandtSetup(t, 1000, 2, 10, 0.6, 6)
	mb := sampler.Minibatch{Size: ms.s, Replace: true}
	s := sampler.SGFS{Batch: mb, GradCov: ms.V, Eps: 2}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, ms.cov, 2000, 600_000, 7)
	expectCov(t, "SGFS-f, ε = 2", w, e, err, 0.15)
	// Wrong variant: the gradient noise underestimated by a factor 2 (Cov(ĝ)
	// taken as (N²/2S)·V): M = (4/3)C⁻¹ while the noise is 2C, so the
	// variances are 4/3 too large.
	wrong := mat.NewSymDense(ms.V.SymmetricDim(), nil)
	wrong.ScaleSym(0.5, ms.V)
	bad := s
	bad.GradCov = wrong
	w, e, err = mandtCovCheck(ms.m, bad, ms.lap.Mean, ms.cov, 2000, 600_000, 7)
	expectCovFails(t, "SGFS with the noise covariance halved", w, e, err, 0.15)
}

// Acceptance (§7.2): IASG's marginal variances on linear regression with
// N = 10,000, D = 10, N(0, I) covariates, prior precision 1 and weights from
// the prior lie within 15% of the exact posterior's.
func TestIASGMarginalVariances(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	ms := newMandtSetup(t, 10_000, 9, 10, 0, 8)
	var eig mat.EigenSym
	eig.Factorize(ms.lap.Prec, false)
	vals := eig.Values(nil)
	eta := 0.05 / vals[len(vals)-1] // η λ_max = 0.05
	s := sampler.IASG{Eta: eta, Batch: sampler.Minibatch{Size: ms.s}}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, ms.cov, 5, 2500, 9)
	expectCov(t, "IASG, window N/S", w, e, err, 0.15)
	// Wrong variants: the raw iterates (window 1), and a window of N/(2S).
	raw := s
	raw.Window = 1
	w, e, err = mandtCovCheck(ms.m, raw, ms.lap.Mean, ms.cov, 1000, 20000, 9)
	expectCovFails(t, "raw constant-SGD iterates", w, e, err, 0.15)
	short := s
	short.Window = ms.n / ms.s / 2
	w, e, err = mandtCovCheck(ms.m, short, ms.lap.Mean, ms.cov, 5, 2500, 9)
	expectCovFails(t, "window N/(2S)", w, e, err, 0.15)
}

// discreteLyapunovScalar returns the exact stationary covariance of
// θ ← θ + m(−Λ(θ − θ̂) + noise), Cov(noise) = Q: Σ = (I − mΛ)Σ(I − mΛ) + m²Q,
// solved in Λ's eigenbasis: Σ̃ᵢⱼ = m Q̃ᵢⱼ/(λᵢ + λⱼ − mλᵢλⱼ).
func discreteLyapunovScalar(t testing.TB, prec, Q mat.Symmetric, m float64) *mat.SymDense {
	var eig mat.EigenSym
	if !eig.Factorize(prec, true) {
		t.Fatal("eigendecomposition failed")
	}
	lam := eig.Values(nil)
	var u, qt, tmp mat.Dense
	eig.VectorsTo(&u)
	tmp.Mul(Q, &u)
	qt.Mul(u.T(), &tmp)
	d := len(lam)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			qt.Set(i, j, m*qt.At(i, j)/(lam[i]+lam[j]-m*lam[i]*lam[j]))
		}
	}
	tmp.Mul(&u, &qt)
	var sig mat.Dense
	sig.Mul(&tmp, u.T())
	out := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			out.SetSym(i, j, (sig.At(i, j)+sig.At(j, i))/2)
		}
	}
	return out
}

// Mandt et al. (2017) Corollary 6, scalar SGFS: on a 4-parameter correlated
// Gaussian linear regression (ε = 2, S = 100 with replacement) (a) the
// scalar m = 2D/Tr(C + E) is the numeric minimiser of KL(q(m) ‖ p) with q
// the eq. 13 stationary Gaussian of ΛΣ + ΣΛ = m(C + E), to 1e-6; (b) the
// chain's covariance matches the exact stationary covariance
// Σ = (I − mΛ)Σ(I − mΛ) + m²(C + E) within 10% (4 MCSE below that). The
// gradient covariance halved (m doubled, E halved) and the likelihood
// scaled by 1 instead of N/|B| fail (b).
func TestSGFSScalarCorollary6(t *testing.T) {
	ms := newMandtSetup(t, 1000, 3, 100, 0.6, 31)
	const eps = 2.0
	d := ms.m.Dim()
	m := sampler.SGFSScalarStep(ms.V, ms.n, ms.s, eps)
	CE := ms.noiseCovOfGhat()
	CE.ScaleSym(1+4/eps, CE) // C + E, E = (4/ε)C
	var cl mat.Cholesky
	cl.Factorize(ms.lap.Prec)
	post := mat.NewSymDense(d, nil)
	if err := cl.InverseTo(post); err != nil {
		t.Fatal(err)
	}
	kl := func(mm float64) float64 { // KL(q ‖ p), q from eq. 13
		q := mat.NewSymDense(d, nil)
		q.ScaleSym(mm, CE)
		sig, err := approx.SolveLyapunov(ms.lap.Prec, q)
		if err != nil {
			t.Fatal(err)
		}
		var cs mat.Cholesky
		cs.Factorize(sig)
		var tr float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				tr += ms.lap.Prec.At(i, j) * sig.At(j, i)
			}
		}
		return 0.5 * (tr - float64(d) - cs.LogDet() - cl.LogDet())
	}
	// Golden-section search on log m.
	a, b := math.Log(m/100), math.Log(m*100)
	g := (math.Sqrt(5) - 1) / 2
	for b-a > 1e-9 {
		c, e := b-g*(b-a), a+g*(b-a)
		if kl(math.Exp(c)) < kl(math.Exp(e)) {
			b = e
		} else {
			a = c
		}
	}
	num := math.Exp((a + b) / 2)
	t.Logf("Corollary 6: m = %.6g, numeric minimiser of KL(q‖p) %.6g; mλmax ≈ %.3g", m, num, m*ms.lap.Prec.At(0, 0))
	if math.Abs(m/num-1) > 1e-6 {
		t.Errorf("Corollary 6's m = %.8g, numeric minimiser %.8g", m, num)
	}
	if testing.Short() {
		return
	}
	want := discreteLyapunovScalar(t, ms.lap.Prec, CE, m)
	mb := sampler.Minibatch{Size: ms.s, Replace: true}
	s := sampler.SGFS{Batch: mb, GradCov: ms.V, Eps: eps, Scalar: true}
	w, e, err := mandtCovCheck(ms.m, s, ms.lap.Mean, want, 2000, 150_000, 32)
	expectCov(t, "scalar SGFS, ε = 2", w, e, err, 0.10)
	half := mat.NewSymDense(d, nil)
	half.ScaleSym(0.5, ms.V)
	bad := s
	bad.GradCov = half
	w, e, err = mandtCovCheck(ms.m, bad, ms.lap.Mean, want, 2000, 60_000, 32)
	expectCovFails(t, "scalar SGFS with the gradient covariance halved", w, e, err, 0.10)
	w, e, err = mandtCovCheck(scaledLik{ms.m, float64(ms.s) / float64(ms.n)}, s, ms.lap.Mean, want, 2000, 60_000, 32)
	expectCovFails(t, "scale 1 instead of N/|B|", w, e, err, 0.10)
	if _, err := (sampler.SGFS{Batch: mb, GradCov: ms.V, Eps: eps, Scalar: true, Diag: true}).NewChain(ms.m, ms.lap.Mean, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("Scalar with Diag: no error")
	}
}
