package model_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/langevin-go/langevin/model"
)

func TestLabelErrors(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(30, 20, 2)
	for _, c := range []struct {
		name   string
		edit   func(y []float64)
		row    int
		value  float64
		other  int
		errMsg string
	}{
		{"two", func(y []float64) { y[16] = 2 }, 17, 2, 0,
			"row 17: label 2: logistic regression expects labels 0/1 or −1/+1"},
		{"half", func(y []float64) { y[0] = 0.5 }, 1, 0.5, 0,
			"row 1: label 0.5: logistic regression expects labels 0/1 or −1/+1"},
		{"NaN", func(y []float64) { y[4] = math.NaN() }, 5, math.NaN(), 0,
			"row 5: label NaN: logistic regression expects labels 0/1 or −1/+1"},
		{"mixed -1 after 0", func(y []float64) {
			for i := range y {
				y[i] = 1
			}
			y[2], y[9] = 0, -1
		}, 10, -1, 3, "row 10: label -1: labels mix the 0/1 and −1/+1 codings (row 3: label 0)"},
		{"mixed 0 after -1", func(y []float64) {
			for i := range y {
				y[i] = 1
			}
			y[5], y[6] = -1, 0
		}, 7, 0, 6, "row 7: label 0: labels mix the 0/1 and −1/+1 codings (row 6: label -1)"},
	} {
		y := append([]float64(nil), labels...)
		c.edit(y)
		_, err := model.NewLogistic(X, y, model.LogisticOptions{})
		var le *model.LabelError
		if !errors.As(err, &le) {
			t.Errorf("%s: error %v, want a *LabelError", c.name, err)
			continue
		}
		if le.Row != c.row || !(le.Value == c.value || math.IsNaN(c.value) && math.IsNaN(le.Value)) || le.Other != c.other {
			t.Errorf("%s: %+v, want row %d value %v other %d", c.name, *le, c.row, c.value, c.other)
		}
		if err.Error() != c.errMsg {
			t.Errorf("%s: message %q, want %q", c.name, err.Error(), c.errMsg)
		}
	}
	// Valid codings, including one-class data sets.
	for _, y := range [][]float64{
		labels, pm1(labels), make([]float64, 20), fill(20, 1), fill(20, -1),
	} {
		if _, err := model.NewLogistic(X, y, model.LogisticOptions{}); err != nil {
			t.Errorf("labels %v: %v", y, err)
		}
	}
}

func fill(n int, v float64) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = v
	}
	return y
}

// TestLogisticCodings checks that 0/1 and −1/+1 labels give identical
// log-likelihoods and gradients.
func TestLogisticCodings(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(31, 200, 3)
	a := mustLogistic(t, X, labels, model.LogisticOptions{})
	b := mustLogistic(t, X, pm1(labels), model.LogisticOptions{})
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, a.Dim())
	for k := 0; k < 5; k++ {
		for j := range theta {
			theta[j] = 2 * rng.NormFloat64()
		}
		for _, batch := range [][]int{nil, {4, 4, 100, 3}} {
			ga, gb := make([]float64, a.Dim()), make([]float64, b.Dim())
			la, lb := a.LogLik(theta, batch, ga), b.LogLik(theta, batch, gb)
			if la != lb || !floats.Equal(ga, gb) {
				t.Errorf("0/1 labels: %v %v; ±1 labels: %v %v", la, ga, lb, gb)
			}
		}
	}
}

// TestLogisticValues checks the log-likelihood and prior against direct
// formulas, and stability at extreme linear predictors.
func TestLogisticValues(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(32, 50, 2)
	m := mustLogistic(t, X, labels, model.LogisticOptions{PriorScale: 3})
	theta := []float64{0.3, -1.2, 0.8}
	var want float64
	for i := 0; i < 50; i++ {
		z := theta[0] + theta[1]*X.At(i, 0) + theta[2]*X.At(i, 1)
		p := 1 / (1 + math.Exp(-z))
		if labels[i] == 1 {
			want += math.Log(p)
		} else {
			want += math.Log(1 - p)
		}
	}
	if got := m.LogLik(theta, nil, nil); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("log-likelihood %v, want %v", got, want)
	}
	prior, _ := distmv.NewNormal([]float64{0, 0, 0}, mat.NewDiagDense(3, []float64{9, 9, 9}), nil)
	if got, want := m.LogPrior(theta, nil), prior.LogProb(theta); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("log prior %v, want %v", got, want)
	}

	// One observation x = 1 (no intercept) and huge |β|.
	one := mat.NewDense(1, 1, []float64{1})
	for _, c := range []struct{ y, beta, ll, g float64 }{
		{1, 800, 0, 0},
		{0, 800, -800, -1},
		{1, -800, -800, 1},
		{0, -800, 0, 0},
		{1, 40, -math.Exp(-40), math.Exp(-40)},
		{0, 0, -math.Ln2, -0.5},
	} {
		m := mustLogistic(t, one, []float64{c.y}, model.LogisticOptions{NoIntercept: true})
		g := []float64{0}
		ll := m.LogLik([]float64{c.beta}, nil, g)
		if math.Abs(ll-c.ll) > 1e-15*math.Max(1, math.Abs(c.ll)) || math.Abs(g[0]-c.g) > 1e-15*math.Max(1e-17, math.Abs(c.g)) {
			t.Errorf("y = %v, β = %v: log-lik %v, grad %v; want %v, %v", c.y, c.beta, ll, g[0], c.ll, c.g)
		}
		p := m.Predict([]float64{c.beta}, one, nil)[0]
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("β = %v: probability %v", c.beta, p)
		}
	}
}

