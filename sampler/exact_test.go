package sampler_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// denseGaussian returns N(μ, Σ) in d dimensions with Σ = D R D: standard
// deviations Dⱼⱼ log-spaced from 1 to 10 and the dense correlation
// Rᵢⱼ = 0.5^|i−j|, so the condition number of Σ is above 100, and
// μⱼ = j − d/2.
func denseGaussian(tb testing.TB, d int) *model.Gaussian {
	mu := make([]float64, d)
	sd := make([]float64, d)
	for j := range mu {
		mu[j] = float64(j) - float64(d)/2
		sd[j] = 1
		if d > 1 {
			sd[j] = math.Pow(10, float64(j)/float64(d-1))
		}
	}
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			cov.SetSym(i, j, sd[i]*sd[j]*math.Pow(0.5, math.Abs(float64(i-j))))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, false) {
		tb.Fatal("eigen decomposition failed")
	}
	ev := eig.Values(nil)
	if k := ev[len(ev)-1] / ev[0]; k < 100 {
		tb.Fatalf("d = %d: condition number %.1f < 100", d, k)
	}
	g, err := model.NewGaussian(mu, cov)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// checkGaussian compares the draws with N(μ, Σ): every mean within zMean·MCSE
// and every covariance entry within zCov·MCSE, the MCSE of the covariance
// entry (i, j) being that of the mean of the series (θᵢ − μᵢ)(θⱼ − μⱼ),
// computed from its bulk ESS like every MCSE here. It returns an error naming
// the worst failures.
func checkGaussian(tr *langevin.Trace, g *model.Gaussian, zMean, zCov float64) error {
	d := g.Dim()
	mu, cov := g.Mean(), g.Cov()
	params := tr.Params()
	var fails []string
	worst := 0.0
	for j := 0; j < d; j++ {
		m := chainMean(params[j])
		se := diag.MCSEMean(params[j])
		z := math.Abs(m-mu[j]) / se
		worst = math.Max(worst, z)
		if !(z < zMean) {
			fails = append(fails, fmt.Sprintf("mean of %s: %.4g, exact %.4g, %.1f MCSE", tr.Names[j], m, mu[j], z))
		}
	}
	prod := make([][]float64, len(params[0]))
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			for c := range prod {
				xi, xj := params[i][c], params[j][c]
				if prod[c] == nil {
					prod[c] = make([]float64, len(xi))
				}
				for t := range xi {
					prod[c][t] = (xi[t] - mu[i]) * (xj[t] - mu[j])
				}
			}
			m := chainMean(prod)
			se := diag.MCSEMean(prod)
			z := math.Abs(m-cov.At(i, j)) / se
			worst = math.Max(worst, z)
			if !(z < zCov) {
				fails = append(fails, fmt.Sprintf("cov(%d,%d): %.4g, exact %.4g, %.1f MCSE", i+1, j+1, m, cov.At(i, j), z))
			}
		}
	}
	if len(fails) > 0 {
		if len(fails) > 5 {
			fails = append(fails[:5], fmt.Sprintf("… %d more", len(fails)-5))
		}
		return fmt.Errorf("%d failures (worst %.1f MCSE): %s", len(fails), worst, strings.Join(fails, "; "))
	}
	return nil
}

func chainMean(chains [][]float64) float64 {
	var s float64
	n := 0
	for _, c := range chains {
		for _, x := range c {
			s += x
		}
		n += len(c)
	}
	return s / float64(n)
}

// meanAccept returns the mean accept_stat__ over all draws.
func meanAccept(tr *langevin.Trace) float64 {
	a, ok := tr.Stat("accept_stat__")
	if !ok {
		return math.NaN()
	}
	return chainMean(a)
}

func minESS(tr *langevin.Trace) float64 {
	m := math.Inf(1)
	for j := 0; j < tr.Dim; j++ {
		m = math.Min(m, diag.ESSBulk(tr.Param(j)))
	}
	return m
}

