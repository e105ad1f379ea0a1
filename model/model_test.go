package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// regData returns n rows of p standard-normal features (with a column
// offset so the intercept matters), the linear responses
// y = 0.7 + Xβ + 0.8ε, and logistic labels in {0, 1} drawn from σ(0.3 + Xβ).
func regData(seed uint64, n, p int) (X *mat.Dense, y, labels []float64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	X = mat.NewDense(n, p, nil)
	beta := make([]float64, p)
	for j := range beta {
		beta[j] = float64(j%3) - 0.8 + 0.1*float64(j)
	}
	y = make([]float64, n)
	labels = make([]float64, n)
	for i := 0; i < n; i++ {
		z := 0.0
		for j := 0; j < p; j++ {
			v := rng.NormFloat64() + 0.5*float64(j%2)
			X.Set(i, j, v)
			z += v * beta[j]
		}
		y[i] = 0.7 + z + 0.8*rng.NormFloat64()
		if rng.Float64() < 1/(1+math.Exp(-(0.3+z))) {
			labels[i] = 1
		}
	}
	return X, y, labels
}

func mustLinear(t testing.TB, X *mat.Dense, y []float64, opt model.LinearOptions) *model.Linear {
	t.Helper()
	m, err := model.NewLinear(X, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustLogistic(t testing.TB, X *mat.Dense, y []float64, opt model.LogisticOptions) *model.Logistic {
	t.Helper()
	m, err := model.NewLogistic(X, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func pm1(labels []float64) []float64 {
	s := make([]float64, len(labels))
	for i, v := range labels {
		s[i] = 2*v - 1
	}
	return s
}

type namedModel struct {
	name string
	m    langevin.Model
	// point draws a parameter vector at which to check gradients.
	point func(rng *rand.Rand, dst []float64)
}

func testModels(t testing.TB) []namedModel {
	X, y, labels := regData(1, 200, 3)
	cov := mat.NewSymDense(3, []float64{
		2, 0.6, -0.3,
		0.6, 1, 0.2,
		-0.3, 0.2, 0.5,
	})
	g, err := model.NewGaussian([]float64{1, -2, 0.5}, cov)
	if err != nil {
		t.Fatal(err)
	}
	// Linear points: β near the truth, γ = log σ² in [−1.5, 1].
	linPoint := func(rng *rand.Rand, dst []float64) {
		d := len(dst) - 1
		for j := 0; j < d; j++ {
			dst[j] = 0.5 * rng.NormFloat64()
		}
		dst[d] = -1.5 + 2.5*rng.Float64()
	}
	normPoint := func(rng *rand.Rand, dst []float64) {
		for j := range dst {
			dst[j] = rng.NormFloat64()
		}
	}
	return []namedModel{
		{"linear", mustLinear(t, X, y, model.LinearOptions{}), linPoint},
		{"linear/prior", mustLinear(t, X, y, model.LinearOptions{Mu: []float64{1, -0.5, 0.2, 2}, V: 2.5, Phi: 3, Psi: 0.7}), linPoint},
		{"linear/no-intercept", mustLinear(t, X, y, model.LinearOptions{NoIntercept: true, V: 0.5, Phi: 0.5, Psi: 2}), linPoint},
		{"linear/flat", mustLinear(t, X, y, model.LinearOptions{Flat: true}), linPoint},
		{"logistic", mustLogistic(t, X, labels, model.LogisticOptions{}), normPoint},
		{"logistic/pm1", mustLogistic(t, X, pm1(labels), model.LogisticOptions{PriorScale: 2.5, NoIntercept: true}), normPoint},
		{"gaussian", g, normPoint},
		{"softmax", mustSoftmax(t, X, classes3(y), model.SoftmaxOptions{}), normPoint},
		{"softmax/no-intercept", mustSoftmax(t, X, classes3(y), model.SoftmaxOptions{NoIntercept: true, Precision: 0.3, Classes: 4}), normPoint},
	}
}

// TestGradients checks every model's prior and likelihood gradients against
// central finite differences, on all data and on minibatches with repeated
// indices, at several random points.
func TestGradients(t *testing.T) {
	t.Parallel()
	batches := []struct {
		name  string
		batch []int
	}{
		{"full", nil},
		{"minibatch", []int{3, 3, 17, 0, 199, 17, 3, 42, 105, 150}},
		{"single", []int{7}},
		{"empty", []int{}},
	}
	for _, nm := range testModels(t) {
		rng := rand.New(rand.NewPCG(7, 7))
		for k := 0; k < 6; k++ {
			theta := make([]float64, nm.m.Dim())
			nm.point(rng, theta)
			for _, b := range batches {
				batch := b.batch
				if nm.m.Len() == 1 && batch != nil {
					batch = make([]int, len(b.batch)) // all index 0
				}
				t.Run(fmt.Sprintf("%s/%s/%d", nm.name, b.name, k), func(t *testing.T) {
					if err := langevin.CheckGradient(nm.m, theta, batch, 1e-6); err != nil {
						t.Errorf("θ = %v: %v", theta, err)
					}
				})
			}
		}
	}
}

// TestBatchSum checks that the log-likelihood of a batch is the sum of the
// single-observation terms, repeats included, and that nil means all data.
func TestBatchSum(t *testing.T) {
	t.Parallel()
	for _, nm := range testModels(t) {
		if nm.m.Len() == 1 {
			continue
		}
		rng := rand.New(rand.NewPCG(3, 3))
		theta := make([]float64, nm.m.Dim())
		nm.point(rng, theta)
		batch := []int{5, 9, 5, 5, 0, 199}
		var want float64
		for _, i := range batch {
			want += nm.m.LogLik(theta, []int{i}, nil)
		}
		if got := nm.m.LogLik(theta, batch, nil); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: batch log-likelihood %v, sum of terms %v", nm.name, got, want)
		}
		all := make([]int, nm.m.Len())
		for i := range all {
			all[i] = i
		}
		full, idx := nm.m.LogLik(theta, nil, nil), nm.m.LogLik(theta, all, nil)
		if math.Abs(full-idx) > 1e-12*math.Abs(full) {
			t.Errorf("%s: nil batch %v, all indices %v", nm.name, full, idx)
		}
	}
}

// TestNoAllocs checks that LogPrior and LogLik with a gradient allocate
// nothing.
func TestNoAllocs(t *testing.T) {
	for _, nm := range testModels(t) {
		theta := make([]float64, nm.m.Dim())
		nm.point(rand.New(rand.NewPCG(1, 1)), theta)
		grad := make([]float64, len(theta))
		batch := []int{0, 0, 0}
		if nm.m.Len() > 1 {
			batch = []int{1, 5, 1, 9, 33, 2, 7, 8, 9, 10}
		}
		allocs := testing.AllocsPerRun(100, func() {
			nm.m.LogPrior(theta, grad)
			nm.m.LogLik(theta, batch, grad)
			nm.m.LogLik(theta, nil, grad)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per call", nm.name, allocs)
		}
	}
}

func TestParamNames(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"linear":              {"intercept", "beta.1", "beta.2", "beta.3", "log_sigma2"},
		"linear/no-intercept": {"beta.1", "beta.2", "beta.3", "log_sigma2"},
		"logistic":            {"intercept", "beta.1", "beta.2", "beta.3"},
		"logistic/pm1":        {"beta.1", "beta.2", "beta.3"},
		"gaussian":            {"theta.1", "theta.2", "theta.3"},
		"softmax": {"b.1", "w.1.1", "w.1.2", "w.1.3", "b.2", "w.2.1", "w.2.2", "w.2.3",
			"b.3", "w.3.1", "w.3.2", "w.3.3"},
	}
	for _, nm := range testModels(t) {
		names := langevin.ParamNames(nm.m)
		if len(names) != nm.m.Dim() {
			t.Errorf("%s: %d names for %d parameters", nm.name, len(names), nm.m.Dim())
		}
		if w, ok := want[nm.name]; ok && fmt.Sprint(w) != fmt.Sprint(names) {
			t.Errorf("%s: names %v, want %v", nm.name, names, w)
		}
	}
	m := testModels(t)[0].m.(*model.Linear)
	if got := m.DerivedNames(); len(got) != 1 || got[0] != "sigma2" {
		t.Errorf("derived names %v", got)
	}
	dst := []float64{0}
	m.Derive([]float64{0, 0, 0, 0, math.Log(2.5)}, dst)
	if math.Abs(dst[0]-2.5) > 1e-15 {
		t.Errorf("derived sigma2 = %v, want 2.5", dst[0])
	}
}

func TestConstructorErrors(t *testing.T) {
	t.Parallel()
	X, y, labels := regData(2, 10, 2)
	bad := mat.DenseCopyOf(X)
	bad.Set(3, 1, math.NaN())
	yNaN := append([]float64(nil), y...)
	yNaN[4] = math.Inf(1)
	collinear := mat.NewDense(10, 2, nil)
	for i := 0; i < 10; i++ {
		collinear.Set(i, 0, float64(i))
		collinear.Set(i, 1, 2*float64(i))
	}
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"linear nil X", func() error { _, err := model.NewLinear(nil, y, model.LinearOptions{}); return err }},
		{"linear short y", func() error { _, err := model.NewLinear(X, y[:9], model.LinearOptions{}); return err }},
		{"linear NaN X", func() error { _, err := model.NewLinear(bad, y, model.LinearOptions{}); return err }},
		{"linear Inf y", func() error { _, err := model.NewLinear(X, yNaN, model.LinearOptions{}); return err }},
		{"linear Mu length", func() error {
			_, err := model.NewLinear(X, y, model.LinearOptions{Mu: []float64{1, 2}})
			return err
		}},
		{"linear negative V", func() error { _, err := model.NewLinear(X, y, model.LinearOptions{V: -1}); return err }},
		{"linear NaN Psi", func() error { _, err := model.NewLinear(X, y, model.LinearOptions{Psi: math.NaN()}); return err }},
		{"linear flat n ≤ d", func() error {
			_, err := model.NewLinear(X.Slice(0, 3, 0, 2).(*mat.Dense), y[:3], model.LinearOptions{Flat: true})
			return err
		}},
		{"linear flat collinear", func() error { _, err := model.NewLinear(collinear, y, model.LinearOptions{Flat: true}); return err }},
		{"logistic NaN X", func() error { _, err := model.NewLogistic(bad, labels, model.LogisticOptions{}); return err }},
		{"logistic scale", func() error {
			_, err := model.NewLogistic(X, labels, model.LogisticOptions{PriorScale: -2})
			return err
		}},
		{"gaussian dims", func() error { _, err := model.NewGaussian([]float64{1, 2}, mat.NewSymDense(3, nil)); return err }},
		{"gaussian not PD", func() error {
			_, err := model.NewGaussian([]float64{1, 2}, mat.NewSymDense(2, []float64{1, 2, 2, 1}))
			return err
		}},
		{"gaussian nil cov", func() error { _, err := model.NewGaussian([]float64{1}, nil); return err }},
	} {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
	// Collinear features are fine with a proper prior.
	if _, err := model.NewLinear(collinear, y, model.LinearOptions{}); err != nil {
		t.Errorf("collinear features with a proper prior: %v", err)
	}
}
