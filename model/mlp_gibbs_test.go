package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
)

// gibbsLinearNet is a network without hidden layers, f = xᵀw + b, with a
// fixed noise σ² = 0.5 and three correlated features (x₂ = 0.9x₁ + 0.44z):
// Bayesian linear regression, whose output layer is all of θ.
func gibbsLinearNet(t testing.TB) (*model.MLP, *mat.Dense, []float64) {
	X, y := testmodel.CorrelatedRegression()
	m, err := model.NewMLP(X, y, model.MLPOptions{Likelihood: model.LikGaussian, NoiseVar: 0.5, PriorScale: []float64{1.5}, FanIn: true})
	if err != nil {
		t.Fatal(err)
	}
	return m, X, y
}

// linearPosterior returns the exact posterior of gibbsLinearNet: precision
// A = ΦᵀΦ/σ² + diag(1/s²), Φ = [X 1], mean A⁻¹Φᵀy/σ², covariance A⁻¹.
func linearPosterior(m *model.MLP, X *mat.Dense, y []float64, sigma2 float64) (mean []float64, cov *mat.Dense) {
	n, p := X.Dims()
	phi := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			phi.Set(i, j, X.At(i, j))
		}
		phi.Set(i, p, 1)
	}
	var A mat.Dense
	A.Mul(phi.T(), phi)
	A.Scale(1/sigma2, &A)
	sd := make([]float64, m.Dim())
	m.PriorSDs(sd)
	for j, s := range sd {
		A.Set(j, j, A.At(j, j)+1/(s*s))
	}
	cov = new(mat.Dense)
	if err := cov.Inverse(&A); err != nil {
		panic(err)
	}
	var r, mu mat.VecDense
	r.MulVec(phi.T(), mat.NewVecDense(n, y))
	r.ScaleVec(1/sigma2, &r)
	mu.MulVec(cov, &r)
	return mu.RawVector().Data, cov
}

// compareGaussian checks the mean and every covariance entry of draws
// against mean and cov, each within 5 Monte Carlo standard errors (the mean's
// √(Σⱼⱼ/n), a covariance's √((ΣaaΣbb + Σab²)/n) for independent draws).
func compareGaussian(draws [][]float64, mean []float64, cov *mat.Dense) error {
	k, n := len(mean), float64(len(draws))
	m := make([]float64, k)
	for _, d := range draws {
		for j := range m {
			m[j] += d[j] / n
		}
	}
	for j := range m {
		if se := math.Sqrt(cov.At(j, j) / n); math.Abs(m[j]-mean[j]) > 5*se {
			return fmt.Errorf("mean %d: %.5f, exact %.5f (±%.2g)", j, m[j], mean[j], se)
		}
	}
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			var c float64
			for _, d := range draws {
				c += (d[a] - m[a]) * (d[b] - m[b])
			}
			c /= n - 1
			se := math.Sqrt((cov.At(a, a)*cov.At(b, b) + cov.At(a, b)*cov.At(a, b)) / n)
			if math.Abs(c-cov.At(a, b)) > 5*se {
				return fmt.Errorf("covariance (%d, %d): %.5f, exact %.5f (±%.2g)", a, b, c, cov.At(a, b), se)
			}
		}
	}
	return nil
}

// TestOutputConditionalLinearPosterior: without hidden layers the output
// layer's conditional is the posterior of Bayesian linear regression in 4
// correlated dimensions; 20,000 draws match its exact mean and covariance
// (5 Monte Carlo standard errors), at temperature 2 the covariance doubles,
// and a √2 error in the draw's noise or ΦᵀΦ scaled by 2 (a wrong N/|B|)
// fails.
func TestOutputConditionalLinearPosterior(t *testing.T) {
	m, X, y := gibbsLinearNet(t)
	mean, cov := linearPosterior(m, X, y, 0.5)
	if r := cov.At(0, 1) / math.Sqrt(cov.At(0, 0)*cov.At(1, 1)); math.Abs(r) < 0.5 {
		t.Fatalf("posterior correlation of w₁ and w₂ %.2f: the test needs correlated coordinates", r)
	}
	run := func(slipCov, slipData, tau float64) error {
		c, err := m.NewOutputConditional()
		if err != nil {
			t.Fatal(err)
		}
		c.SetSlips(slipCov, slipData)
		rng := rand.New(rand.NewPCG(11, 1))
		th := make([]float64, m.Dim())
		draws := make([][]float64, 20000)
		for i := range draws {
			if err := c.Draw(th, tau, rng); err != nil {
				t.Fatal(err)
			}
			draws[i] = append([]float64(nil), th...)
		}
		cv := mat.DenseCopyOf(cov)
		cv.Scale(tau, cv)
		return compareGaussian(draws, mean, cv)
	}
	if err := run(1, 1, 1); err != nil {
		t.Errorf("exact conditional: %v", err)
	}
	if err := run(1, 1, 2); err != nil {
		t.Errorf("temperature 2: %v", err)
	}
	if err := run(math.Sqrt2, 1, 1); err == nil {
		t.Error("draw noise √2 too large: passed")
	} else {
		t.Logf("noise ×√2 fails as it should: %v", err)
	}
	if err := run(1, 2, 1); err == nil {
		t.Error("ΦᵀΦ ×2: passed")
	} else {
		t.Logf("ΦᵀΦ ×2 fails as it should: %v", err)
	}
	c, _ := m.NewOutputConditional()
	th := make([]float64, m.Dim())
	if err := c.Draw(th, 0, nil); err != nil {
		t.Fatal(err)
	}
	for j := range th {
		if math.Abs(th[j]-mean[j]) > 1e-9*(1+math.Abs(mean[j])) {
			t.Errorf("τ = 0: θ[%d] = %v, want the conditional mode %v", j, th[j], mean[j])
		}
	}
}

