package testmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
)

// LogisticData draws n rows of d standard normal features and 0/1 labels
// from a logistic model with intercept 0.5 and coefficients 1/√d.
func LogisticData(n, d int, seed uint64) (X *mat.Dense, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X = mat.NewDense(n, d, nil)
	y = make([]float64, n)
	for i := 0; i < n; i++ {
		eta := 0.5
		for j := 0; j < d; j++ {
			x := rng.NormFloat64()
			X.Set(i, j, x)
			eta += x / math.Sqrt(float64(d))
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return X, y
}

// CorrelatedRegression draws the 40 rows of a small Bayesian linear
// regression with three correlated features (x₁ ~ N(1, 1), x₂ = 0.9x₁ +
// 0.44z, x₃ ~ N(0, 1)) and y = 0.5 + x₁ − 0.5x₂ + 0.3x₃ + N(0, 0.5).
func CorrelatedRegression() (X *mat.Dense, y []float64) {
	rng := rand.New(rand.NewPCG(3, 7))
	const n = 40
	X = mat.NewDense(n, 3, nil)
	y = make([]float64, n)
	for i := 0; i < n; i++ {
		x1 := 1 + rng.NormFloat64()
		x2 := 0.9*x1 + 0.44*rng.NormFloat64()
		x3 := rng.NormFloat64()
		X.SetRow(i, []float64{x1, x2, x3})
		y[i] = 0.5 + x1 - 0.5*x2 + 0.3*x3 + math.Sqrt(0.5)*rng.NormFloat64()
	}
	return X, y
}

// InteractionLinear is a linear regression on raw, correlated features with
// an interaction (x₁, x₂, x₁x₂; N = 434): a posterior whose scales differ by
// orders of magnitude, where an unpreconditioned step rule fails.
func InteractionLinear(tb testing.TB) *model.Linear {
	const n = 434
	rng := rand.New(rand.NewPCG(434, 1))
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x1 := 30 + 8*rng.NormFloat64()
		x2 := 0.6*x1 + 5*rng.NormFloat64()
		X.Set(i, 0, x1)
		X.Set(i, 1, x2)
		X.Set(i, 2, x1*x2)
		y[i] = 2 + 0.5*x1 - 0.3*x2 + 0.01*x1*x2 + 18*rng.NormFloat64()
	}
	m, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// CloseMoments checks every parameter: mean within 0.1 exact sd, sd within 10%.
func CloseMoments(tr *langevin.Trace, mean, sd []float64) (string, error) {
	var out string
	var first error
	for j := 0; j < tr.Dim; j++ {
		m, sdj := PooledMoments(tr.Param(j))
		r := sdj / sd[j]
		e := (m - mean[j]) / sd[j]
		ess := diag.ESSBulk(tr.Param(j))
		out += fmt.Sprintf("%s: mean %+.3f sd, sd ratio %.3f, ESS %.0f; ", tr.Names[j], e, r, ess)
		if first == nil && !(math.Abs(e) <= 0.1 && math.Abs(r-1) <= 0.1) {
			first = fmt.Errorf("%s: mean off %.3f sd, sd ratio %.3f", tr.Names[j], e, r)
		}
	}
	return out, first
}
