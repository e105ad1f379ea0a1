package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// heteroNet is a heteroscedastic 3-6-4-2 network on a standardised
// response of sd ≈ 10 (a forgotten s_y shows).
func heteroNet(t testing.TB, act model.Activation) (*model.MLP, *mat.Dense, []float64) {
	X, y := mlpData(3, 300, 3, model.LikGaussian, 2)
	for i := range y {
		y[i] = 10*y[i] + 5
	}
	opt := model.MLPDefaults(model.MLPOptions{Hidden: []int{6, 4}, Activation: act, Hetero: true})
	return mustMLP(t, X, y, opt), X, y
}

// TestMLPHeteroGradient checks the heteroscedastic likelihood's gradient
// against central finite differences (both heads, every layer), on a
// minibatch with repeated rows and on all 300 rows, for three activations.
func TestMLPHeteroGradient(t *testing.T) {
	t.Parallel()
	for _, act := range []model.Activation{model.ReLU, model.Tanh, model.Identity} {
		m, _, _ := heteroNet(t, act)
		if m.LearnsNoise() || !m.Hetero() || m.Outputs() != 2 {
			t.Fatalf("%v: LearnsNoise %v, Hetero %v, outputs %d: want false, true, 2", act, m.LearnsNoise(), m.Hetero(), m.Outputs())
		}
		theta := make([]float64, m.Dim())
		m.SamplePrior(theta, rand.New(rand.NewPCG(5, 6)))
		for _, batch := range [][]int{{3, 17, 3, 250, 99}, nil} {
			if err := langevin.CheckGradient(m, theta, batch, 1e-6); err != nil {
				t.Errorf("%v, batch %v: %v", act, batch, err)
			}
		}
	}
}

// TestMLPHeteroLogLik compares LogLik with the formula for a 1-hidden-unit
// network, −½ log 2π − ½ s − ½ (y − μ)² e^{−s} per row, and the
// predictions (RegressionMean, NoiseVars, Output) with the heads.
func TestMLPHeteroLogLik(t *testing.T) {
	t.Parallel()
	X := mat.NewDense(3, 2, []float64{1, 2, -1, 0.5, 0, -3})
	// θ = w.1.1.1, w.1.1.2, b.1.1, w.2.1.1, w.2.2.1, b.2.1, b.2.2
	th := []float64{0.3, -0.2, 0.1, 1.5, -0.7, -0.4, 0.25}
	y := []float64{0.5, -1, 2}
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{1}, Activation: model.Tanh, Hetero: true})
	var want float64
	mu, s2 := make([]float64, 3), make([]float64, 3)
	for i := range y {
		h := math.Tanh(th[0]*X.At(i, 0) + th[1]*X.At(i, 1) + th[2])
		mu[i], s2[i] = th[3]*h+th[5], math.Exp(th[4]*h+th[6])
		r := y[i] - mu[i]
		want += -0.5*math.Log(2*math.Pi) - 0.5*math.Log(s2[i]) - 0.5*r*r/s2[i]
	}
	if got := m.LogLik(th, nil, nil); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogLik %v, want %v", got, want)
	}
	gm, gv := make([]float64, 3), make([]float64, 3)
	m.RegressionMean(th, X, gm)
	m.NoiseVars(th, X, gv)
	out := m.Output(th, X, nil)
	for i := range y {
		if math.Abs(gm[i]-mu[i]) > 1e-12 || math.Abs(gv[i]-s2[i]) > 1e-12 || math.Abs(out.At(i, 1)-math.Log(s2[i])) > 1e-12 {
			t.Errorf("row %d: mean %v, σ² %v, log σ² %v: want %v, %v, %v", i, gm[i], gv[i], out.At(i, 1), mu[i], s2[i], math.Log(s2[i]))
		}
	}
	if names := m.ParamNames(); len(names) != 7 || names[4] != "w.2.2.1" || names[6] != "b.2.2" {
		t.Errorf("names %v", names)
	}
	if _, err := model.NewMLP(X, y, model.MLPOptions{Hetero: true, LearnNoise: true}); err == nil {
		t.Error("Hetero with LearnNoise: no error")
	}
	if _, err := model.NewMLP(X, []float64{0, 1, 1}, model.MLPOptions{Hetero: true, Likelihood: model.LikBernoulli}); err == nil {
		t.Error("Hetero with a Bernoulli likelihood: no error")
	}
}

// TestMLPHeteroJacobians checks OutputJacobian (the mean head) and
// NoiseJacobian (log σ²(x)) against central finite differences of
// RegressionMean and log NoiseVars, on a standardised response (both in
// y's units): a head's Jacobian that leaks into the other fails.
func TestMLPHeteroJacobians(t *testing.T) {
	t.Parallel()
	m, X, _ := heteroNet(t, model.Tanh)
	d := m.Dim()
	theta := make([]float64, d)
	m.InitPoint(theta, rand.New(rand.NewPCG(1, 2)))
	i0, i1 := 7, 19
	r := i1 - i0
	f, s := make([]float64, r), make([]float64, r)
	jf, js := make([]float64, r*d), make([]float64, r*d)
	m.OutputJacobian(theta, nil, i0, i1, f, jf)
	m.NoiseJacobian(theta, nil, i0, i1, s, js)
	n, _ := X.Dims()
	head := func(th []float64) (mu, ls []float64) {
		mu, ls = make([]float64, n), make([]float64, n)
		m.RegressionMean(th, X, mu)
		m.NoiseVars(th, X, ls)
		for i := range ls {
			ls[i] = math.Log(ls[i])
		}
		return
	}
	mu0, ls0 := head(theta)
	for k := 0; k < r; k++ {
		if math.Abs(f[k]-mu0[i0+k]) > 1e-10 || math.Abs(s[k]-ls0[i0+k]) > 1e-10 {
			t.Fatalf("row %d: heads %v, %v; predictions %v, %v", k, f[k], s[k], mu0[i0+k], ls0[i0+k])
		}
	}
	th := append([]float64(nil), theta...)
	var worst float64
	for j := 0; j < d; j++ {
		h := 1e-6
		th[j] = theta[j] + h
		mp, lp := head(th)
		th[j] = theta[j] - h
		mm, lm := head(th)
		th[j] = theta[j]
		for k := 0; k < r; k++ {
			fd := (mp[i0+k] - mm[i0+k]) / (2 * h)
			worst = math.Max(worst, math.Abs(jf[k*d+j]-fd)/math.Max(1, math.Abs(fd)))
			fd = (lp[i0+k] - lm[i0+k]) / (2 * h)
			worst = math.Max(worst, math.Abs(js[k*d+j]-fd)/math.Max(1, math.Abs(fd)))
		}
	}
	if worst > 1e-5 {
		t.Errorf("Jacobians vs finite differences: worst relative error %.3g", worst)
	}
}

// BenchmarkMLPUCIHeteroStep is BenchmarkMLPUCIStep for the heteroscedastic
// network (13-50-2): 0 allocs/op.
func BenchmarkMLPUCIHeteroStep(b *testing.B) {
	X, y := mlpData(3, 455, 13, model.LikGaussian, 0)
	m := mustMLP(b, X, y, model.MLPOptions{Hidden: []int{50}, Likelihood: model.LikGaussian, Hetero: true})
	c0 := processCPU()
	benchSGLDStep(b, m, 32, mlpFlops(m.Layers(), 32))
	reportCPU(b, c0)
}