// TestOutputConditionalMode: on a network with a hidden layer and a learned
// noise (standardised responses), the draw at τ = 0 is where the gradient of
// log p(θ|D) along the output layer vanishes, the other parameters are
// unchanged, and the conditional's precision is the output block of the
// negative Hessian: a draw at τ = 1 moved by δ from the mode changes the
// log posterior by −½δᵀAδ, checked against the model's own density.
func TestOutputConditionalMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	const n = 60
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		X.SetRow(i, []float64{a, b})
		y[i] = 3 + math.Sin(2*a) + 0.5*b + 0.2*rng.NormFloat64()
	}
	m, err := model.NewMLP(X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{6}, Activation: model.Tanh, Likelihood: model.LikGaussian}))
	if err != nil {
		t.Fatal(err)
	}
	th := make([]float64, m.Dim())
	m.FanInInit(th, rng)
	th[m.Dim()-1] = math.Log(0.3)
	c, err := m.NewOutputConditional()
	if err != nil {
		t.Fatal(err)
	}
	mode := append([]float64(nil), th...)
	if err := c.Draw(mode, 0, nil); err != nil {
		t.Fatal(err)
	}
	out := m.OutputLayer()
	inOut := make([]bool, m.Dim())
	for _, j := range out {
		inOut[j] = true
	}
	for j := range th {
		if !inOut[j] && mode[j] != th[j] {
			t.Fatalf("θ[%d] changed from %v to %v: only the output layer is drawn", j, th[j], mode[j])
		}
	}
	logPost := func(x []float64, g []float64) float64 { return m.LogPrior(x, g) + m.LogLik(x, nil, g) }
	g := make([]float64, m.Dim())
	lp0 := logPost(mode, g)
	for _, j := range out {
		if math.Abs(g[j]) > 1e-8*float64(n) {
			t.Errorf("gradient along output parameter %d at the conditional mode: %v", j, g[j])
		}
	}
	// The log posterior is quadratic in the output layer: a draw δ away
	// changes it by exactly −½δᵀAδ, whose expectation over draws is −k/2.
	var sum float64
	const draws = 4000
	for i := 0; i < draws; i++ {
		d := append([]float64(nil), mode...)
		if err := c.Draw(d, 1, rng); err != nil {
			t.Fatal(err)
		}
		sum += logPost(d, nil) - lp0
	}
	k := float64(len(out))
	// −½χ²_k has mean −k/2 and sd √(k/2).
	if got, se := sum/draws, math.Sqrt(k/2/draws); math.Abs(got+k/2) > 5*se {
		t.Errorf("mean log-posterior drop of a draw %.3f, want −k/2 = %.1f (±%.2g)", got, -k/2, se)
	}
	het, err := model.NewMLP(X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{6}, Likelihood: model.LikGaussian, Hetero: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := het.NewOutputConditional(); err == nil {
		t.Error("heteroscedastic network: a conjugate output layer was returned")
	}
}

// BenchmarkOutputConditionalDraw: one exact draw of the 51 output
// parameters of a 1-50-1 network on 800 rows (gap1d's size); Units: the
// same after a sweep of 50 unit moves and 4 noise moves (SetUnitMoves).
func BenchmarkOutputConditionalDraw(b *testing.B) {
	for _, units := range []int{0, 50} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			const n = 800
			X := mat.NewDense(n, 1, nil)
			y := make([]float64, n)
			for i := range y {
				x := 4*rng.Float64() - 2
				X.Set(i, 0, x)
				y[i] = math.Sin(x) + 0.1*rng.NormFloat64()
			}
			m, err := model.NewMLP(X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Likelihood: model.LikGaussian}))
			if err != nil {
				b.Fatal(err)
			}
			th := make([]float64, m.Dim())
			m.FanInInit(th, rng)
			c, err := m.NewOutputConditional()
			if err != nil {
				b.Fatal(err)
			}
			if err := c.SetUnitMoves(units); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.Draw(th, 1, rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A network without hidden layers is Bayesian linear regression: its
// output layer's conditional is the posterior, and the draw at τ = 0 is its
// mean, the ridge estimate (here y = 1 + 2x exactly, prior sd 10, σ² 0.01).
func ExampleMLP_NewOutputConditional() {
	X := mat.NewDense(5, 1, []float64{-2, -1, 0, 1, 2})
	y := []float64{-3, -1, 1, 3, 5}
	m, err := model.NewMLP(X, y, model.MLPOptions{Likelihood: model.LikGaussian, NoiseVar: 0.01, PriorScale: []float64{10}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := m.NewOutputConditional()
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := make([]float64, m.Dim())
	if err := c.Draw(theta, 0, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slope %.4f, intercept %.4f\n", theta[0], theta[1])
	// Output:
	// slope 2.0000, intercept 1.0000
}
