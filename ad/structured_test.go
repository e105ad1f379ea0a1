package ad_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/transform"
)

// TestStructuredFiniteDifferences checks the structured operations against
// central finite differences, each in a model of its own.
func TestStructuredFiniteDifferences(t *testing.T) {
	var l transform.Layout
	a := l.Add("a", transform.Bounded{L: -1, U: 1, N: 1})
	av := l.Add("av", transform.Identity(6))
	b := l.Add("b", transform.Identity(6))
	s := l.Add("s", transform.Positive(3))
	L := l.Add("L", transform.CholeskyCorr(3))
	z := l.Add("z", transform.Identity(12), 4, 3)
	mu := l.Add("mu", transform.Identity(3))
	rng := rand.New(rand.NewPCG(3, 4))
	theta := make([]float64, l.Dim())
	for j := range theta {
		theta[j] = 0.7 * rng.NormFloat64()
	}
	X := ad.NewMatrix(mat.NewDense(5, 3, []float64{
		1, 0.3, -1, 1, -0.2, 0.5, 1, 1.1, 0.2, 1, -0.7, 2, 1, 0.4, -0.3}))
	groups := []int{3, 0, 2, 3, 1}
	batch := []int{4, 0, 0, 2}
	cases := []struct {
		name string
		f    func(t *ad.Tape, batch []int) ad.Vec
	}{
		{"LinearScan(scalar a)", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Sum(t.Square(t.LinearScan(t.Param(a), t.Param(b))))
		}},
		{"LinearScan(vector a)", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Dot(t.LinearScan(t.Param(av), t.Param(b)), t.Param(av))
		}},
		{"CumSum", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Dot(t.CumSum(t.Param(b)), t.Param(av))
		}},
		{"Concat", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Dot(t.Concat(t.Param(s), t.Param(mu)), t.Param(b))
		}},
		{"MatMul", func(t *ad.Tape, _ []int) ad.Vec { // (4×3)(3×3)
			return t.Sum(t.Exp(t.MatMul(t.Param(z), t.Param(L), 3)))
		}},
		{"MatMul(2×3·3×2)", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Sum(t.Square(t.MatMul(t.Param(b), t.Param(av), 3)))
		}},
		{"MatMul(4×3·3×1)", func(t *ad.Tape, _ []int) ad.Vec { // a matrix times a vector
			return t.Sum(t.Exp(t.MatMul(t.Param(z), t.Param(mu), 3)))
		}},
		{"Gram", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Dot(t.Gram(t.Param(b), 3), t.Concat(t.Param(av), t.Param(mu)).Slice(0, 4))
		}},
		{"Gram(4×3)", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Sum(t.Exp(t.Gram(t.Param(z), 3)))
		}},
		{"BernoulliProbit", func(t *ad.Tape, batch []int) ad.Vec {
			return t.BernoulliProbit(t.IntRows([]int{1, 0, 0, 1, 1}, batch), t.Index(t.Param(b), groups, batch))
		}},
		{"CholeskyEffects", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Sum(t.Tanh(t.CholeskyEffects(t.Param(s), t.Param(L), t.Param(z))))
		}},
		{"GroupMatVec", func(t *ad.Tape, batch []int) ad.Vec {
			r := t.CholeskyEffects(t.Param(s), t.Param(L), t.Param(z))
			return t.Sum(t.Square(t.GroupMatVec(X, r, groups, batch)))
		}},
		{"MultiNormalCholesky(shared μ)", func(t *ad.Tape, _ []int) ad.Vec {
			cov := t.MatMul(t.Param(L), t.Param(L), 3) // a lower-triangular factor with diagonal ≠ 1
			return t.MultiNormalCholesky(t.Param(z), t.Param(mu), cov)
		}},
		{"MultiNormalCholesky(row μ)", func(t *ad.Tape, _ []int) ad.Vec {
			return t.MultiNormalCholesky(t.Param(z), t.Exp(t.Param(z)), t.Param(L))
		}},
		{"LKJCorrCholesky", func(t *ad.Tape, _ []int) ad.Vec {
			return t.Add(t.LKJCorrCholesky(t.Param(L), 1), t.LKJCorrCholesky(t.Param(L), 2.5))
		}},
	}
	for _, c := range cases {
		m := ad.New(&l, 5, func(t *ad.Tape) ad.Vec { return c.f(t, nil) }, c.f)
		for _, bt := range [][]int{nil, batch} {
			if err := langevin.CheckGradient(m, theta, bt, 1e-6); err != nil {
				t.Errorf("%s (batch %v): %v", c.name, bt, err)
			}
		}
	}
}

// TestMultiNormalCholeskyValue compares the density with gonum's
// multivariate normal at Σ = LLᵀ.
func TestMultiNormalCholeskyValue(t *testing.T) {
	Lv := []float64{1.5, 0, 0, -0.4, 0.8, 0, 0.3, 0.6, 2}
	x := []float64{0.1, -1, 2, 1.3, 0.2, -0.5}
	mu := []float64{0.5, -0.2, 1}
	var l transform.Layout
	l.Add("u", transform.Identity(1))
	m := ad.New(&l, 1, func(t *ad.Tape) ad.Vec {
		return t.MultiNormalCholesky(t.Data(x), t.Data(mu), t.Data(Lv))
	}, nil)
	got := m.LogPrior([]float64{0}, nil)
	Lm := mat.NewDense(3, 3, Lv)
	var S mat.SymDense
	S.SymOuterK(1, Lm)
	d, ok := distmv.NewNormal(mu, &S, nil)
	if !ok {
		t.Fatal("covariance not positive definite")
	}
	want := d.LogProb(x[:3]) + d.LogProb(x[3:])
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("log density %.15g, gonum %.15g", got, want)
	}
}

