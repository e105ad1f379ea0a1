package ad_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/transform"
)

// Eight schools (Rubin 1981), non-centred: θⱼ = μ + τ θ̃ⱼ.
func eightSchools() *ad.Model {
	y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	sigma := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	var l transform.Layout
	mu := l.Add("mu", transform.Identity(1))
	tau := l.Add("tau", transform.Positive(1))
	eta := l.Add("theta_tilde", transform.Identity(8))
	prior := func(t *ad.Tape) ad.Vec {
		return t.Total(
			t.Normal(t.Param(mu), t.Const(0), t.Const(5)),
			t.HalfCauchy(t.Param(tau), t.Const(5)),
			t.Normal(t.Param(eta), t.Const(0), t.Const(1)))
	}
	lik := func(t *ad.Tape, batch []int) ad.Vec {
		theta := t.Add(t.Param(mu), t.Mul(t.Param(tau), t.Select(t.Param(eta), batch)))
		return t.Normal(t.Rows(y, batch), theta, t.Rows(sigma, batch))
	}
	return ad.New(&l, len(y), prior, lik)
}

// Hierarchical logistic regression with varying intercepts by group.
func hierLogistic(X *mat.Dense, y, group []int, groups int) *ad.Model {
	n, p := X.Dims()
	Xm := ad.NewMatrix(X)
	var l transform.Layout
	muA := l.Add("mu_alpha", transform.Identity(1))
	sA := l.Add("sigma_alpha", transform.Positive(1))
	z := l.Add("alpha_raw", transform.Identity(groups))
	beta := l.Add("beta", transform.Identity(p))
	prior := func(t *ad.Tape) ad.Vec {
		return t.Total(
			t.Normal(t.Param(muA), t.Const(0), t.Const(2.5)),
			t.HalfNormal(t.Param(sA), t.Const(1)),
			t.Normal(t.Param(z), t.Const(0), t.Const(1)),
			t.Normal(t.Param(beta), t.Const(0), t.Const(2.5)))
	}
	lik := func(t *ad.Tape, batch []int) ad.Vec {
		alpha := t.Add(t.Param(muA), t.Mul(t.Param(sA), t.Param(z))) // α_g = μ + σ z_g
		eta := t.Add(t.Index(alpha, group, batch), t.MatVec(Xm, t.Param(beta), batch))
		return t.BernoulliLogit(t.IntRows(y, batch), eta)
	}
	return ad.New(&l, n, prior, lik)
}

// Poisson GLM with a log link and an exposure: log E[yᵢ] = log uᵢ + α + xᵢᵀβ.
func poissonGLM(X *mat.Dense, y []int, exposure []float64) *ad.Model {
	n, p := X.Dims()
	Xm := ad.NewMatrix(X)
	offset := make([]float64, n)
	for i, u := range exposure {
		offset[i] = math.Log(u)
	}
	var l transform.Layout
	alpha := l.Add("alpha", transform.Identity(1))
	beta := l.Add("beta", transform.Identity(p))
	prior := func(t *ad.Tape) ad.Vec {
		return t.Add(t.Normal(t.Param(alpha), t.Const(0), t.Const(10)),
			t.Normal(t.Param(beta), t.Const(0), t.Const(2.5)))
	}
	lik := func(t *ad.Tape, batch []int) ad.Vec {
		return t.PoissonLogGLM(y, Xm, batch, t.Param(alpha), t.Param(beta), offset)
	}
	return ad.New(&l, n, prior, lik)
}

// check compares an automatic model with its hand-gradient twin: gradients
// at random points (relative error ≤ 1e-10) and NUTS posterior means of
// every parameter, run on each with its own seed, within 4 combined MCSEs.
func check(auto, hand langevin.Model) (gradOK, nutsOK bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := auto.Dim()
	gradOK = true
	for rep := 0; rep < 5; rep++ {
		th := make([]float64, d)
		for j := range th {
			th[j] = rng.NormFloat64()
		}
		ga, gh := make([]float64, d), make([]float64, d)
		va, vh := langevin.LogPosterior(auto, th, ga), langevin.LogPosterior(hand, th, gh)
		gradOK = gradOK && relErr(va, vh) <= 1e-10
		for j := range ga {
			gradOK = gradOK && relErr(ga[j], gh[j]) <= 1e-10
		}
	}
	run := func(m langevin.Model, seed uint64) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, sampler.NUTS{},
			langevin.Options{Chains: 4, Iters: 1500, BurnIn: 750, Seed: seed, Init: langevin.InitUniform{}})
		if err != nil {
			panic(err)
		}
		return tr
	}
	ta, th := run(auto, 1), run(hand, 2)
	nutsOK = true
	for j := 0; j < d; j++ {
		a, h := ta.Param(j), th.Param(j)
		ma, mh := mean(a), mean(h)
		se := math.Hypot(diag.MCSEMean(a), diag.MCSEMean(h))
		nutsOK = nutsOK && math.Abs(ma-mh) <= 4*se
	}
	return gradOK, nutsOK
}

func mean(chains [][]float64) float64 {
	var s float64
	var n int
	for _, c := range chains {
		for _, v := range c {
			s += v
			n++
		}
	}
	return s / float64(n)
}

func Example_eightSchools() {
	g, n := check(eightSchools(), handEightSchools{})
	fmt.Println("gradients equal the hand-written ones:", g)
	fmt.Println("NUTS agrees with NUTS on the hand-gradient model:", n)
	// Output:
	// gradients equal the hand-written ones: true
	// NUTS agrees with NUTS on the hand-gradient model: true
}

func Example_hierarchicalLogistic() {
	X, y, group := hierData(300, 2, 6)
	g, n := check(hierLogistic(X, y, group, 6), newHandHier(X, y, group, 6))
	fmt.Println("gradients equal the hand-written ones:", g)
	fmt.Println("NUTS agrees with NUTS on the hand-gradient model:", n)
	// Output:
	// gradients equal the hand-written ones: true
	// NUTS agrees with NUTS on the hand-gradient model: true
}

func Example_poissonGLM() {
	X, y, u := poissonData(200, 3)
	g, n := check(poissonGLM(X, y, u), newHandPoisson(X, y, u))
	fmt.Println("gradients equal the hand-written ones:", g)
	fmt.Println("NUTS agrees with NUTS on the hand-gradient model:", n)
	// Output:
	// gradients equal the hand-written ones: true
	// NUTS agrees with NUTS on the hand-gradient model: true
}
