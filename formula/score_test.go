package formula

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestScoreNewTrainingRows: scored on its own training rows at one θ, each
// row's log predictive density is log p(yᵢ | θ), so their sum is LogLik —
// for every family with its auxiliary parameter (sigma, nu, shape), so a
// wrong normalising constant or a wrong parameter fails it.
func TestScoreNewTrainingRows(t *testing.T) {
	for _, fam := range []string{"gaussian", "student", "bernoulli", "probit", "poisson", "negbinomial"} {
		simFam := fam
		switch fam {
		case "student":
			simFam = "gaussian"
		case "probit":
			simFam = "bernoulli"
		case "negbinomial":
			simFam = "poisson"
		}
		fr := simFrame(60, 5, simFam, 4)
		form := "y ~ x + w + (1 + x | g)"
		f, _ := Parse(form)
		m, err := New(f, fr, Options{Family: fam})
		if err != nil {
			t.Fatalf("%s: %v", fam, err)
		}
		rng := rand.New(rand.NewPCG(5, 5))
		th := make([]float64, m.Dim())
		for j := range th {
			th[j] = 0.3 * rng.NormFloat64()
		}
		sc, err := m.ScoreNew(fr, [][]float64{th})
		if err != nil {
			t.Fatalf("%s: %v", fam, err)
		}
		var sum float64
		for _, v := range sc.RowLPD {
			sum += v
		}
		if want := m.LogLik(th, nil, nil); math.Abs(sum-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: Σ row log densities %.12g, LogLik %.12g", fam, sum, want)
		}
		if math.Abs(sc.LPD-sum/60) > 1e-12 {
			t.Errorf("%s: LPD %v, mean of rows %v", fam, sc.LPD, sum/60)
		}
	}
}

// TestScoreNewLevelRefused: a held-out row of a level the training data
// lacked is refused (brms's allow_new_levels = FALSE), naming the factor
// and the level.
func TestScoreNewLevelRefused(t *testing.T) {
	fr := simFrame(60, 4, "gaussian", 3)
	f, _ := Parse("y ~ x + (1 | g)")
	m, err := New(f, fr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	test := &Frame{}
	test.AddNumeric("y", []float64{1, 2})
	test.AddNumeric("x", []float64{0, 1})
	test.AddNumeric("g", []float64{1, 99})
	th := make([]float64, m.Dim())
	_, err = m.ScoreNew(test, [][]float64{th})
	var nl *NewLevelError
	if !errors.As(err, &nl) || nl.Group != "g" || nl.Level != "99" {
		t.Fatalf("err %v, want a NewLevelError naming g and 99", err)
	}
}
