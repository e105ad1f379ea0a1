package approx

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
)

// glmData returns n rows of p standard normal features, responses
// 10·sin(xᵀa) + 5 + noise (sd 3), and m new inputs.
func glmData(n, p, m int) (X *mat.Dense, y []float64, Xnew *mat.Dense) {
	rng := rand.New(rand.NewPCG(11, 12))
	X, Xnew = mat.NewDense(n, p, nil), mat.NewDense(m, p, nil)
	y = make([]float64, n)
	for i := 0; i < n+m; i++ {
		var z float64
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			if i >= n {
				Xnew.Set(i-n, j, 2*v) // some outside the data
				continue
			}
			X.Set(i, j, v)
			z += v * float64(j+1) / float64(p)
		}
		if i < n {
			y[i] = 10*math.Sin(z) + 5 + 3*rng.NormFloat64()
		}
	}
	return X, y, Xnew
}

// TestGLMLaplaceLinearIsBLR: for a network without hidden layer, f = wᵀx + b
// is linear in θ, the linearisation is exact, and the GLM Laplace
// predictive must be Bayesian linear regression's with known noise:
// Var f(x*) = x̃*ᵀ(X̃ᵀX̃/σ² + S⁻¹)⁻¹x̃*, x̃ = (x, 1), computed here
// independently, in the standardised units of the response and scaled by
// s_y², with a learned noise (whose coordinate must not leak into the
// weights' block). The mean must be the MAP network's. A GGN without 1/σ²,
// without the prior, or in the wrong units fails.
func TestGLMLaplaceLinearIsBLR(t *testing.T) {
	X, y, Xnew := glmData(60, 3, 7)
	m, err := model.NewMLP(X, y, model.MLPOptions{LearnNoise: true, StandardizeY: true, PriorScale: []float64{0.7}, LogNoiseSD: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim() // 3 weights, 1 bias, log σ²
	mode := []float64{0.3, -0.2, 0.5, 0.1, math.Log(0.4)}
	g, err := NewGLMLaplace(context.Background(), m, mode)
	if err != nil {
		t.Fatal(err)
	}
	_, sy := meanSDTest(y)
	if got, want := g.Sigma2, 0.4*sy*sy; math.Abs(got-want) > 1e-9*want {
		t.Fatalf("σ̂² = %v, want %v", got, want)
	}
	// BLR in the standardised units: Λ = X̃ᵀX̃/σ_z² + I/0.7².
	n, p := X.Dims()
	lam := mat.NewSymDense(p+1, nil)
	for i := 0; i < n; i++ {
		xt := append(mat.Row(nil, i, X), 1)
		for a := 0; a <= p; a++ {
			for b := a; b <= p; b++ {
				lam.SetSym(a, b, lam.At(a, b)+xt[a]*xt[b]/0.4)
			}
		}
	}
	for a := 0; a <= p; a++ {
		lam.SetSym(a, a, lam.At(a, a)+1/0.49)
	}
	var cov mat.SymDense
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("BLR precision not positive definite")
	}
	ch.InverseTo(&cov)
	k, _ := Xnew.Dims()
	mean, varF := make([]float64, k), make([]float64, k)
	g.Predict(Xnew, mean, varF)
	f0 := make([]float64, k)
	m.RegressionMean(mode, Xnew, f0)
	for i := 0; i < k; i++ {
		xt := mat.NewVecDense(p+1, append(mat.Row(nil, i, Xnew), 1))
		want := sy * sy * mat.Inner(xt, &cov, xt)
		if math.Abs(varF[i]-want) > 1e-9*want {
			t.Errorf("row %d: Var f = %.10g, Bayesian linear regression %.10g", i, varF[i], want)
		}
		if math.Abs(mean[i]-f0[i]) > 1e-12*math.Max(1, math.Abs(f0[i])) {
			t.Errorf("row %d: mean %v, MAP network %v", i, mean[i], f0[i])
		}
	}
	_ = d
}

func meanSDTest(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}

// TestGLMLaplaceFiniteDifferences checks the GLM predictive of a tanh
// network (one hidden layer, learned noise, standardised response) against
// one assembled here from finite-difference Jacobians of RegressionMean:
// Λ = Σᵢ JᵢᵀJᵢ/σ̂² + diag(1/s²) + (n/2 on log σ²), Var f(x*) = J* Λ⁻¹ J*ᵀ,
// full and (GLMFullMax lowered) diagonal. It also draws 4,000 times from
// the sampler and checks that the linearised network's predictions have
// the closed form's mean and variance (tolerances: 4.5 Monte Carlo standard
// errors; a draw scaled by √2 fails).
func TestGLMLaplaceFiniteDifferences(t *testing.T) {
	X, y, Xnew := glmData(50, 2, 6)
	m, err := model.NewMLP(X, y, model.MLPOptions{Hidden: []int{5}, Activation: model.Tanh, LearnNoise: true, StandardizeY: true, FanIn: true})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	mode := make([]float64, d)
	m.InitPoint(mode, rand.New(rand.NewPCG(3, 4)))
	mode[d-1] = math.Log(0.3)
	s2 := m.NoiseVar(mode)
	fdJac := func(Xs *mat.Dense) *mat.Dense {
		n, _ := Xs.Dims()
		J := mat.NewDense(n, d, nil)
		fp, fm := make([]float64, n), make([]float64, n)
		th := append([]float64(nil), mode...)
		for j := 0; j < d; j++ {
			const h = 1e-6
			th[j] = mode[j] + h
			m.RegressionMean(th, Xs, fp)
			th[j] = mode[j] - h
			m.RegressionMean(th, Xs, fm)
			th[j] = mode[j]
			for i := 0; i < n; i++ {
				J.Set(i, j, (fp[i]-fm[i])/(2*h))
			}
		}
		return J
	}
	Jt, Jn := fdJac(X), fdJac(Xnew)
	var lamD mat.Dense
	lamD.Mul(Jt.T(), Jt)
	lamD.Scale(1/s2, &lamD)
	sd := make([]float64, d)
	m.PriorSDs(sd)
	for j := 0; j < d; j++ {
		lamD.Set(j, j, lamD.At(j, j)+1/(sd[j]*sd[j]))
	}
	n, _ := X.Dims()
	lamD.Set(d-1, d-1, lamD.At(d-1, d-1)+float64(n)/2)
	lam := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			lam.SetSym(i, j, (lamD.At(i, j)+lamD.At(j, i))/2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("Λ not positive definite")
	}
	var cov mat.SymDense
	ch.InverseTo(&cov)
	k, _ := Xnew.Dims()
	for _, diag := range []bool{false, true} {
		if diag {
			glmFullMax = d - 1
		}
		g, err := NewGLMLaplace(context.Background(), m, mode)
		glmFullMax = GLMFullMax
		if err != nil {
			t.Fatal(err)
		}
		if g.Diagonal != diag {
			t.Fatalf("Diagonal = %v, want %v", g.Diagonal, diag)
		}
		mean, varF := checkGLMPredict(t, g, Xnew, Jn, lam, &cov, diag)
		if diag {
			continue
		}
		// The draws through the linearised network.
		lin := g.Linearized()
		ch, err := g.Sampler().NewChain(m, nil, rand.New(rand.NewPCG(9, 9)))
		if err != nil {
			t.Fatal(err)
		}
		const S = 4000
		f := make([]float64, k)
		s1, s2f := make([]float64, k), make([]float64, k)
		for s := 0; s < S; s++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
			lin.RegressionMean(ch.Position(), Xnew, f)
			for i, v := range f {
				u := v - mean[i]
				s1[i] += u
				s2f[i] += u * u
			}
		}
		for i := 0; i < k; i++ {
			mu := s1[i] / S
			v := s2f[i]/S - mu*mu
			if se := math.Sqrt(varF[i] / S); math.Abs(mu) > 4.5*se {
				t.Errorf("row %d: mean of the linearised draws off the MAP's by %.3g (%.1f SE)", i, mu, mu/se)
			}
			if rel := v/varF[i] - 1; math.Abs(rel) > 4.5*math.Sqrt(2.0/S) {
				t.Errorf("row %d: variance of the linearised draws %.4g vs closed form %.4g (relative %+.3f)", i, v, varF[i], rel)
			}
		}
		if lin.NoiseVar(nil) != g.Sigma2 {
			t.Errorf("Linearized NoiseVar %v, want σ̂² %v", lin.NoiseVar(nil), g.Sigma2)
		}
	}
}

