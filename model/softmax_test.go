package model_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

func mustSoftmax(t testing.TB, X *mat.Dense, y []float64, opt model.SoftmaxOptions) *model.Softmax {
	t.Helper()
	m, err := model.NewSoftmax(X, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// classes3 cuts the responses y into three classes 0, 1, 2 at −0.5 and 1.5.
func classes3(y []float64) []float64 {
	c := make([]float64, len(y))
	for i, v := range y {
		switch {
		case v < -0.5:
			c[i] = 0
		case v < 1.5:
			c[i] = 1
		default:
			c[i] = 2
		}
	}
	return c
}

// TestSoftmaxTwoClasses checks the likelihood against logistic regression:
// with two classes and θ₁ = 0 (class 0), P(y = 1) = σ(z₂) exactly.
func TestSoftmaxTwoClasses(t *testing.T) {
	t.Parallel()
	X, _, labels := regData(5, 60, 3)
	sm := mustSoftmax(t, X, labels, model.SoftmaxOptions{})
	lg := mustLogistic(t, X, labels, model.LogisticOptions{})
	beta := []float64{0.3, -0.7, 1.2, 0.4}
	theta := append(make([]float64, 4), beta...)
	gs, gl := make([]float64, 8), make([]float64, 4)
	ls := sm.LogLik(theta, nil, gs)
	ll := lg.LogLik(beta, nil, gl)
	if math.Abs(ls-ll) > 1e-12*math.Abs(ll) {
		t.Errorf("log-likelihood %v, logistic %v", ls, ll)
	}
	for j := range gl {
		// Class 2's gradient is the logistic gradient, class 1's its negative.
		if math.Abs(gs[4+j]-gl[j]) > 1e-12 || math.Abs(gs[j]+gl[j]) > 1e-12 {
			t.Errorf("gradient %d: softmax %v / %v, logistic %v", j, gs[j], gs[4+j], gl[j])
		}
	}
	// Prior: N(0, λ⁻¹I) with λ = 1 over 8 parameters.
	var ss float64
	for _, v := range theta {
		ss += v * v
	}
	if got, want := sm.LogPrior(theta, nil), -4*math.Log(2*math.Pi)-ss/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("log prior %v, want %v", got, want)
	}
}

// TestSoftmaxHessian checks the exact Hessian against central differences of
// the analytic gradient (itself checked against differences of the value).
func TestSoftmaxHessian(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(6, 80, 2)
	for _, opt := range []model.SoftmaxOptions{{Precision: 2}, {NoIntercept: true, Classes: 4, Precision: 0.5}} {
		m := mustSoftmax(t, X, classes3(y), opt)
		d := m.Dim()
		rng := rand.New(rand.NewPCG(2, 2))
		theta := make([]float64, d)
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		h := make([]float64, d*d)
		m.Hessian(theta, h)
		gp, gm := make([]float64, d), make([]float64, d)
		th := append([]float64(nil), theta...)
		const step = 1e-5
		for j := 0; j < d; j++ {
			th[j] = theta[j] + step
			langevin.LogPosterior(m, th, gp)
			th[j] = theta[j] - step
			langevin.LogPosterior(m, th, gm)
			th[j] = theta[j]
			for i := 0; i < d; i++ {
				num := (gp[i] - gm[i]) / (2 * step)
				if a := h[i*d+j]; math.Abs(a-num) > 1e-6*math.Max(1, math.Abs(num)) {
					t.Fatalf("%+v: H[%d,%d] = %v, finite difference %v", opt, i, j, a, num)
				}
				if h[i*d+j] != h[j*d+i] {
					t.Fatalf("%+v: H not symmetric at (%d, %d)", opt, i, j)
				}
			}
		}
	}
}

func TestSoftmaxPredict(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(8, 50, 3)
	c := classes3(y)
	m := mustSoftmax(t, X, c, model.SoftmaxOptions{})
	rng := rand.New(rand.NewPCG(4, 4))
	draws := make([][]float64, 3)
	for s := range draws {
		draws[s] = make([]float64, m.Dim())
		m.SamplePrior(draws[s], rng)
	}
	p := m.Proba(draws[0], X, nil)
	for i := 0; i < 50; i++ {
		var sum float64
		for k := 0; k < 3; k++ {
			sum += p[i*3+k]
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %v", i, sum)
		}
	}
	// The log-likelihood is the sum of the log probabilities of the labels.
	var ll float64
	for i := 0; i < 50; i++ {
		ll += math.Log(p[i*3+int(c[i])])
	}
	if want := m.LogLik(draws[0], nil, nil); math.Abs(ll-want) > 1e-9 {
		t.Errorf("Σ log Proba of the labels %v, log-likelihood %v", ll, want)
	}
	if m.NumClasses() != 3 {
		t.Errorf("NumClasses = %d, want 3", m.NumClasses())
	}
	cp := mat.NewDense(50, 3, nil)
	m.ClassProbs(draws[0], X, cp)
	for i := 0; i < 50; i++ {
		for k := 0; k < 3; k++ {
			if cp.At(i, k) != p[i*3+k] {
				t.Fatalf("ClassProbs(%d, %d) = %v, Proba %v", i, k, cp.At(i, k), p[i*3+k])
			}
		}
	}
	// Extreme logits stay finite.
	big := make([]float64, m.Dim())
	for j := range big {
		big[j] = 500 * float64(j%3-1)
	}
	if v := m.LogLik(big, nil, nil); math.IsNaN(v) || math.IsInf(v, 1) {
		t.Errorf("log-likelihood at extreme logits: %v", v)
	}
	w := m.WithPrecision(4)
	if w.Precision() != 4 || m.Precision() != 1 || w.LogLik(draws[0], nil, nil) != m.LogLik(draws[0], nil, nil) {
		t.Errorf("WithPrecision: %v / %v", w.Precision(), m.Precision())
	}
}

func TestSoftmaxLabelErrors(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(9, 10, 2)
	for _, c := range []struct {
		edit    func(y []float64)
		classes int
		row     int
		msg     string
	}{
		{func(y []float64) { y[3] = 1.5 }, 0, 4, "row 4: label 1.5: softmax regression expects integer class labels 0, 1, …, K−1"},
		{func(y []float64) { y[0] = -1 }, 0, 1, "row 1: label -1: softmax regression expects integer class labels 0, 1, …, K−1"},
		{func(y []float64) { y[7] = math.NaN() }, 0, 8, "row 8: label NaN: softmax regression expects integer class labels 0, 1, …, K−1"},
		{func(y []float64) { y[5] = 3 }, 3, 6, "row 6: label 3: softmax regression with 3 classes expects integer labels 0…2"},
		{func(y []float64) { y[2] = 1e9 }, 0, 3, "row 3: label 1e+09: softmax regression expects integer class labels 0, 1, …, K−1"},
	} {
		lab := classes3(y)
		c.edit(lab)
		_, err := model.NewSoftmax(X, lab, model.SoftmaxOptions{Classes: c.classes})
		var le *model.ClassLabelError
		if !errors.As(err, &le) || le.Row != c.row || err.Error() != c.msg {
			t.Errorf("error %v, want %q", err, c.msg)
		}
	}
	for _, opt := range []model.SoftmaxOptions{{Precision: -1}, {Precision: math.Inf(1)}, {Classes: -2}} {
		if _, err := model.NewSoftmax(X, classes3(y), opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
	if _, err := model.NewSoftmax(X, nil, model.SoftmaxOptions{}); err == nil {
		t.Error("nil labels: no error")
	}
}

// fashionShape returns data the shape of a Fashion-MNIST minibatch problem:
// n rows of 784 features in [0, 1], 10 classes.
func fashionShape(n int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(3, 9))
	X := mat.NewDense(n, 784, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < 784; j++ {
			if rng.Float64() < 0.5 {
				X.Set(i, j, rng.Float64())
			}
		}
		y[i] = float64(rng.IntN(10))
	}
	return X, y
}

func BenchmarkSoftmaxLogLikBatch10(b *testing.B) {
	X, y := fashionShape(500)
	m := mustSoftmax(b, X, y, model.SoftmaxOptions{})
	benchLogLik(b, m, benchBatch(500, 10))
}

// TestSoftmaxFlat checks the class-shift subspace: the log-likelihood is
// unchanged by adding one vector to every class's coefficients, its gradient
// is orthogonal to such shifts, and FlatNorm2 is the squared norm of the
// projection (K‖v‖² for a pure shift, 0 after subtracting the class means).
func TestSoftmaxFlat(t *testing.T) {
	t.Parallel()
	X, y, _ := regData(6, 80, 3)
	for _, opt := range []model.SoftmaxOptions{{Precision: 2}, {NoIntercept: true, Classes: 4}} {
		m := mustSoftmax(t, X, classes3(y), opt)
		d, k := m.Dim(), m.Classes()
		c := d / k
		if m.FlatDim() != c {
			t.Fatalf("%+v: FlatDim %d, want %d", opt, m.FlatDim(), c)
		}
		rng := rand.New(rand.NewPCG(3, 3))
		theta, v := make([]float64, d), make([]float64, c)
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		var vv float64
		for j := range v {
			v[j] = rng.NormFloat64()
			vv += v[j] * v[j]
		}
		shift, shifted := make([]float64, d), make([]float64, d)
		for j := range theta {
			shift[j] = v[j%c]
			shifted[j] = theta[j] + shift[j]
		}
		grad := make([]float64, d)
		l0, l1 := m.LogLik(theta, nil, grad), m.LogLik(shifted, nil, nil)
		if math.Abs(l0-l1) > 1e-9*math.Abs(l0) {
			t.Errorf("%+v: log-likelihood %v, shifted %v", opt, l0, l1)
		}
		for j := 0; j < c; j++ {
			var s float64
			for kk := 0; kk < k; kk++ {
				s += grad[kk*c+j]
			}
			if math.Abs(s) > 1e-9 {
				t.Errorf("%+v: gradient summed over classes at coefficient %d: %v, want 0", opt, j, s)
			}
		}
		if got, want := m.FlatNorm2(shift), float64(k)*vv; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%+v: FlatNorm2(shift) = %v, want %v", opt, got, want)
		}
		centred := append([]float64(nil), theta...)
		for j := 0; j < c; j++ {
			var s float64
			for kk := 0; kk < k; kk++ {
				s += theta[kk*c+j]
			}
			for kk := 0; kk < k; kk++ {
				centred[kk*c+j] -= s / float64(k)
			}
		}
		if got := m.FlatNorm2(centred); got > 1e-20 {
			t.Errorf("%+v: FlatNorm2 of the class-centred θ = %v, want 0", opt, got)
		}
	}
}

// BenchmarkSoftmaxFlatNorm2 is the per-iteration cost VEM.Flat adds: the
// class-shift projection's norm at D = 7,850.
func BenchmarkSoftmaxFlatNorm2(b *testing.B) {
	X, y := fashionShape(50)
	m := mustSoftmax(b, X, y, model.SoftmaxOptions{})
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = float64(j%7) - 3
	}
	b.ReportAllocs()
	var s float64
	for b.Loop() {
		s += m.FlatNorm2(theta)
	}
	if math.IsNaN(s) {
		b.Fatal("NaN")
	}
}
