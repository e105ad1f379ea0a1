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

type hessianModel interface {
	langevin.Model
	Hessian(theta, dst []float64)
}

// fdHessian returns the central finite differences of the full-data
// log-posterior gradient, row-major.
func fdHessian(m langevin.Model, theta []float64) []float64 {
	h := make([]float64, m.Dim()*m.Dim())
	langevin.HessianFD(m, theta, h)
	return h
}

func TestHessianFiniteDifferences(t *testing.T) {
	X, y, labels := regData(21, 80, 3)
	lfn, err := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{Sigma2: 0.7, Precision: 2})
	if err != nil {
		t.Fatal(err)
	}
	lfnNo, _ := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{NoIntercept: true})
	cases := []struct {
		name string
		m    hessianModel
	}{
		{"fixed-noise", lfn},
		{"fixed-noise/no-intercept", lfnNo},
		{"logistic", mustLogistic(t, X, labels, model.LogisticOptions{PriorScale: 1.5})},
	}
	for _, c := range linearCases {
		cases = append(cases, struct {
			name string
			m    hessianModel
		}{"linear/" + c.name, mustLinear(t, X, y, c.opt)})
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, c := range cases {
		d := c.m.Dim()
		th := make([]float64, d)
		for k := 0; k < 3; k++ {
			for j := range th {
				th[j] = 0.5 * rng.NormFloat64()
			}
			if err := langevin.CheckGradient(c.m, th, nil, 1e-6); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			got := make([]float64, d*d)
			c.m.Hessian(th, got)
			want := fdHessian(c.m, th)
			for i := range got {
				if rel := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i])); rel > 1e-6 {
					t.Errorf("%s: Hessian[%d,%d] = %.10g, finite differences %.10g", c.name, i/d, i%d, got[i], want[i])
				}
			}
		}
	}
	// The check can fail: a Hessian missing the prior term is caught.
	m := lfn
	got := make([]float64, m.Dim()*m.Dim())
	m.Hessian(nil, got)
	got[0] += 2 // drop −λ on the first diagonal entry
	want := fdHessian(m, make([]float64, m.Dim()))
	if math.Abs(got[0]-want[0])/math.Max(1, math.Abs(want[0])) <= 1e-6 {
		t.Error("a Hessian without the prior passed the check")
	}
}

func TestLinearFixedNoisePosterior(t *testing.T) {
	X, y, _ := regData(22, 60, 2)
	m, err := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{Sigma2: 0.5, Precision: 3})
	if err != nil {
		t.Fatal(err)
	}
	mean, cov := m.Posterior()
	// The gradient vanishes at the mean, and the covariance inverts −H.
	g := make([]float64, m.Dim())
	langevin.LogPosterior(m, mean, g)
	for j, v := range g {
		if math.Abs(v) > 1e-9 {
			t.Errorf("gradient at the posterior mean [%d] = %g", j, v)
		}
	}
	d := m.Dim()
	h := make([]float64, d*d)
	m.Hessian(mean, h)
	var prod mat.Dense
	prod.Mul(cov, mat.NewDense(d, d, h))
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			want := 0.0
			if i == j {
				want = -1
			}
			if math.Abs(prod.At(i, j)-want) > 1e-10 {
				t.Errorf("Σ·H [%d,%d] = %g, want %g", i, j, prod.At(i, j), want)
			}
		}
	}
	// A quadratic log posterior: log p(θ) − log p(m) = ½ (θ−m)ᵀH(θ−m).
	th := []float64{0.3, -1, 2}
	diff := langevin.LogPosterior(m, th, nil) - langevin.LogPosterior(m, mean, nil)
	var q float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			q += (th[i] - mean[i]) * h[i*d+j] * (th[j] - mean[j])
		}
	}
	if math.Abs(diff-q/2) > 1e-9*math.Abs(diff) {
		t.Errorf("log-posterior difference %g, quadratic form %g", diff, q/2)
	}
	for _, opt := range []model.LinearFixedNoiseOptions{{Sigma2: -1}, {Precision: math.NaN()}} {
		if _, err := model.NewLinearFixedNoise(X, y, opt); err == nil || !strings.Contains(err.Error(), "expected a positive") {
			t.Errorf("%+v: err = %v", opt, err)
		}
	}
	if _, err := model.NewLinearFixedNoise(X, y[:3], model.LinearFixedNoiseOptions{}); err == nil {
		t.Error("short y accepted")
	}
}