func TestLogisticPredict(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(33, 100, 3)
	m := mustLogistic(t, X, labels, model.LogisticOptions{})
	Xt, _, _ := regData(34, 9, 3)
	rng := rand.New(rand.NewPCG(3, 4))
	draws := make([][]float64, 40)
	for s := range draws {
		draws[s] = make([]float64, m.Dim()+2) // extra entries are ignored
		m.SamplePrior(draws[s], rng)
		draws[s][m.Dim()], draws[s][m.Dim()+1] = math.NaN(), 1e300
	}
	sig := func(w []float64, i int) float64 {
		z := w[0] + w[1]*Xt.At(i, 0) + w[2]*Xt.At(i, 1) + w[3]*Xt.At(i, 2)
		return 1 / (1 + math.Exp(-z))
	}
	p := m.Predict(draws[0], Xt, nil)
	cp := mat.NewDense(9, 2, nil)
	m.ClassProbs(draws[1], Xt, cp)
	for i := 0; i < 9; i++ {
		if want := sig(draws[0], i); math.Abs(p[i]-want) > 1e-14 {
			t.Errorf("Predict[%d] = %v, want %v", i, p[i], want)
		}
		if want := sig(draws[1], i); math.Abs(cp.At(i, 1)-want) > 1e-14 || math.Abs(cp.At(i, 0)-(1-want)) > 1e-14 {
			t.Errorf("ClassProbs row %d = %v, want (%v, %v)", i, cp.RawRowView(i), 1-want, want)
		}
	}
}

// TestLogisticSamplePrior checks the prior draws' scale.
func TestLogisticSamplePrior(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(35, 10, 2)
	m := mustLogistic(t, X, labels, model.LogisticOptions{PriorScale: 2})
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 40000
	var ss float64
	w := make([]float64, m.Dim())
	for i := 0; i < n; i++ {
		m.SamplePrior(w, rng)
		ss += floats.Dot(w, w)
	}
	// E‖β‖² = 3·4 = 12, sd of the estimate ≈ √(2·3·16/n).
	if v := ss / n; math.Abs(v-12) > 5*math.Sqrt(2*3*16.0/n) {
		t.Errorf("mean ‖β‖² = %v, want 12", v)
	}
}

// TestLogisticFullPassEqualsRows checks the blocked, column-wise full-data
// pass against the row-wise minibatch pass over all indices, across block
// boundaries and with large |xᵀβ|.
func TestLogisticFullPassEqualsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 255, 256, 257, 700} {
		const p = 5
		x := make([]float64, n*p)
		y := make([]float64, n)
		for i := range x {
			x[i] = 3 * rng.NormFloat64()
		}
		for i := range y {
			y[i] = float64(rng.IntN(2))
		}
		for _, noInt := range []bool{false, true} {
			m, err := model.NewLogistic(mat.NewDense(n, p, x), y, model.LogisticOptions{NoIntercept: noInt})
			if err != nil {
				t.Fatal(err)
			}
			theta := make([]float64, m.Dim())
			for j := range theta {
				theta[j] = 4 * rng.NormFloat64()
			}
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			g1, g2 := make([]float64, m.Dim()), make([]float64, m.Dim())
			v1, v2 := m.LogLik(theta, nil, g1), m.LogLik(theta, all, g2)
			if math.Abs(v1-v2) > 1e-12*math.Max(1, math.Abs(v2)) {
				t.Errorf("n=%d noIntercept=%v: value %v, row-wise %v", n, noInt, v1, v2)
			}
			for j := range g1 {
				if math.Abs(g1[j]-g2[j]) > 1e-10*math.Max(1, math.Abs(g2[j])) {
					t.Errorf("n=%d noIntercept=%v: grad[%d] %v, row-wise %v", n, noInt, j, g1[j], g2[j])
				}
			}
		}
	}
}
