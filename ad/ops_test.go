package ad_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/density"
	"github.com/langevin-go/langevin/transform"
)

// TestFiniteDifferences checks every operation, density and transform of
// the tape against central finite differences (langevin.CheckGradient),
// each in a model of its own so that a failure names the operation.
func TestFiniteDifferences(t *testing.T) {
	X := mat.NewDense(5, 3, []float64{
		0.1, -1, 2,
		1, 0.5, -0.3,
		-2, 0.2, 0.7,
		0.4, 1.1, -1,
		0.9, -0.6, 0.3,
	})
	Xm := ad.NewMatrix(X)
	yf := []float64{0.3, -1.2, 2, 0.1, 0.8}
	reg := ad.NewRegression(Xm, yf)
	yk := []int{0, 3, 1, 7, 2}
	yb := []int{1, 0, 0, 1, 1}
	trials := []int{3, 5, 1, 9, 2}
	pos := []float64{0.3, 1.2, 2, 0.1, 0.8}
	unit := []float64{0.3, 0.2, 0.9, 0.1, 0.8}
	groups := []int{0, 1, 1, 2, 0}
	off := []float64{0.1, -0.2, 0, 0.3, 0.5}

	var l transform.Layout
	a := l.Add("a", transform.Identity(1))
	v := l.Add("v", transform.Identity(3))
	s := l.Add("s", transform.Positive(1))
	b := l.Add("b", transform.Bounded{L: 0.5, U: 4, N: 1})
	o := l.Add("o", transform.Ordered(3))
	sx := l.Add("sx", transform.Simplex(3))
	L := l.Add("L", transform.CholeskyCorr(3))
	u := l.Add("u", transform.Upper{U: 2, N: 2})
	theta := []float64{0.2, 0.3, -0.4, 0.5, -0.3, 0.4, -1, 0.2, -0.1, 0.3, -0.2, 0.1, 0.4, -0.5, 0.6, 0.1}
	if len(theta) != l.Dim() {
		t.Fatalf("theta has %d values, layout %d", len(theta), l.Dim())
	}
	batch := []int{4, 1, 1, 3}

	cases := []struct {
		name string
		f    func(t *ad.Tape, batch []int) ad.Vec
	}{
		{"Add/Sub/Mul/Div", func(t *ad.Tape, _ []int) ad.Vec {
			x := t.Param(v)
			return t.Sum(t.Div(t.Mul(t.Add(x, t.Param(a)), t.Sub(t.Param(s), x)), t.Add(t.Param(b), x)))
		}},
		{"unary", func(t *ad.Tape, _ []int) ad.Vec {
			x := t.Param(v)
			p := t.Param(sx)
			return t.Total(t.Sum(t.Exp(x)), t.Sum(t.Log(t.Param(o).Slice(1, 3))), t.Sum(t.Square(x)),
				t.Sum(t.Sqrt(t.Param(s))), t.Sum(t.Softplus(x)), t.Sum(t.Sigmoid(x)), t.Sum(t.Tanh(x)),
				t.Sum(t.Neg(x)), t.Sum(t.Log1m(p)))
		}},
		{"Dot", func(t *ad.Tape, _ []int) ad.Vec { return t.Dot(t.Param(v), t.Param(sx)) }},
		{"MatVec", func(t *ad.Tape, batch []int) ad.Vec {
			return t.Sum(t.Square(t.MatVec(Xm, t.Param(v), batch)))
		}},
		{"MatMulT", func(t *ad.Tape, batch []int) ad.Vec {
			W := t.Mul(t.Theta().Slice(0, 6), t.Theta().Slice(6, 12))
			return t.Sum(t.Exp(t.MatMulT(Xm, W, batch)))
		}},
		{"Index/Select", func(t *ad.Tape, batch []int) ad.Vec {
			return t.Add(t.Sum(t.Square(t.Index(t.Param(v), groups, batch))), t.Sum(t.Square(t.Select(t.Param(sx), []int{2, 0}))))
		}},
		{"Normal", func(t *ad.Tape, batch []int) ad.Vec {
			return t.Normal(t.Rows(yf, batch), t.Index(t.Param(v), groups, batch), t.Param(s))
		}},
		{"Normal(σ vector)", func(t *ad.Tape, _ []int) ad.Vec { return t.Normal(t.Param(a), t.Param(v), t.Param(sx)) }},
		{"StudentT", func(t *ad.Tape, batch []int) ad.Vec {
			return t.StudentT(t.Rows(yf, batch), t.Param(b), t.Param(a), t.Param(s))
		}},
		{"Cauchy", func(t *ad.Tape, _ []int) ad.Vec { return t.Cauchy(t.Param(v), t.Param(a), t.Param(s)) }},
		{"HalfNormal", func(t *ad.Tape, _ []int) ad.Vec { return t.HalfNormal(t.Param(sx), t.Param(s)) }},
		{"HalfCauchy", func(t *ad.Tape, _ []int) ad.Vec { return t.HalfCauchy(t.Param(sx), t.Param(b)) }},
		{"Exponential", func(t *ad.Tape, batch []int) ad.Vec { return t.Exponential(t.Rows(pos, batch), t.Param(s)) }},
		{"Gamma", func(t *ad.Tape, _ []int) ad.Vec { return t.Gamma(t.Param(sx), t.Param(s), t.Param(b)) }},
		{"InvGamma", func(t *ad.Tape, _ []int) ad.Vec { return t.InvGamma(t.Param(s), t.Param(b), t.Param(sx)) }},
		{"LogNormal", func(t *ad.Tape, _ []int) ad.Vec { return t.LogNormal(t.Param(sx), t.Param(a), t.Param(s)) }},
		{"Beta", func(t *ad.Tape, batch []int) ad.Vec { return t.Beta(t.Rows(unit, batch), t.Param(s), t.Param(b)) }},
		{"BernoulliLogit", func(t *ad.Tape, batch []int) ad.Vec {
			return t.BernoulliLogit(t.IntRows(yb, batch), t.MatVec(Xm, t.Param(v), batch))
		}},
		{"BinomialLogit", func(t *ad.Tape, batch []int) ad.Vec {
			return t.BinomialLogit(t.IntRows(yk, batch), t.IntRows(trials, batch), t.Sub(t.MatVec(Xm, t.Param(v), batch), t.Const(5)))
		}},
		{"PoissonLog", func(t *ad.Tape, batch []int) ad.Vec {
			return t.PoissonLog(t.IntRows(yk, batch), t.MatVec(Xm, t.Param(v), batch))
		}},
		{"NegBin2Log", func(t *ad.Tape, batch []int) ad.Vec {
			return t.NegBin2Log(t.IntRows(yk, batch), t.MatVec(Xm, t.Param(v), batch), t.Param(s))
		}},
		{"CategoricalLogit", func(t *ad.Tape, batch []int) ad.Vec {
			return t.CategoricalLogit(t.IntRows(groups, batch), t.MatMulT(Xm, t.Theta().Slice(1, 10), batch))
		}},
		{"NormalIDGLM", func(t *ad.Tape, batch []int) ad.Vec {
			return t.NormalIDGLM(yf, Xm, batch, t.Param(a), t.Param(v), t.Param(s))
		}},
		{"NormalRegression", func(t *ad.Tape, batch []int) ad.Vec {
			return t.NormalRegression(reg, batch, t.Param(a), t.Param(v), t.Param(s))
		}},
		{"BernoulliLogitGLM", func(t *ad.Tape, batch []int) ad.Vec {
			return t.BernoulliLogitGLM(yb, Xm, batch, t.Param(a), t.Param(v))
		}},
		{"BernoulliProbitGLM", func(t *ad.Tape, batch []int) ad.Vec {
			return t.BernoulliProbitGLM(yb, Xm, batch, t.Param(a), t.Param(v))
		}},
		{"PoissonLogGLM", func(t *ad.Tape, batch []int) ad.Vec {
			return t.PoissonLogGLM(yk, Xm, batch, t.Param(a), t.Param(v), off)
		}},
		{"NegBin2LogGLM", func(t *ad.Tape, batch []int) ad.Vec {
			return t.NegBin2LogGLM(yk, Xm, batch, t.Param(a), t.Param(v), t.Param(s), off)
		}},
		{"transforms", func(t *ad.Tape, _ []int) ad.Vec {
			// Every transform, through its values and (in LogPrior) its Jacobian.
			return t.Total(t.Sum(t.Square(t.Param(o))), t.Dot(t.Param(sx), t.Param(v)),
				t.Sum(t.Exp(t.Param(L))), t.Sum(t.Param(u)), t.Param(b))
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

// TestJacobianInPriorOnly checks that LogPrior carries the log Jacobian of
// the blocks read with Param and LogLik does not.
func TestJacobianInPriorOnly(t *testing.T) {
	var l transform.Layout
	s := l.Add("s", transform.Positive(1))
	p := l.Add("p", transform.Simplex(3))
	y := []float64{0.5, -0.2}
	m := ad.New(&l, 2,
		func(t *ad.Tape) ad.Vec { return t.Exponential(t.Param(s), t.Const(1)) },
		func(t *ad.Tape, batch []int) ad.Vec {
			return t.Normal(t.Rows(y, batch), t.Param(p).At(0), t.Param(s))
		})
	theta := []float64{0.3, 0.1, -0.2}
	sv := math.Exp(0.3)
	yv := make([]float64, 3)
	ljp := transform.Simplex(3).Forward(yv, theta[1:])
	wantPrior := -sv + 0.3 + ljp // Exp(1) log density + log|J| of both blocks
	if got := m.LogPrior(theta, nil); math.Abs(got-wantPrior) > 1e-14 {
		t.Errorf("LogPrior = %.15g, want %.15g (prior + log|J|)", got, wantPrior)
	}
	wantLik := density.NormalSum(y, yv[:1], []float64{sv}, nil, nil, nil)
	if got := m.LogLik(theta, nil, nil); math.Abs(got-wantLik) > 1e-14 {
		t.Errorf("LogLik = %.15g, want %.15g (no Jacobian)", got, wantLik)
	}
	if err := langevin.CheckGradient(m, theta, nil, 1e-7); err != nil {
		t.Error(err)
	}
}
