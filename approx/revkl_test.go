package approx_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// gaussKL returns KL(N(0, A) ‖ N(0, B)) = ½[Tr(B⁻¹A) − D + log|B| − log|A|].
func gaussKL(t *testing.T, A, B mat.Symmetric) float64 {
	t.Helper()
	var cb, ca mat.Cholesky
	if !cb.Factorize(B) || !ca.Factorize(A) {
		t.Fatal("gaussKL: not positive definite")
	}
	var bi mat.SymDense
	if err := cb.InverseTo(&bi); err != nil {
		t.Fatal(err)
	}
	d := A.SymmetricDim()
	var tr float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tr += bi.At(i, j) * A.At(j, i)
		}
	}
	return 0.5 * (tr - float64(d) + cb.LogDet() - ca.LogDet())
}

// argminLog minimises f over η > 0 by golden-section search on log η in
// [lo, hi].
func argminLog(f func(float64) float64, lo, hi float64) float64 {
	a, b := math.Log(lo), math.Log(hi)
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(math.Exp(c)), f(math.Exp(d))
	for b-a > 1e-10 {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(math.Exp(c))
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(math.Exp(d))
		}
	}
	return math.Exp((a + b) / 2)
}

// Mandt et al. (2017) Appendix C: the closed-form reverse-KL step
// η_rev = Tr(Σ₁⁻¹Λ⁻¹)/D is the numeric minimiser of KL(p ‖ q(η)), p the
// Gaussian target N(0, Λ⁻¹) and q(η) = N(0, Σ(η)) the Lyapunov (eq. 13)
// stationary distribution of constant SGD, in 4 and 7 correlated
// dimensions with gradient noise not proportional to Λ; Theorem 1's
// η* = 2D/Tr C minimises the other direction, KL(q ‖ p), and differs from
// η_rev by more than 10% (so the check tells the two apart).
func TestReverseKLStepMinimisesReverseKL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, d := range []int{4, 7} {
		prec, C := randSPD(d, rng), randSPD(d, rng)
		stat := func(eta float64) *mat.SymDense {
			q := mat.NewSymDense(d, nil)
			q.ScaleSym(eta, C)
			s, err := approx.SolveLyapunov(prec, q)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		var cl mat.Cholesky
		cl.Factorize(prec)
		post := mat.NewSymDense(d, nil)
		if err := cl.InverseTo(post); err != nil {
			t.Fatal(err)
		}
		rev, err := approx.ReverseKLStep(prec, C)
		if err != nil {
			t.Fatal(err)
		}
		var trC float64
		for k := 0; k < d; k++ {
			trC += C.At(k, k)
		}
		fwd := 2 * float64(d) / trC
		numRev := argminLog(func(eta float64) float64 { return gaussKL(t, post, stat(eta)) }, fwd/1e3, fwd*1e3)
		numFwd := argminLog(func(eta float64) float64 { return gaussKL(t, stat(eta), post) }, fwd/1e3, fwd*1e3)
		t.Logf("D = %d: η_rev = %.6g (numeric %.6g), η* = %.6g (numeric %.6g), ratio %.3f", d, rev, numRev, fwd, numFwd, rev/fwd)
		if math.Abs(rev/numRev-1) > 1e-5 {
			t.Errorf("D = %d: closed-form η_rev = %.8g, numeric minimiser of KL(p‖q) %.8g", d, rev, numRev)
		}
		if math.Abs(fwd/numFwd-1) > 1e-5 {
			t.Errorf("D = %d: Theorem 1's η* = %.8g, numeric minimiser of KL(q‖p) %.8g", d, fwd, numFwd)
		}
		if !(rev > 1.1*fwd) {
			t.Errorf("D = %d: η_rev = %.4g not above 1.1 η* = %.4g: the test cannot tell the directions apart", d, rev, fwd)
		}
		// Wrong variant: the mean of the eigenvalues in place of the trace of
		// Σ₁⁻¹Λ⁻¹ over D, i.e. η* itself, must miss the numeric minimiser.
		if math.Abs(fwd/numRev-1) < 0.05 {
			t.Errorf("D = %d: η* = %.4g is within 5%% of the reverse-KL minimiser %.4g", d, fwd, numRev)
		}
	}
	// Isotropic noise and curvature: both directions agree (η_rev = η* = 2/c).
	iso := mat.NewSymDense(3, []float64{2, 0, 0, 0, 2, 0, 0, 0, 2})
	noise := mat.NewSymDense(3, []float64{5, 0, 0, 0, 5, 0, 0, 0, 5})
	if rev, err := approx.ReverseKLStep(iso, noise); err != nil || math.Abs(rev-2.0/5) > 1e-12 {
		t.Errorf("isotropic: η_rev = %v (%v), want 0.4", rev, err)
	}
}

// MandtConstSGDReverseKL's units: its step equals ReverseKLStep of the
// Monte Carlo covariance of 40,000 minibatch gradients ĝ drawn at the mode
// (through the same estimator the samplers use, N/|B| scaling included)
// within 3%, on a 4-parameter correlated linear regression; taking
// C = (N/S)·V instead of (N²/S)·V would be N = 500 times off.
func TestMandtConstSGDReverseKLUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n, p, s = 500, 3, 10
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		prev := rng.NormFloat64()
		for j := 0; j < p; j++ {
			if j > 0 {
				prev = 0.7*prev + math.Sqrt(1-0.49)*rng.NormFloat64()
			}
			X.Set(i, j, prev)
		}
		y[i] = 0.5 + X.At(i, 0) - X.At(i, 2) + rng.NormFloat64()*(1+math.Abs(X.At(i, 1)))
	}
	m, err := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := approx.Laplace(context.Background(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	V := mat.NewSymDense(d, nil)
	if err := sampler.GradCov(m, lap.Mean, V); err != nil {
		t.Fatal(err)
	}
	cs, err := approx.MandtConstSGDReverseKL(lap.Prec, V, n, sampler.Minibatch{Size: s, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := langevin.NewBatcher(n, s, true, rand.New(rand.NewPCG(8, 8)))
	if err != nil {
		t.Fatal(err)
	}
	est := langevin.NewEstimator(m, b)
	const k = 40_000
	g := make([]float64, d)
	mean := make([]float64, d)
	acc := mat.NewSymDense(d, nil)
	gs := make([][]float64, k)
	for r := range gs {
		est.Eval(lap.Mean, g)
		gs[r] = append([]float64(nil), g...)
		for j := range g {
			mean[j] += g[j] / k
		}
	}
	for _, gr := range gs {
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				acc.SetSym(i, j, acc.At(i, j)+(gr[i]-mean[i])*(gr[j]-mean[j])/(k-1))
			}
		}
	}
	want, err := approx.ReverseKLStep(lap.Prec, acc)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("η_rev from V = %.5g, from %d minibatch gradients %.5g (ratio %.4f)", cs.Eta, k, want, cs.Eta/want)
	if math.Abs(cs.Eta/want-1) > 0.03 {
		t.Errorf("η_rev from V = %.5g, from the minibatch gradients' covariance %.5g: off by more than 3%%", cs.Eta, want)
	}
}
