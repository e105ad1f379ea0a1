package model_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// mlpData returns n rows of p features and responses suited to lik.
func mlpData(seed uint64, n, p int, lik model.Likelihood, classes int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var z float64
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			z += v * float64(j+1) / float64(p)
		}
		switch lik {
		case model.LikGaussian:
			y[i] = math.Sin(z) + 0.3*rng.NormFloat64()
		case model.LikBernoulli:
			if rng.Float64() < 1/(1+math.Exp(-2*z)) {
				y[i] = 1
			}
		case model.LikCategorical:
			y[i] = float64(rng.IntN(classes))
		}
	}
	return X, y
}

func mustMLP(t testing.TB, X *mat.Dense, y []float64, opt model.MLPOptions) *model.MLP {
	t.Helper()
	m, err := model.NewMLP(X, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMLPGradient checks the backpropagated gradient against central finite
// differences for every activation × likelihood pair, a learned noise
// variance, per-layer prior scales and a network with 3 hidden layers, on a
// minibatch with repeated indices and on all data (300 rows: three chunks).
func TestMLPGradient(t *testing.T) {
	t.Parallel()
	type tc struct {
		name string
		opt  model.MLPOptions
	}
	var cases []tc
	for _, act := range []model.Activation{model.ReLU, model.Tanh, model.Sigmoid, model.Identity} {
		for _, lik := range []model.Likelihood{model.LikGaussian, model.LikBernoulli, model.LikCategorical} {
			cases = append(cases, tc{act.String() + "/" + lik.String(), model.MLPOptions{
				Hidden: []int{5, 4}, Activation: act, Likelihood: lik, Classes: 3, NoiseVar: 0.5,
			}})
		}
	}
	cases = append(cases,
		tc{"tanh/gaussian learned noise", model.MLPOptions{Hidden: []int{4}, Activation: model.Tanh, LearnNoise: true, NoiseVar: 0.3, LogNoiseMean: -1, LogNoiseSD: 2}},
		tc{"3 hidden relu/categorical", model.MLPOptions{Hidden: []int{7, 6, 5}, Likelihood: model.LikCategorical, Classes: 4, PriorScale: []float64{1, 0.5, 2, 1.5}}},
		tc{"3 hidden tanh/bernoulli", model.MLPOptions{Hidden: []int{6, 5, 4}, Activation: model.Tanh, Likelihood: model.LikBernoulli, PriorScale: []float64{0.7}}},
		tc{"no hidden layer", model.MLPOptions{}},
	)
	for k, c := range cases {
		X, y := mlpData(uint64(k+1), 300, 3, c.opt.Likelihood, max(c.opt.Classes, 2))
		m := mustMLP(t, X, y, c.opt)
		rng := rand.New(rand.NewPCG(uint64(k), 3))
		theta := make([]float64, m.Dim())
		m.SamplePrior(theta, rng)
		for _, batch := range [][]int{{3, 17, 3, 250, 99}, nil} {
			if err := langevin.CheckGradient(m, theta, batch, 1e-6); err != nil {
				t.Errorf("%s, batch %v: %v", c.name, batch, err)
			}
		}
	}
}

// TestMLPGradientCheckCatches shows that the check above can fail: a
// likelihood gradient off by 1e-4 in a single weight is reported.
func TestMLPGradientCheckCatches(t *testing.T) {
	t.Parallel()
	X, y := mlpData(1, 50, 2, model.LikBernoulli, 2)
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{4}, Likelihood: model.LikBernoulli})
	theta := make([]float64, m.Dim())
	m.SamplePrior(theta, rand.New(rand.NewPCG(1, 1)))
	err := langevin.CheckGradient(offGrad{m, 5, 1e-4}, theta, nil, 1e-6)
	var ge *langevin.GradientError
	if !errors.As(err, &ge) || ge.Index != 5 {
		t.Fatalf("perturbed gradient: error %v, want a *GradientError at index 5", err)
	}
}

type offGrad struct {
	*model.MLP
	j   int
	eps float64
}

func (m offGrad) LogLik(th []float64, batch []int, g []float64) float64 {
	if g != nil {
		g[m.j] += m.eps
	}
	return m.MLP.LogLik(th, batch, g)
}

