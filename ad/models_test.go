package ad_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/transform"
)

// regData returns n rows of p standard-normal features, a linear response
// and 0/1 and K-class labels drawn from the matching models.
func regData(seed uint64, n, p, K int) (X *mat.Dense, y []float64, labels, classes []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X = mat.NewDense(n, p, nil)
	y, labels, classes = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		var z float64
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			z += v * float64(j%3-1) * 0.5
		}
		y[i] = 1 + z + rng.NormFloat64()
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			labels[i] = 1
		}
		classes[i] = float64(rng.IntN(K))
	}
	return X, y, labels, classes
}

func ints(y []float64) []int {
	out := make([]int, len(y))
	for i, v := range y {
		out[i] = int(v)
	}
	return out
}

// adLogistic is model.Logistic (intercept, N(0, 1) prior) written on a tape;
// glm picks the fused node instead of MatVec + BernoulliLogit.
func adLogistic(X *mat.Dense, labels []float64, glm bool) *ad.Model {
	n, p := X.Dims()
	Xm, y := ad.NewMatrix(X), ints(labels)
	return ad.NewPlain(p+1, n,
		func(t *ad.Tape) ad.Vec { return t.Normal(t.Theta(), t.Const(0), t.Const(1)) },
		func(t *ad.Tape, batch []int) ad.Vec {
			th := t.Theta()
			a, beta := th.At(0), th.Slice(1, p+1)
			if glm {
				return t.BernoulliLogitGLM(y, Xm, batch, a, beta)
			}
			return t.BernoulliLogit(t.IntRows(y, batch), t.Add(a, t.MatVec(Xm, beta, batch)))
		})
}

// adLinear is model.Linear with its default prior (β | σ² ~ N(0, 100σ²I),
// σ² ~ IG(1, 1)) on a layout with a positive σ².
func adLinear(X *mat.Dense, y []float64, glm bool) *ad.Model {
	return adLinearKind(X, y, map[bool]string{true: "glm", false: "matvec"}[glm])
}

// adLinearKind is adLinear with the likelihood as MatVec + Normal
// ("matvec"), the NormalIDGLM node ("glm") or NormalRegression ("suff").
func adLinearKind(X *mat.Dense, y []float64, kind string) *ad.Model {
	n, p := X.Dims()
	Xm := ad.NewMatrix(X)
	reg := ad.NewRegression(Xm, y)
	glm := kind == "glm"
	var l transform.Layout
	icpt := l.Add("intercept", transform.Identity(1))
	beta := l.Add("beta", transform.Identity(p))
	s2 := l.Add("sigma2", transform.Positive(1))
	coef := icpt.Off // intercept and beta are adjacent in θ
	return ad.New(&l, n,
		func(t *ad.Tape) ad.Vec {
			sigma2 := t.Param(s2)
			all := t.Theta().Slice(coef, coef+p+1)
			return t.Total(
				t.Normal(all, t.Const(0), t.Sqrt(t.Mul(t.Const(100), sigma2))),
				t.InvGamma(sigma2, t.Const(1), t.Const(1)))
		},
		func(t *ad.Tape, batch []int) ad.Vec {
			sigma := t.Sqrt(t.Param(s2))
			if kind == "suff" {
				return t.NormalRegression(reg, batch, t.Param(icpt), t.Param(beta), sigma)
			}
			if glm {
				return t.NormalIDGLM(y, Xm, batch, t.Param(icpt), t.Param(beta), sigma)
			}
			mu := t.Add(t.Param(icpt), t.MatVec(Xm, t.Param(beta), batch))
			return t.Normal(t.Rows(y, batch), mu, sigma)
		})
}

