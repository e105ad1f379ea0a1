package langevin_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
)

// shiftTaylor is a stand-in expansion whose remainder gradient is the
// model's minus a constant c (Rest adds ∇ℓ_B(θ) − |B|·c), so that the
// Taylor branch of RowGrads is told apart from the others.
type shiftTaylor struct {
	m *normalMean
	c []float64
}

func (s shiftTaylor) Full(theta, grad []float64) float64 { return 0 }
func (s shiftTaylor) Rest(theta []float64, batch []int, grad []float64) float64 {
	v := s.m.LogLik(theta, batch, grad)
	for j, c := range s.c {
		grad[j] -= float64(len(batch)) * c
	}
	return v
}

// TestRowGrads checks each kind of term against the model's gradient of
// one row (yᵢ − θ for normalMean) and the Estimator's batch sum: with a
// control variate, LikGrad − (N/|B|) Σ_B terms is the full-data gradient
// at the centre; a plain batch's terms sum to the batch gradient. It also
// checks that an error of fn stops the loop.
func TestRowGrads(t *testing.T) {
	const n, d = 40, 3
	m := newNormalMean(n, d, 5)
	theta := []float64{2.5, 3.1, 2.9}
	centre := []float64{3, 3, 3}
	rows := []int{4, 17, 17, 33, 0}
	g, g0 := make([]float64, d), make([]float64, d)
	for _, tc := range []struct {
		name  string
		terms langevin.RowTerms
		want  func(i, j int) float64
	}{
		{"plain", langevin.RowTerms{}, func(i, j int) float64 { return m.y[i*d+j] - theta[j] }},
		{"centre", langevin.RowTerms{Centre: centre}, func(i, j int) float64 { return (m.y[i*d+j] - theta[j]) - (m.y[i*d+j] - centre[j]) }},
		{"taylor", langevin.RowTerms{Centre: centre, Taylor: shiftTaylor{m, []float64{1, 2, 3}}}, func(i, j int) float64 { return (m.y[i*d+j] - theta[j]) - float64(j+1) }},
	} {
		calls := 0
		err := langevin.RowGrads(m, theta, rows, tc.terms, g, g0, func(k int, g []float64) error {
			if k != calls {
				t.Errorf("%s: call %d has k = %d", tc.name, calls, k)
			}
			calls++
			for j, v := range g {
				if w := tc.want(rows[k], j); v != w {
					t.Errorf("%s: row %d, coordinate %d: %v, want %v", tc.name, rows[k], j, v, w)
				}
			}
			return nil
		})
		if err != nil || calls != len(rows) {
			t.Errorf("%s: %d calls, error %v: want %d calls and no error", tc.name, calls, err, len(rows))
		}
	}

	// The terms are the Estimator's: with a control variate around the
	// centre, LikGrad = ∇ℓ(θ̂) + (N/|B|) Σ_B terms.
	b, err := langevin.NewBatcher(n, 8, false, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	est := langevin.NewEstimator(m, b)
	if err := est.SetControlVariate(centre); err != nil {
		t.Fatal(err)
	}
	est.Eval(theta, make([]float64, d))
	sum := make([]float64, d)
	langevin.RowGrads(m, theta, est.Batch(), est.RowTerms(), g, g0, func(_ int, g []float64) error {
		for j, v := range g {
			sum[j] += v
		}
		return nil
	})
	full := make([]float64, d)
	m.LogLik(centre, nil, full)
	for j, v := range est.LikGrad() {
		if r := v - float64(n)/8*sum[j]; math.Abs(r-full[j]) > 1e-12*(1+math.Abs(full[j])) {
			t.Errorf("coordinate %d: LikGrad − (N/|B|)Σ terms = %v, want ∇ℓ(θ̂) = %v", j, r, full[j])
		}
	}

	stop := errors.New("stop")
	calls := 0
	err = langevin.RowGrads(m, theta, rows, langevin.RowTerms{}, g, nil, func(k int, _ []float64) error {
		calls++
		if k == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("fn's error at k = 2: %d calls, error %v; want 3 calls and its error", calls, err)
	}
}

// TestRowGradsAllocatesNothing: the loop allocates nothing per call when
// fn does not escape (SGLD's noise statistic runs it inside Step).
func TestRowGradsAllocatesNothing(t *testing.T) {
	m := newNormalMean(50, 4, 6)
	theta, centre := []float64{1, 2, 3, 4}, []float64{3, 3, 3, 3}
	rows := []int{1, 5, 9, 20, 49}
	g, g0, sum := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	allocs := testing.AllocsPerRun(100, func() {
		langevin.RowGrads(m, theta, rows, langevin.RowTerms{Centre: centre}, g, g0, func(_ int, g []float64) error {
			for j, v := range g {
				sum[j] += v
			}
			return nil
		})
	})
	if allocs != 0 {
		t.Errorf("RowGrads: %v allocations per call, want 0", allocs)
	}
}