// TestMLPLogLikValues compares LogLik with the formulas computed directly for
// a 1-hidden-unit network.
func TestMLPLogLikValues(t *testing.T) {
	t.Parallel()
	X := mat.NewDense(3, 2, []float64{1, 2, -1, 0.5, 0, -3})
	// θ = w.1.1.1, w.1.1.2, b.1.1, w.2.1.1, b.2.1 (, w.2.2.1, b.2.2 …)
	f := func(th []float64, i int) (h float64) {
		return math.Tanh(th[0]*X.At(i, 0) + th[1]*X.At(i, 1) + th[2])
	}
	th := []float64{0.3, -0.2, 0.1, 1.5, -0.4}
	y := []float64{0.5, -1, 2}
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{1}, Activation: model.Tanh, NoiseVar: 2})
	var want float64
	for i := range y {
		r := y[i] - (th[3]*f(th, i) + th[4])
		want += -0.5*math.Log(2*math.Pi*2) - r*r/4
	}
	if got := m.LogLik(th, nil, nil); math.Abs(got-want) > 1e-12 {
		t.Errorf("gaussian: %v, want %v", got, want)
	}
	lab := []float64{1, 0, 2}
	mc := mustMLP(t, X, lab, model.MLPOptions{Hidden: []int{1}, Activation: model.Tanh, Likelihood: model.LikCategorical})
	thc := []float64{0.3, -0.2, 0.1, 1.5, -1, 0.7, -0.4, 0.2, 0.1}
	want = 0
	for i, c := range lab {
		h := f(thc, i)
		z := []float64{thc[3]*h + thc[6], thc[4]*h + thc[7], thc[5]*h + thc[8]}
		want += z[int(c)] - math.Log(math.Exp(z[0])+math.Exp(z[1])+math.Exp(z[2]))
	}
	if got := mc.LogLik(thc, nil, nil); math.Abs(got-want) > 1e-12 {
		t.Errorf("categorical: %v, want %v", got, want)
	}
}

func TestMLPNames(t *testing.T) {
	t.Parallel()
	X, y := mlpData(1, 10, 2, model.LikBernoulli, 2)
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{100, 10}, Likelihood: model.LikBernoulli})
	if m.Dim() != 1321 {
		t.Errorf("2-100-10-1: Dim = %d, want 1321", m.Dim())
	}
	names := m.ParamNames()
	for _, c := range []struct {
		i    int
		name string
	}{{0, "w.1.1.1"}, {1, "w.1.1.2"}, {2, "w.1.2.1"}, {199, "w.1.100.2"}, {200, "b.1.1"}, {299, "b.1.100"},
		{300, "w.2.1.1"}, {1299, "w.2.10.100"}, {1300, "b.2.1"}, {1310, "w.3.1.1"}, {1320, "b.3.1"}} {
		if names[c.i] != c.name {
			t.Errorf("name %d = %q, want %q", c.i, names[c.i], c.name)
		}
	}
	ml := mustMLP(t, X, y, model.MLPOptions{LearnNoise: true})
	if n := ml.ParamNames(); n[len(n)-1] != "log_sigma2" || ml.DerivedNames()[0] != "sigma2" {
		t.Errorf("learned noise: names %v, derived %v", n, ml.DerivedNames())
	}
}

func TestMLPErrors(t *testing.T) {
	t.Parallel()
	X, y := mlpData(1, 10, 2, model.LikBernoulli, 2)
	for _, c := range []struct {
		y    []float64
		opt  model.MLPOptions
		want string
	}{
		{y, model.MLPOptions{Hidden: []int{3, 0}}, "hidden layer 2 has width 0"},
		{[]float64{0, 1, 2, 1, 0, 1, 0, 1, 0, 1}, model.MLPOptions{Likelihood: model.LikBernoulli}, "row 3: label 2"},
		{[]float64{0, 1, 2.5, 1, 0, 1, 0, 1, 0, 1}, model.MLPOptions{Likelihood: model.LikCategorical}, "row 3: label 2.5"},
		{[]float64{0, 1, 5, 1, 0, 1, 0, 1, 0, 1}, model.MLPOptions{Likelihood: model.LikCategorical, Classes: 3}, "label 5"},
		{make([]float64, 10), model.MLPOptions{Likelihood: model.LikCategorical}, "1 class"},
		{y, model.MLPOptions{NoiseVar: -1}, "NoiseVar = -1"},
		{y, model.MLPOptions{Likelihood: model.LikBernoulli, LearnNoise: true}, "LearnNoise needs the Gaussian"},
		{y, model.MLPOptions{Hidden: []int{3}, PriorScale: []float64{1, 2, 3}}, "3 prior scales"},
		{y, model.MLPOptions{PriorScale: []float64{0}}, "prior scale of layer 1 is 0"},
		{y[:5], model.MLPOptions{}, "5 responses for 10 rows"},
		{y, model.MLPOptions{Activation: 9}, "unknown activation"},
	} {
		_, err := model.NewMLP(X, c.y, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.opt, err, c.want)
		}
	}
	for _, s := range []string{"softmax", ""} {
		if _, err := model.ParseActivation(s); err == nil {
			t.Errorf("ParseActivation(%q): no error", s)
		}
		if _, err := model.ParseLikelihood(s); err == nil {
			t.Errorf("ParseLikelihood(%q): no error", s)
		}
	}
}

