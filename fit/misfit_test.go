package fit

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// gaussTrace returns 4 chains of n independent draws of N(mean, sd²) per
// coordinate (fixed seed).
func gaussTrace(mean, sd []float64, n int, seed uint64) *langevin.Trace {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := len(mean)
	tr := &langevin.Trace{Dim: d}
	for j := range d {
		tr.Names = append(tr.Names, "p"+string(rune('a'+j)))
	}
	for range 4 {
		var c [][]float64
		for range n {
			r := make([]float64, d)
			for j := range r {
				r[j] = mean[j] + sd[j]*rng.NormFloat64()
			}
			c = append(c, r)
		}
		tr.Draws = append(tr.Draws, c)
	}
	return tr
}

// The rule fires on a too-narrow, a too-wide and a shifted coordinate, and
// not on draws from the reference itself. With 4000 independent draws the
// sd ratio's Monte Carlo error is 1/√8000 ≈ 1.1% and the mean's 1.6% of an
// sd, far inside the margins of the bounds tested here.
func TestMisfitRule(t *testing.T) {
	ref, one := []float64{0, 1, 2}, []float64{1, 1, 1}
	for _, tc := range []struct {
		name     string
		mean, sd []float64
		bad      string // the parameter the rule must name, "" none
	}{
		{"right", []float64{0, 1, 2}, []float64{1, 1, 1}, ""},
		{"within the bounds", []float64{0.6, 1, 2}, []float64{0.6, 1.7, 1}, ""},
		{"too narrow (IASG-like)", []float64{0, 1, 2}, []float64{1, 0.1, 1}, "pb"},
		{"too wide (csgd-full-like)", []float64{0, 1, 2}, []float64{1, 1, 7.5}, "pc"},
		{"shifted", []float64{1.5, 1, 2}, []float64{1, 1, 1}, "pa"},
	} {
		check := CompareDraws(gaussTrace(tc.mean, tc.sd, 1000, 7), ref, one)
		for j, p := range check.Params {
			if math.Abs(p.SDRatio-tc.sd[j]) > 0.05*tc.sd[j] || math.Abs(p.MeanOff-(tc.mean[j]-ref[j])) > 0.06*tc.sd[j] {
				t.Errorf("%s: %s: sd ratio %.3f, mean off %.3f; want %.3f, %.3f", tc.name, p.Name, p.SDRatio, p.MeanOff, tc.sd[j], tc.mean[j]-ref[j])
			}
		}
		notes := check.Notes("csgd-full", "")
		var warn string
		for _, n := range notes {
			if n.Key == "warning" {
				warn = n.Text
			}
		}
		switch {
		case tc.bad == "" && warn != "":
			t.Errorf("%s: warned: %s", tc.name, warn)
		case tc.bad != "" && !strings.Contains(warn, tc.bad+" (sd ratio"):
			t.Errorf("%s: warning %q does not name %s", tc.name, warn, tc.bad)
		case tc.bad != "" && !strings.Contains(warn, "Theorem 2"):
			t.Errorf("%s: warning %q does not name csgd-full's failure", tc.name, warn)
		}
	}
}

// The linear model's reference is its exact posterior (normal-inverse-gamma:
// Student-t β, log σ² with mean log ψ − digamma(φ)), not the Laplace
// approximation.
func TestMisfitExactLinearReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 40
	x, y := mat.NewDense(n, 1, nil), make([]float64, n)
	for i := range y {
		x.Set(i, 0, rng.NormFloat64())
		y[i] = 0.5 + 2*x.At(i, 0) + rng.NormFloat64()
	}
	m, err := model.NewLinear(x, y, model.LinearOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mean, sd, ok := exactReference(m)
	if !ok || len(mean) != m.Dim() {
		t.Fatalf("no exact reference for the linear model (%v, %d of %d)", ok, len(mean), m.Dim())
	}
	p := m.Posterior()
	if mean[m.Dim()-1] != p.LogSigma2Mean() || sd[0] != p.BetaSD(0) {
		t.Errorf("reference %v ± %v: not the exact posterior's", mean, sd)
	}
}

// fit.Run's SGLD (the plan's step, control variates, the dense Laplace
// preconditioner) on the default data passes the misfit rule, and its
// result carries the measurement: sd ratios 0.98–1.09 in the command's
// golden run (sgld-planned).
func TestRunSGLDMisfitNote(t *testing.T) {
	if testing.Short() {
		t.Skip("a full SGLD run: skipped with -short")
	}
	train, test := data.TrainTest(data.Australian(), 0.2, 1)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Job{Model: m, Test: test}, Settings{}, SGLD)
	if err != nil {
		t.Fatal(err)
	}
	var misfit string
	for _, n := range res.Notes {
		if n.Key == "misfit" {
			misfit = n.Text
		}
		if n.Key == "warning" && strings.Contains(n.Text, "misfits") {
			t.Errorf("the plan's SGLD warned: %s", n.Text)
		}
	}
	if !strings.HasPrefix(misfit, "sd / Laplace sd 0.9") {
		t.Errorf("misfit note %q, want sd ratios from 0.9…", misfit)
	}
}