// TestGLMLaplaceRefusesClassifier: the linearised Laplace of this package
// is for the Gaussian likelihood; a classifier is an error, not a panic.
func TestGLMLaplaceRefusesClassifier(t *testing.T) {
	X, _, _ := glmData(20, 2, 1)
	y := make([]float64, 20)
	for i := range y {
		y[i] = float64(i % 2)
	}
	m, err := model.NewMLP(X, y, model.MLPOptions{Hidden: []int{3}, Likelihood: model.LikBernoulli})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGLMLaplace(context.Background(), m, make([]float64, m.Dim())); err == nil {
		t.Fatal("no error for a Bernoulli network")
	}
}

// checkGLMPredict compares g's predictive variance of f at the rows of
// Xnew with J Λ⁻¹ Jᵀ (diagonal: Σⱼ J²/Λⱼⱼ) from the finite-difference
// Jacobian Jn, the precision lam and its inverse cov, and returns the
// mean and variance Predict gave.
func checkGLMPredict(t *testing.T, g *GLMLaplace, Xnew, Jn *mat.Dense, lam, cov *mat.SymDense, diag bool) (mean, varF []float64) {
	t.Helper()
	k, d := Jn.Dims()
	mean, varF = make([]float64, k), make([]float64, k)
	g.Predict(Xnew, mean, varF)
	for i := 0; i < k; i++ {
		var want float64
		for a := 0; a < d; a++ {
			if diag {
				want += Jn.At(i, a) * Jn.At(i, a) / lam.At(a, a)
				continue
			}
			for b := 0; b < d; b++ {
				want += Jn.At(i, a) * cov.At(a, b) * Jn.At(i, b)
			}
		}
		if math.Abs(varF[i]-want) > 1e-5*want {
			t.Errorf("diagonal %v, row %d: Var f = %.8g, from finite-difference Jacobians %.8g", diag, i, varF[i], want)
		}
	}
	return mean, varF
}