// TestLKJNormaliser checks log c_K(η) against integrals: for K = 2 the
// density of the one correlation r is ∝ (1 − r²)^(η−1); for K = 3, η = 1 the
// volume of the 3×3 correlation matrices is π²/2.
func TestLKJNormaliser(t *testing.T) {
	for _, eta := range []float64{0.5, 1, 2, 4.5} {
		want := quad.Fixed(func(r float64) float64 { return math.Pow(1-r*r, eta-1) }, -1, 1, 200, quad.Legendre{}, 0)
		if eta < 1 { // singular at ±1: exact value
			want = math.Exp(float64(2*eta-1)*math.Ln2 + lbeta(eta, eta))
		}
		if got := math.Exp(ad.LKJLogNormaliser(2, eta)); math.Abs(got/want-1) > 1e-9 {
			t.Errorf("K=2 η=%v: c = %.12g, integral %.12g", eta, got, want)
		}
	}
	if got, want := math.Exp(ad.LKJLogNormaliser(3, 1)), math.Pi*math.Pi/2; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("K=3 η=1: c = %.15g, want π²/2 = %.15g", got, want)
	}
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// TestLKJUniformMarginal checks, by exact NUTS, that LKJCorrCholesky(·, η)
// on a CholeskyCorr block gives each correlation of a K = 4 matrix the
// marginal Beta(η − 1 + K/2, η − 1 + K/2) on (−1, 1): mean 0, variance
// 1/(2η − 1 + K)·… (here compared through E r² = 1/(2η + K − 1)).
func TestLKJUniformMarginal(t *testing.T) {
	if testing.Short() {
		t.Skip("NUTS run")
	}
	const K = 4
	for _, eta := range []float64{1, 3} {
		var l transform.Layout
		L := l.Add("L", transform.CholeskyCorr(K))
		m := ad.New(&l, 0, func(t *ad.Tape) ad.Vec { return t.LKJCorrCholesky(t.Param(L), eta) },
			func(t *ad.Tape, _ []int) ad.Vec { return t.Const(0) })
		r2, se := lkjR2(t, m, K)
		want := 1 / (2*eta + K - 1)
		if math.Abs(r2-want) > 4*se {
			t.Errorf("η=%v: E r₁₂² = %.4f ± %.4f, want %.4f", eta, r2, se, want)
		}
	}
}

// lkjR2 returns the NUTS mean of r₂₁² = tanh²(θ₀) (the first partial
// correlation is the correlation itself) and its Monte Carlo standard error.
func lkjR2(t *testing.T, m langevin.Model, K int) (mean, se float64) {
	tr, err := langevin.Run(context.Background(), m, sampler.NUTS{},
		langevin.Options{Chains: 4, Iters: 2000, BurnIn: 500, Seed: 7, Init: langevin.InitUniform{}})
	if err != nil {
		t.Fatal(err)
	}
	ch := tr.Param(0)
	r2 := make([][]float64, len(ch))
	var s float64
	var n int
	for c, x := range ch {
		r2[c] = make([]float64, len(x))
		for i, v := range x {
			r := math.Tanh(v)
			r2[c][i] = r * r
			s += r * r
			n++
		}
	}
	return s / float64(n), diag.MCSEMean(r2)
}

// BenchmarkCorrelatedGroups: log posterior and gradient of a logistic
// model with correlated varying intercepts and slopes (2,000 rows, 50
// groups), written with CholeskyEffects, GroupMatVec and LKJCorrCholesky.
func BenchmarkCorrelatedGroups(b *testing.B) {
	const n, J = 2000, 50
	rng := rand.New(rand.NewPCG(1, 1))
	Xd := make([]float64, 2*n)
	g := make([]int, n)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		Xd[2*i], Xd[2*i+1] = 1, rng.NormFloat64()
		g[i] = rng.IntN(J)
		y[i] = rng.IntN(2)
	}
	X := ad.NewMatrix(mat.NewDense(n, 2, Xd))
	var l transform.Layout
	beta := l.Add("beta", transform.Identity(2))
	sd := l.Add("sd", transform.Positive(2))
	L := l.Add("L", transform.CholeskyCorr(2))
	z := l.Add("z", transform.Identity(2*J), J, 2)
	m := ad.New(&l, n, func(t *ad.Tape) ad.Vec {
		return t.Total(t.StudentT(t.Param(sd), t.Const(3), t.Const(0), t.Const(2.5)),
			t.LKJCorrCholesky(t.Param(L), 1), t.Normal(t.Param(z), t.Const(0), t.Const(1)))
	}, func(t *ad.Tape, batch []int) ad.Vec {
		r := t.CholeskyEffects(t.Param(sd), t.Param(L), t.Param(z))
		eta := t.Add(t.MatVec(X, t.Param(beta), batch), t.GroupMatVec(X, r, g, batch))
		return t.BernoulliLogit(t.IntRows(y, batch), eta)
	})
	benchPosterior(b, m)
}
