package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// TestRowLogLik checks that the rows' log-likelihoods sum to LogLik and that
// RowCDF is the distribution function: a finite difference of the linear
// model's CDF in y is its density, and the logistic CDF at label 0 is
// 1 − p(y = 1).
func TestRowLogLik(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, p = 12, 3
	X := mat.NewDense(n, p, nil)
	y, lab := make([]float64, n), make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = rng.NormFloat64()
		lab[i] = float64(rng.IntN(2))
	}
	lin, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := model.NewLogistic(X, lab, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]float64, n)
	for i := range counts {
		counts[i] = float64(rng.IntN(6))
	}
	var glms []langevin.Model
	for _, k := range []model.GLMKind{model.Poisson, model.NegBin, model.Probit, model.Robust} {
		yk := counts
		switch k {
		case model.Probit:
			yk = lab
		case model.Robust:
			yk = y
		}
		g, err := model.NewGLM(k, X, yk, model.GLMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		glms = append(glms, g)
	}
	rows := []int{0, 3, 4, 11}
	for _, m := range glms {
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = 0.3 * rng.NormFloat64()
		}
		dst := make([]float64, len(rows))
		m.(langevin.RowLogLiker).RowLogLik(dst, theta, rows)
		var s float64
		for _, v := range dst {
			s += v
		}
		if want := m.LogLik(theta, rows, nil); math.Abs(s-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: Σ rows %v, LogLik %v", m, s, want)
		}
	}
	for _, m := range []langevin.Model{lin, lg} {
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = 0.3 * rng.NormFloat64()
		}
		dst := make([]float64, len(rows))
		m.(langevin.RowLogLiker).RowLogLik(dst, theta, rows)
		var s float64
		for j, v := range dst {
			s += v
			if want := m.LogLik(theta, rows[j:j+1], nil); math.Abs(v-want) > 1e-12 {
				t.Errorf("%T row %d: %v, LogLik %v", m, rows[j], v, want)
			}
		}
		if want := m.LogLik(theta, rows, nil); math.Abs(s-want) > 1e-12 {
			t.Errorf("%T: Σ %v, LogLik %v", m, s, want)
		}
		cdf := make([]float64, len(rows))
		m.(langevin.RowCDFer).RowCDF(cdf, theta, rows)
		for j, c := range cdf {
			if !(c >= 0 && c <= 1) {
				t.Errorf("%T row %d: CDF %v", m, rows[j], c)
			}
			if m == langevin.Model(lg) {
				want := 1.0
				if lab[rows[j]] == 0 {
					want = math.Exp(dst[j])
				}
				if math.Abs(c-want) > 1e-12 {
					t.Errorf("logistic row %d: CDF %v, want %v", rows[j], c, want)
				}
			}
		}
	}
	// linear: d/dy CDF = density, by a central difference in yᵢ
	theta := []float64{0.1, -0.2, 0.3, 0.4, -0.5}
	const h = 1e-5
	for _, i := range rows {
		yp, ym := append([]float64(nil), y...), append([]float64(nil), y...)
		yp[i] += h
		ym[i] -= h
		mp, _ := model.NewLinear(X, yp, model.LinearOptions{})
		mm, _ := model.NewLinear(X, ym, model.LinearOptions{})
		var cp, cm, l [1]float64
		mp.RowCDF(cp[:], theta, []int{i})
		mm.RowCDF(cm[:], theta, []int{i})
		lin.RowLogLik(l[:], theta, []int{i})
		if fd := (cp[0] - cm[0]) / (2 * h); math.Abs(fd-math.Exp(l[0])) > 1e-8 {
			t.Errorf("linear row %d: dCDF/dy %v, density %v", i, fd, math.Exp(l[0]))
		}
	}
}
