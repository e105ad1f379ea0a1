package model_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/langevin-go/langevin/model"
)

// TestSpecRoundTrip builds every kind from a Spec, sends the resolved Spec
// through JSON and rebuilds it over the same rows: the two models must have
// the same dimension, parameter names and log posterior.
func TestSpecRoundTrip(t *testing.T) {
	t.Parallel()
	X, yr, labels := regData(5, 40, 3)
	cls := classes3(yr)
	for _, c := range []struct {
		spec model.Spec
		y    []float64
	}{
		{model.Spec{Kind: "linear", PriorScale: 3}, yr},
		{model.Spec{Kind: "logistic", NoIntercept: true, PriorScale: 2}, labels},
		{model.Spec{Kind: "softmax", PriorScale: 0.5}, cls},
		{model.Spec{Kind: "mlp", Hidden: []int{4}, Activation: "tanh"}, cls},
		{model.Spec{Kind: "mlp", Hidden: []int{3, 2}, Activation: "relu", LearnNoise: true, NoiseVar: 0.5}, yr},
		{model.Spec{Kind: "mlp", Activation: "relu"}, labels},
		{model.Spec{Kind: "gauss2", Rho: 0.5, GradNoise: 0.1, Seed: 3}, nil},
		{model.Spec{Kind: "mixture25"}, nil},
	} {
		s := c.spec
		s.Resolve(c.y)
		m, err := s.Build(X, c.y)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back model.Spec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		m2, err := back.Build(X, c.y)
		if err != nil {
			t.Fatalf("%s: rebuilding: %v", b, err)
		}
		if m.Dim() != m2.Dim() {
			t.Fatalf("%s: dimension %d, rebuilt %d", b, m.Dim(), m2.Dim())
		}
		th := make([]float64, m.Dim())
		for j := range th {
			th[j] = 0.1 * float64(j%7-3)
		}
		p1 := m.LogPrior(th, nil) + m.LogLik(th, nil, nil)
		p2 := m2.LogPrior(th, nil) + m2.LogLik(th, nil, nil)
		if p1 != p2 || math.IsNaN(p1) {
			t.Errorf("%s: log posterior %v, rebuilt %v", b, p1, p2)
		}
	}
	// The MLP's likelihood and classes are recorded by Resolve.
	s := model.Spec{Kind: "mlp", Activation: "relu"}
	s.Resolve(cls)
	if s.Likelihood != "categorical" || s.Classes != 3 || !s.Classifies() {
		t.Errorf("resolved %+v, want a categorical MLP with 3 classes", s)
	}
	for _, bad := range []model.Spec{{Kind: "weibull"}, {Kind: "probit", Offset: "u"}, {Kind: "poisson", Offset: "u"}, {Kind: "mlp", Activation: "cosh"}, {Kind: "logistic", PriorScale: -1}} {
		if _, err := bad.Build(X, labels); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestSpecCheckResponses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind string
		y    []float64
		row  int // 0: no error
	}{
		{"logistic", []float64{0, 1, 1, 0}, 0},
		{"logistic", []float64{0, 1, 2}, 3},
		{"probit", []float64{0, 1, -1}, 3}, // mixed codings
		{"softmax", []float64{0, 2, 1.5}, 3},
		{"softmax", []float64{0, 2, 1}, 0},
		{"poisson", []float64{0, 3, -1}, 3},
		{"negbin", []float64{0, 2.5}, 2},
		{"linear", []float64{-1.5, 2.5}, 0},
	} {
		err := model.Spec{Kind: c.kind}.CheckResponses(c.y)
		var re *model.ResponseError
		switch {
		case c.row == 0 && err != nil:
			t.Errorf("%s %v: %v", c.kind, c.y, err)
		case c.row > 0 && (!errors.As(err, &re) || re.Row != c.row):
			t.Errorf("%s %v: %v, want a *ResponseError at row %d", c.kind, c.y, err, c.row)
		}
	}
}

// TestGuessLikelihood: 0/1 → Bernoulli; class labels 0…K−1, all present →
// categorical; integers that skip classes (UCI wine's quality 3…8), negative
// or fractional values → Gaussian.
func TestGuessLikelihood(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		want model.Likelihood
	}{
		{[]float64{0, 1, 1, 0}, model.LikBernoulli},
		{[]float64{0, 2, 1, 2}, model.LikCategorical},
		{[]float64{5, 6, 3, 8, 7, 4, 5}, model.LikGaussian},
		{[]float64{0, 2, 2}, model.LikGaussian},
		{[]float64{0, 1.5, 2}, model.LikGaussian},
		{[]float64{-1, 0, 2}, model.LikGaussian},
	} {
		if got := model.GuessLikelihood(c.y); got != c.want {
			t.Errorf("GuessLikelihood(%v) = %v, want %v", c.y, got, c.want)
		}
	}
}

// The kinds whose response is a binary label 0/1, and so whose labels of two
// other values are recoded (data.TwoLabels): logistic and probit, an MLP
// with a Bernoulli likelihood or one guessed from the labels.
func TestBinaryLabels(t *testing.T) {
	for _, c := range []struct {
		s    model.Spec
		want bool
	}{
		{model.Spec{Kind: "logistic"}, true},
		{model.Spec{Kind: "probit"}, true},
		{model.Spec{Kind: "mlp"}, true},
		{model.Spec{Kind: "mlp", Likelihood: "bernoulli"}, true},
		{model.Spec{Kind: "mlp", Likelihood: "gaussian"}, false},
		{model.Spec{Kind: "mlp", Likelihood: "categorical"}, false},
		{model.Spec{Kind: "softmax"}, false},
		{model.Spec{Kind: "linear"}, false},
		{model.Spec{Kind: "poisson"}, false},
		{model.Spec{Kind: "robust"}, false},
		{model.Spec{Kind: "gauss2"}, false},
		{model.Spec{Kind: "weibull"}, false},
	} {
		if got := c.s.BinaryLabels(); got != c.want {
			t.Errorf("%+v: BinaryLabels() = %v, want %v", c.s, got, c.want)
		}
	}
}
