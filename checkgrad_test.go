package langevin_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
)

// normalMean is yᵢ ~ N(θ, I) in d dimensions with a flat prior: log p(y|θ) =
// −Σᵢ (½‖yᵢ − θ‖² + (d/2) log 2π), gradient Σᵢ (yᵢ − θ), zero at θ = ȳ. If
// slip ≠ 0, the gradient's last component is multiplied by 1 + slip.
type normalMean struct {
	y    []float64 // N×d, row-major
	d    int
	slip float64
}

func newNormalMean(n, d int, seed uint64) *normalMean {
	rng := rand.New(rand.NewPCG(seed, 3))
	y := make([]float64, n*d)
	for i := range y {
		y[i] = 3 + rng.NormFloat64()
	}
	return &normalMean{y: y, d: d}
}

func (m *normalMean) Dim() int                        { return m.d }
func (m *normalMean) Len() int                        { return len(m.y) / m.d }
func (m *normalMean) LogPrior(_, _ []float64) float64 { return 0 }
func (m *normalMean) LogLik(th []float64, batch []int, g []float64) float64 {
	const halfLog2Pi = 0.9189385332046727
	var v float64
	row := func(i int) {
		for j, t := range th {
			r := m.y[i*m.d+j] - t
			v -= 0.5*r*r + halfLog2Pi
			if g != nil {
				if j == m.d-1 {
					r *= 1 + m.slip
				}
				g[j] += r
			}
		}
	}
	if batch == nil {
		for i := 0; i < m.Len(); i++ {
			row(i)
		}
	} else {
		for _, i := range batch {
			row(i)
		}
	}
	return v
}

// mean returns ȳ, the maximum-likelihood estimate.
func (m *normalMean) mean() []float64 {
	mu := make([]float64, m.d)
	for i := 0; i < m.Len(); i++ {
		for j := range mu {
			mu[j] += m.y[i*m.d+j]
		}
	}
	for j := range mu {
		mu[j] /= float64(m.Len())
	}
	return mu
}

// TestCheckGradientLargeN: an exact gradient passes at the maximum-likelihood
// estimate θ = ȳ (where the gradient is 0 and |log p| ≈ 1.42 N d, d = 2), on all data
// and on a batch, for N = 10³ … 10⁶; before the rounding allowance ρ it
// failed from N = 10⁴ on (relative errors 1.5e-6, 2.9e-5, 2.0e-3 at N = 10⁴,
// 10⁵, 10⁶; 4.5e-6 on the batch of 5·10⁵).
func TestCheckGradientLargeN(t *testing.T) {
	for _, n := range []int{1e3, 1e4, 1e5, 1e6} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := newNormalMean(n, 2, uint64(n))
			mu := m.mean()
			f := m.LogLik(mu, nil, nil)
			if err := langevin.CheckGradient(m, mu, nil, 1e-6); err != nil {
				t.Errorf("|log p| = %.3g: %v", math.Abs(f), err)
			}
			batch := make([]int, n/2)
			for i := range batch {
				batch[i] = 2 * i
			}
			if err := langevin.CheckGradient(m, mu, batch, 1e-6); err != nil {
				t.Errorf("batch of %d: %v", len(batch), err)
			}
		})
	}
}

// TestCheckGradientCatchesOnePercent: at N = 10⁵ a gradient whose second
// component is 1% too large fails one posterior sd (N^{-1/2}) away from the
// MLE, and CheckGradientNear from the MLE catches it; at the MLE itself the
// gradient is 0 and the slip invisible, which is why CheckGradientNear exists.
func TestCheckGradientCatchesOnePercent(t *testing.T) {
	const n = 100000
	m := newNormalMean(n, 2, 5)
	m.slip = 0.01
	mu := m.mean()
	sd := 1 / math.Sqrt(n)
	th := []float64{mu[0] + sd, mu[1] - sd}
	err := langevin.CheckGradient(m, th, nil, 1e-6)
	var ge *langevin.GradientError
	if !errors.As(err, &ge) || ge.Term != "likelihood" || ge.Index != 1 {
		t.Fatalf("err = %v, want a likelihood GradientError for index 1", err)
	}
	t.Logf("caught (as it should be): %v", err)
	if !(math.Abs(ge.Analytic-ge.Numeric) > 100*ge.Rounding) {
		t.Errorf("the slip %.3g is within 100 rounding allowances %.3g", math.Abs(ge.Analytic-ge.Numeric), ge.Rounding)
	}
	err = langevin.CheckGradientNear(m, mu, []float64{sd, sd}, 5, langevin.ChainRNG(1, 0), nil, 1e-6)
	if !errors.As(err, &ge) || ge.Index != 1 {
		t.Errorf("CheckGradientNear: err = %v, want a GradientError for index 1", err)
	}
	m.slip = 0
	if err := langevin.CheckGradientNear(m, mu, []float64{sd, sd}, 5, langevin.ChainRNG(1, 0), nil, 1e-6); err != nil {
		t.Errorf("CheckGradientNear, exact gradient: %v", err)
	}
}

func TestCheckGradientNearBadInput(t *testing.T) {
	m := newNormalMean(10, 2, 1)
	for _, tc := range []struct {
		theta, scale []float64
		k            int
	}{
		{[]float64{0}, nil, 3},
		{[]float64{0, 0}, []float64{1}, 3},
		{[]float64{0, 0}, nil, 0},
	} {
		if err := langevin.CheckGradientNear(m, tc.theta, tc.scale, tc.k, langevin.ChainRNG(1, 0), nil, 1e-6); err == nil {
			t.Errorf("theta %v, scale %v, k %d: no error", tc.theta, tc.scale, tc.k)
		}
	}
}

// A gradient 1% too large in one component passes at the MLE, where the
// gradient is zero, and fails a few posterior sds away from it.
func ExampleCheckGradientNear() {
	m := newNormalMean(100000, 2, 5) // yᵢ ~ N(θ, I₂), posterior sd 1/√N
	m.slip = 0.01
	mle := m.mean()
	fmt.Println("at the MLE:", langevin.CheckGradient(m, mle, nil, 1e-6))
	sd := 1 / math.Sqrt(100000)
	err := langevin.CheckGradientNear(m, mle, []float64{sd, sd}, 3, langevin.ChainRNG(1, 0), nil, 1e-6)
	var ge *langevin.GradientError
	if errors.As(err, &ge) {
		fmt.Println("near it, the slip in", ge.Name, "is caught")
	}
	// Output:
	// at the MLE: <nil>
	// near it, the slip in theta.2 is caught
}