// runExact runs 4 chains of s with burn-in = warm-up = warm, from θ = 0,
// thinned to at most 5,000 draws per chain.
func runExact(tb testing.TB, m langevin.Model, s langevin.Sampler, warm, draws int, seed uint64) *langevin.Trace {
	tb.Helper()
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: warm + draws, BurnIn: warm, Seed: seed, Thin: max(1, draws/5000),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// TestExactSamplersGaussian checks RWM, MALA and NUTS, each with step-size
// dual averaging and windowed diagonal metric adaptation, against dense
// Gaussian targets (condition number > 100) in d = 2, 10, 50: means within 4
// MCSE, covariance entries within 4.5 MCSE (up to 1,275 entries at d = 50),
// and the tuned mean acceptance in the band.
func TestExactSamplersGaussian(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	diagM := sampler.Adapt{Metric: sampler.MetricDiag}
	dense := func(w int) sampler.Adapt { return sampler.Adapt{Metric: sampler.MetricDense, Warmup: w} }
	cases := []struct {
		name        string
		d           int
		s           func(warm int) langevin.Sampler
		warm, draws int
		lo, hi      float64
	}{
		{"RWM/d2", 2, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.RWM{Adapt: a} }, 2000, 20000, 0.15, 0.35},
		{"RWM/d10", 10, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.RWM{Adapt: a} }, 5000, 50000, 0.15, 0.35},
		{"RWM/d50", 50, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.RWM{Adapt: a} }, 20000, 100000, 0.15, 0.35},
		{"MALA/d2", 2, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.MALA{Adapt: a} }, 1000, 10000, 0.45, 0.70},
		{"MALA/d10", 10, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.MALA{Adapt: a} }, 2000, 20000, 0.45, 0.70},
		{"MALA/d50", 50, func(w int) langevin.Sampler { a := diagM; a.Warmup = w; return sampler.MALA{Adapt: a} }, 5000, 20000, 0.45, 0.70},
		// NUTS's dual averaging lands above its target 0.8 (as Stan's does:
		// the final step e^(x̄) is a geometric mean of the iterates, and short
		// trajectories' accept_stat__ is skewed), most in two dimensions; at
		// d = 10 it is 0.905 with Stan's trajectory boundaries (0.890 with
		// the pre-fix ones of issue 11), so the band's top is 0.93.
		{"NUTS/d2", 2, func(w int) langevin.Sampler { return sampler.NUTS{Adapt: sampler.Adapt{Warmup: w}} }, 1000, 2000, 0.7, 0.95},
		{"NUTS/d10", 10, func(w int) langevin.Sampler { return sampler.NUTS{Adapt: sampler.Adapt{Warmup: w}} }, 1000, 2000, 0.7, 0.93},
		{"NUTS/d50", 50, func(w int) langevin.Sampler { return sampler.NUTS{Adapt: sampler.Adapt{Warmup: w}} }, 1000, 2000, 0.7, 0.93},
		// Dense metric adaptation (Stan's dense_e).
		{"RWM-dense/d10", 10, func(w int) langevin.Sampler { return sampler.RWM{Adapt: dense(w)} }, 5000, 30000, 0.15, 0.35},
		{"MALA-dense/d10", 10, func(w int) langevin.Sampler { return sampler.MALA{Adapt: dense(w)} }, 2000, 10000, 0.45, 0.70},
		{"NUTS-dense/d10", 10, func(w int) langevin.Sampler { return sampler.NUTS{Adapt: dense(w)} }, 1000, 2000, 0.7, 0.93},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := denseGaussian(t, tc.d)
			tr := runExact(t, g, tc.s(tc.warm), tc.warm, tc.draws, uint64(100+i))
			acc := meanAccept(tr)
			t.Logf("mean accept_stat %.3f, min bulk-ESS %.0f", acc, minESS(tr))
			if err := checkGaussian(tr, g, 4, 4.5); err != nil {
				t.Error(err)
			}
			if !(acc >= tc.lo && acc <= tc.hi) {
				t.Errorf("mean accept_stat %.3f outside [%.2f, %.2f]", acc, tc.lo, tc.hi)
			}
		})
	}
}

// TestMALAWithoutCorrectionFails shows that the Gaussian check can fail: MALA
// with the proposal-density ratio q(θ|θ')/q(θ'|θ) dropped from α, run exactly
// as the correct MALA of TestExactSamplersGaussian (same target, tuning,
// seed and length), must miss the exact moments by more than the same
// bounds.
func TestMALAWithoutCorrectionFails(t *testing.T) {
	for _, d := range []int{2, 10} {
		g := denseGaussian(t, d)
		a := sampler.Adapt{Metric: sampler.MetricDiag, Warmup: 2000}
		good := runExact(t, g, sampler.MALA{Adapt: a}, 2000, 20000, 7)
		if err := checkGaussian(good, g, 4, 4.5); err != nil {
			t.Errorf("d = %d: correct MALA: %v", d, err)
		}
		bad := runExact(t, g, sampler.WithoutCorrection(sampler.MALA{Adapt: a}), 2000, 20000, 7)
		err := checkGaussian(bad, g, 4, 4.5)
		if err == nil {
			t.Errorf("d = %d: MALA without the proposal-density correction passed the check", d)
		} else {
			t.Logf("d = %d: without the correction (as it should): %v", d, err)
		}
	}
}

