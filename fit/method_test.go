package fit_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// TestMethodsTable checks that Methods holds every sampler of the table
// under its name, as the zero value of its family's method, and that a
// method refuses a sampler of another family.
func TestMethodsTable(t *testing.T) {
	names := fit.SamplerNames()
	if len(fit.Methods) != len(names) {
		t.Errorf("%d methods, %d samplers", len(fit.Methods), len(names))
	}
	for _, n := range names {
		m, ok := fit.Methods[n]
		if !ok {
			t.Errorf("sampler %s: not in Methods", n)
			continue
		}
		if m.Name() != n {
			t.Errorf("Methods[%q].Name() = %q", n, m.Name())
		}
		c := fit.DefaultConfig()
		if err := m.Configure(c); err != nil {
			t.Errorf("Methods[%q].Configure: %v", n, err)
		} else if n != "auto" && c.Sampler != n {
			t.Errorf("Methods[%q].Configure set sampler %q", n, c.Sampler)
		}
	}
	for _, m := range []fit.Method{fit.SGMCMC{Kind: "nuts"}, fit.Exact{Kind: "sgld"}, fit.Mandt{Kind: "vi"}, fit.Auto{Kind: "mala"}} {
		if err := m.Configure(fit.DefaultConfig()); err == nil {
			t.Errorf("%#v: configured, want an error (another family's sampler)", m)
		}
	}
}

// TestRunExactMethod runs MALA through Run as a Method value on a
// 4-dimensional correlated Gaussian: the means and sds are the target's
// within Monte Carlo error, and the warm-up tunes the step to the
// method's TargetAccept — 0.9 and 0.4 give acceptance rates apart, so a
// setting that did not reach the kernel fails.
func TestRunExactMethod(t *testing.T) {
	mu := []float64{1, -2, 0.5, 3}
	sd := []float64{1, 2, 0.5, 1.5}
	cov := mat.NewSymDense(4, nil)
	for i := range 4 {
		for j := range 4 {
			r := math.Pow(0.6, math.Abs(float64(i-j)))
			cov.SetSym(i, j, r*sd[i]*sd[j])
		}
	}
	m, err := model.NewGaussian(mu, cov)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []float64{0.9, 0.4} {
		res, err := fit.Run(context.Background(), fit.Job{Model: m},
			fit.Settings{Chains: 2, Iters: 12000, BurnIn: 2000},
			fit.Exact{Kind: "mala", TargetAccept: target})
		if err != nil {
			t.Fatal(err)
		}
		acc, ok := res.Trace.Stat("accept_stat__")
		if !ok {
			t.Fatal("no accept_stat__")
		}
		var sum float64
		var n int
		for _, ch := range acc {
			for _, a := range ch {
				sum += a
				n++
			}
		}
		if mean := sum / float64(n); math.Abs(mean-target) > 0.06 {
			t.Errorf("TargetAccept %v: mean accept_stat %.3f", target, mean)
		}
		for j, s := range res.Table[:4] {
			if z := (s.Mean - mu[j]) / s.MCSEMean; math.Abs(z) > 4.5 {
				t.Errorf("TargetAccept %v: %s mean %.3f, want %.3f (mcse %.3f)", target, s.Name, s.Mean, mu[j], s.MCSEMean)
			}
			if math.Abs(s.SD/sd[j]-1) > 0.15 {
				t.Errorf("TargetAccept %v: %s sd %.3f, want %.3f", target, s.Name, s.SD, sd[j])
			}
		}
	}
}
