package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

func TestGaussian(t *testing.T) {
	t.Parallel()
	mu := []float64{1, -2, 0.5}
	cov := mat.NewSymDense(3, []float64{
		2, 0.6, -0.3,
		0.6, 1, 0.2,
		-0.3, 0.2, 0.5,
	})
	g, err := model.NewGaussian(mu, cov)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := distmv.NewNormal(mu, cov, nil)
	x := []float64{0.3, -1, 2}
	want := ref.LogProb(x)
	if got := g.LogLik(x, nil, nil); math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("LogLik(nil batch) = %v, want %v", got, want)
	}
	if got := g.LogLik(x, []int{0, 0}, nil); math.Abs(got-2*want) > 1e-13*math.Abs(want) {
		t.Errorf("LogLik(batch of 2) = %v, want %v", got, 2*want)
	}
	if got := langevin.LogPosterior(g, x, nil); math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("LogPosterior = %v, want %v", got, want)
	}
	// The gradient vanishes at μ.
	grad := make([]float64, 3)
	langevin.LogPosterior(g, mu, grad)
	for _, v := range grad {
		if v != 0 {
			t.Errorf("gradient at the mean %v", grad)
			break
		}
	}
	cov.SetSym(0, 0, 99) // NewGaussian copied cov
	if g.Cov().At(0, 0) != 2 || g.Mean()[1] != -2 {
		t.Error("NewGaussian does not copy its arguments")
	}
	var id mat.Dense
	id.Mul(g.Cov(), g.Precision())
	if !mat.EqualApprox(&id, eye(3), 1e-13) {
		t.Errorf("Σ Σ⁻¹ = %v", mat.Formatted(&id))
	}

	// Exact draws.
	const n = 100000
	rng := rand.New(rand.NewPCG(2, 2))
	data := mat.NewDense(n, 3, nil)
	w := make([]float64, 3)
	for i := 0; i < n; i++ {
		g.Rand(w, rng)
		data.SetRow(i, w)
	}
	var sc mat.SymDense
	stat.CovarianceMatrix(&sc, data, nil)
	c := g.Cov()
	for i := 0; i < 3; i++ {
		m := stat.Mean(mat.Col(nil, i, data), nil)
		if math.Abs(m-mu[i]) > 5*math.Sqrt(c.At(i, i)/n) {
			t.Errorf("draw mean %d = %v, want %v", i, m, mu[i])
		}
		for j := 0; j < 3; j++ {
			if tol := 5 * math.Sqrt((c.At(i, i)*c.At(j, j)+c.At(i, j)*c.At(i, j))/n); math.Abs(sc.At(i, j)-c.At(i, j)) > tol {
				t.Errorf("draw cov (%d,%d) = %v, want %v ± %v", i, j, sc.At(i, j), c.At(i, j), tol)
			}
		}
	}
}

func eye(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return a
}