// TestExactSamplersLogisticAgree runs RWM, MALA and NUTS (dual averaging,
// windowed diagonal metric) on the Australian logistic regression and checks
// that they agree: every pair's means within 0.1 posterior sd (NUTS's), sds
// within 10%, and each tuned mean acceptance in the band. With bulk
// ESS ≥ 2,000 per sampler the Monte Carlo error of a difference of means is
// below 0.032 sd, so 0.1 sd is more than 3 standard errors.
func TestExactSamplersLogisticAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test: skipped with -short")
	}
	m := australianLogistic(t)
	type run struct {
		name        string
		s           langevin.Sampler
		warm, draws int
		lo, hi      float64
		tr          *langevin.Trace
	}
	runs := []*run{
		{name: "NUTS", s: sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000}}, warm: 1000, draws: 1500, lo: 0.7, hi: 0.9},
		{name: "MALA", s: sampler.MALA{Adapt: sampler.Adapt{Warmup: 4000, Metric: sampler.MetricDiag}}, warm: 4000, draws: 20000, lo: 0.45, hi: 0.70},
		{name: "RWM", s: sampler.RWM{Adapt: sampler.Adapt{Warmup: 10000, Metric: sampler.MetricDiag}}, warm: 10000, draws: 60000, lo: 0.15, hi: 0.35},
	}
	for i, r := range runs {
		r.tr = runExact(t, m, r.s, r.warm, r.draws, uint64(200+i))
		acc := meanAccept(r.tr)
		ess := minESS(r.tr)
		t.Logf("%s: mean accept_stat %.3f, min bulk-ESS %.0f", r.name, acc, ess)
		if !(acc >= r.lo && acc <= r.hi) {
			t.Errorf("%s: mean accept_stat %.3f outside [%.2f, %.2f]", r.name, acc, r.lo, r.hi)
		}
		if !(ess >= 2000) {
			t.Errorf("%s: min bulk-ESS %.0f < 2000", r.name, ess)
		}
	}
	moments := func(tr *langevin.Trace, j int) (mean, sd float64) {
		p := tr.Param(j)
		mean = chainMean(p)
		var ss float64
		n := 0
		for _, c := range p {
			for _, x := range c {
				ss += (x - mean) * (x - mean)
			}
			n += len(c)
		}
		return mean, math.Sqrt(ss / float64(n-1))
	}
	for j := 0; j < m.Dim(); j++ {
		_, ref := moments(runs[0].tr, j)
		for a := 0; a < len(runs); a++ {
			for b := a + 1; b < len(runs); b++ {
				ma, sa := moments(runs[a].tr, j)
				mb, sb := moments(runs[b].tr, j)
				if e := math.Abs(ma-mb) / ref; !(e < 0.1) {
					t.Errorf("%s: means of %s (%.4f) and %s (%.4f) differ by %.3f sd", runs[0].tr.Names[j], runs[a].name, ma, runs[b].name, mb, e)
				}
				if r := sa / sb; !(r > 0.9 && r < 1/0.9) {
					t.Errorf("%s: sds of %s (%.4f) and %s (%.4f): ratio %.3f", runs[0].tr.Names[j], runs[a].name, sa, runs[b].name, sb, r)
				}
			}
		}
	}
}

// Bad settings and starting points are errors, not panics.
func TestExactSamplersBadInput(t *testing.T) {
	g := denseGaussian(t, 2)
	m := australianLogistic(t)
	zero2 := []float64{0, 0}
	for _, tc := range []struct {
		name  string
		s     langevin.Sampler
		m     langevin.Model
		theta []float64
		want  string
	}{
		{"negative step", sampler.MALA{Step: -1}, g, zero2, "MALA step -1"},
		{"NaN sigma", sampler.RWM{Step: math.NaN()}, g, zero2, "RWM step σ NaN"},
		{"target 1", sampler.NUTS{Adapt: sampler.Adapt{TargetAccept: 1}}, g, zero2, "target acceptance 1"},
		{"depth", sampler.NUTS{MaxDepth: 40}, g, zero2, "maximum tree depth 40"},
		{"precond length", sampler.MALA{Precond: []float64{1}}, g, zero2, "MALA preconditioner has 1 entries"},
		{"precond zero", sampler.RWM{Precond: []float64{1, 0}}, g, zero2, "RWM scale entry 2 is 0"},
		{"grid warm-up", sampler.RWM{Step: 1, Adapt: sampler.Adapt{Tune: sampler.TuneGrid, Warmup: 5}}, g, zero2, "needs a warm-up of at least 9"},
		{"grid value", sampler.RWM{Step: 1, Adapt: sampler.Adapt{Tune: sampler.TuneGrid, Warmup: 50, Grid: []float64{1, -1}}}, g, zero2, "grid step 2 is -1"},
		{"warm-up", sampler.NUTS{Adapt: sampler.Adapt{Warmup: -1}}, g, zero2, "warm-up -1"},
		{"theta length", sampler.NUTS{}, g, []float64{0}, "initial point has 1 values"},
		{"infinite start", sampler.MALA{}, m, func() []float64 { v := make([]float64, 15); v[0] = math.Inf(1); return v }(), "log posterior at the initial point"},
	} {
		_, err := tc.s.NewChain(tc.m, tc.theta, langevin.ChainRNG(1, 0))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