// TestMLPConcurrent evaluates one MLP from several goroutines at once (as
// langevin.Run does) and checks every result against the serial one.
func TestMLPConcurrent(t *testing.T) {
	t.Parallel()
	X, y := mlpData(2, 400, 5, model.LikCategorical, 3)
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{16, 8}, Likelihood: model.LikCategorical})
	const workers = 4
	thetas := make([][]float64, workers)
	want := make([][]float64, workers)
	wantLL := make([]float64, workers)
	batch := benchBatch(400, 150)
	for w := range thetas {
		thetas[w] = make([]float64, m.Dim())
		m.SamplePrior(thetas[w], rand.New(rand.NewPCG(uint64(w), 9)))
		want[w] = make([]float64, m.Dim())
		wantLL[w] = m.LogLik(thetas[w], batch, want[w])
	}
	var wg sync.WaitGroup
	errs := make([]string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := make([]float64, m.Dim())
			for rep := 0; rep < 20; rep++ {
				clear(g)
				ll := m.LogLik(thetas[w], batch, g)
				if ll != wantLL[w] {
					errs[w] = "log-likelihood differs"
					return
				}
				for j := range g {
					if g[j] != want[w][j] {
						errs[w] = "gradient differs"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for w, e := range errs {
		if e != "" {
			t.Errorf("worker %d: %s", w, e)
		}
	}
}

// TestMLPPredictions checks ClassProbs and RegressionMean against LogLik:
// Σᵢ log p(yᵢ|xᵢ, θ) from the predictions must equal the log-likelihood.
func TestMLPPredictions(t *testing.T) {
	t.Parallel()
	for _, lik := range []model.Likelihood{model.LikGaussian, model.LikBernoulli, model.LikCategorical} {
		X, y := mlpData(4, 300, 3, lik, 4)
		m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{6}, Activation: model.Tanh, Likelihood: lik, NoiseVar: 0.7})
		theta := make([]float64, m.Dim())
		m.SamplePrior(theta, rand.New(rand.NewPCG(4, 4)))
		var ll float64
		if lik == model.LikGaussian {
			f := make([]float64, len(y))
			m.RegressionMean(theta, X, f)
			for i, v := range f {
				ll += -0.5*math.Log(2*math.Pi*0.7) - (y[i]-v)*(y[i]-v)/(2*0.7)
			}
		} else {
			p := mat.NewDense(len(y), m.NumClasses(), nil)
			m.ClassProbs(theta, X, p)
			for i, v := range y {
				ll += math.Log(p.At(i, int(v)))
			}
		}
		if want := m.LogLik(theta, nil, nil); math.Abs(ll-want) > 1e-9*math.Abs(want) {
			t.Errorf("%v: log-likelihood from predictions %v, LogLik %v", lik, ll, want)
		}
	}
}

// TestMLPRunReproducible: two chains sharing one MLP give bit-identical draws
// with one worker and with two (each chain holds its own workspace).
func TestMLPRunReproducible(t *testing.T) {
	t.Parallel()
	X, y := mlpData(5, 200, 2, model.LikBernoulli, 2)
	m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{16, 8}, Likelihood: model.LikBernoulli})
	run := func(workers int) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: schedule.Constant(1e-4), Batch: sampler.Minibatch{Size: 10}},
			langevin.Options{Chains: 2, Iters: 400, BurnIn: 100, Thin: 10, Seed: 3, Workers: workers, Init: model.InitGlorot{}})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := run(1), run(2)
	for c := range a.Draws {
		for i := range a.Draws[c] {
			for j, v := range a.Draws[c][i] {
				if v != b.Draws[c][i][j] {
					t.Fatalf("chain %d draw %d parameter %d: %v with 1 worker, %v with 2", c, i, j, v, b.Draws[c][i][j])
				}
			}
		}
	}
}