// adSoftmax is model.Softmax (intercepts, precision 1) with θ the K×(p+1)
// class-major coefficients and X̃ = (1, X).
func adSoftmax(X *mat.Dense, classes []float64, K int) *ad.Model {
	n, p := X.Dims()
	Xt := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		Xt.Set(i, 0, 1)
		for j := 0; j < p; j++ {
			Xt.Set(i, j+1, X.At(i, j))
		}
	}
	Xm, y := ad.NewMatrix(Xt), ints(classes)
	return ad.NewPlain(K*(p+1), n,
		func(t *ad.Tape) ad.Vec { return t.Normal(t.Theta(), t.Const(0), t.Const(1)) },
		func(t *ad.Tape, batch []int) ad.Vec {
			return t.CategoricalLogit(t.IntRows(y, batch), t.MatMulT(Xm, t.Theta(), batch))
		})
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// sameModel checks that two models agree in value and gradient (prior and
// likelihood, full data and a minibatch with repeats) to tol.
func sameModel(t *testing.T, name string, hand, auto langevin.Model, tol float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	d := hand.Dim()
	if auto.Dim() != d {
		t.Fatalf("%s: Dim %d, hand-written %d", name, auto.Dim(), d)
	}
	for rep := 0; rep < 3; rep++ {
		theta := make([]float64, d)
		for j := range theta {
			theta[j] = 0.3 * rng.NormFloat64()
		}
		for _, batch := range [][]int{nil, {3, 1, 4, 1, 5, 9, 2, 6}} {
			gh, ga := make([]float64, d), make([]float64, d)
			vh := hand.LogPrior(theta, gh) + hand.LogLik(theta, batch, gh)
			va := auto.LogPrior(theta, ga) + auto.LogLik(theta, batch, ga)
			if e := relErr(vh, va); !(e <= tol) {
				t.Errorf("%s (batch %v): value %.15g, hand-written %.15g (rel. error %.2g)", name, batch, va, vh, e)
			}
			for j := range gh {
				if e := relErr(gh[j], ga[j]); !(e <= tol) {
					t.Errorf("%s (batch %v): gradient[%d] %.15g, hand-written %.15g (rel. error %.2g)", name, batch, j, ga[j], gh[j], e)
				}
			}
		}
	}
}

func TestAgreesWithHandWritten(t *testing.T) {
	X, y, labels, classes := regData(1, 300, 6, 4)
	lg, err := model.NewLogistic(X, labels, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := model.NewSoftmax(X, classes, model.SoftmaxOptions{Classes: 4})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-10
	sameModel(t, "logistic (MatVec)", lg, adLogistic(X, labels, false), tol)
	sameModel(t, "logistic (GLM)", lg, adLogistic(X, labels, true), tol)
	sameModel(t, "linear (MatVec)", lin, adLinear(X, y, false), tol)
	sameModel(t, "linear (GLM)", lin, adLinear(X, y, true), tol)
	sameModel(t, "linear (sufficient statistics)", lin, adLinearKind(X, y, "suff"), tol)
	sameModel(t, "softmax", sm, adSoftmax(X, classes, 4), tol)
	// The layout names the parameters as the hand-written model does.
	hn, an := lin.ParamNames(), adLinear(X, y, true).ParamNames()
	for j := range hn {
		if hn[j] != an[j] {
			t.Errorf("linear ParamNames[%d] = %q, hand-written %q", j, an[j], hn[j])
		}
	}
	if dn := adLinear(X, y, true).DerivedNames(); len(dn) != 1 || dn[0] != "sigma2" {
		t.Errorf("linear DerivedNames = %v, want [sigma2]", dn)
	}
}

// TestCatchesSlip shows that sameModel fails on a model that differs from
// the hand-written one by a small slip (a prior scale of 1.0001).
func TestCatchesSlip(t *testing.T) {
	X, _, labels, _ := regData(1, 100, 3, 2)
	lg, _ := model.NewLogistic(X, labels, model.LogisticOptions{PriorScale: 1.0001})
	ft := &testing.T{}
	sameModel(ft, "slipped", lg, adLogistic(X, labels, true), 1e-10)
	if !ft.Failed() {
		t.Error("a prior scale of 1.0001 instead of 1 went unnoticed")
	}
}

// TestNormalRegressionLarge: on the benchmark's 5000×26 regression the
// sufficient-statistics node equals the hand-written O(np) model to 1e-10.
func TestNormalRegressionLarge(t *testing.T) {
	X, y, _, _ := regData(5, 5000, 25, 2)
	lin, err := model.NewLinear(X, y, model.LinearOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, "linear 5000×26 (sufficient statistics)", lin, adLinearKind(X, y, "suff"), 1e-10)
}
