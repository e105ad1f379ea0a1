package approx

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// TestSWAGMoments checks the fit against the moments of the snapshots it saw,
// recomputed from scratch: mean, mean of squares, and the last K deviations
// from the running mean.
func TestSWAGMoments(t *testing.T) {
	t.Parallel()
	m := newMeans(50, 3, 1, 1, 1, 1)
	s := SWAG{Step: 0.004, Batch: sampler.Minibatch{Size: 5}, Every: 3, Start: 5, Rank: 4}
	ch, err := s.NewChain(m, []float64{1, -1, 0.5}, langevin.ChainRNG(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	var snaps [][]float64
	for it := 1; it <= 5+3*11; it++ {
		if err := ch.Step(); err != nil {
			t.Fatal(err)
		}
		if it > 5 && (it-5)%3 == 0 {
			snaps = append(snaps, append([]float64(nil), ch.Position()...))
		}
	}
	fit := ch.(*swagChain).Fit()
	if fit.N() != len(snaps) || len(snaps) != 11 {
		t.Fatalf("%d snapshots in the fit, %d taken", fit.N(), len(snaps))
	}
	var devs [][]float64
	run := make([]float64, 3)
	for i, th := range snaps {
		dev := make([]float64, 3)
		for j, v := range th {
			run[j] += (v - run[j]) / float64(i+1)
			dev[j] = v - run[j]
		}
		devs = append(devs, dev)
	}
	for j := 0; j < 3; j++ {
		var s, ss float64
		for _, th := range snaps {
			s += th[j]
			ss += th[j] * th[j]
		}
		n := float64(len(snaps))
		if math.Abs(fit.Mean[j]-s/n) > 1e-12 || math.Abs(fit.SqMean[j]-ss/n) > 1e-12 {
			t.Errorf("coordinate %d: mean %v, squares %v; want %v, %v", j, fit.Mean[j], fit.SqMean[j], s/n, ss/n)
		}
	}
	cols := fit.Columns()
	if len(cols) != 4 {
		t.Fatalf("%d columns, want 4", len(cols))
	}
	for c, col := range cols {
		want := devs[len(devs)-4+c]
		for j := range col {
			if math.Abs(col[j]-want[j]) > 1e-12 {
				t.Fatalf("column %d: %v, want %v", c, col, want)
			}
		}
	}
}

// TestSWAGStationary checks SWAG against the exact stationary law of SGD on a
// quadratic log posterior (the AR(1) variance of means.sgdVar): the fitted
// mean is the posterior mean, and the covariance ½(Σ_diag + D̂D̂ᵀ/(K−1)) has
// the iterates' variance on its diagonal — within Monte Carlo error (the
// spread over coordinates and replicates). With scale 1 (no ½) the same check
// fails.
func TestSWAGStationary(t *testing.T) {
	t.Parallel()
	m := newMeans(200, 5, 1, 1, 1, 2)
	h := m.curvature()
	eta := 0.2 / h // autocorrelation 0.8 per step, 0.8²⁰ ≈ 0.01 between snapshots
	const every, rank, snaps, reps = 20, 100, 2000, 4
	ratios := func(scale float64) (r []float64, fits []*SWAGFit) {
		for rep := 0; rep < reps; rep++ {
			s := SWAG{Step: eta, Batch: sampler.Minibatch{Size: 10, Replace: true}, Every: every, Start: 200, Rank: rank, Scale: scale}
			fit, err := FitSWAG(context.Background(), m, s, m.postMean(), 200+every*snaps, langevin.ChainRNG(uint64(10+rep), 0))
			if err != nil {
				t.Fatal(err)
			}
			cov := make([]float64, 25)
			fit.Cov(cov)
			for j := 0; j < 5; j++ {
				r = append(r, cov[j*5+j]/m.sgdVar(j, eta, 10))
			}
			fits = append(fits, fit)
		}
		return r, fits
	}
	r, fits := ratios(0.5)
	mean, se := meanSD(r)
	// Expected: ½(1 − 1/M + K/(K−1)) ≈ 1 + 1/(2(K−1)); the tolerance is 4
	// standard errors of the ratio's mean over 20 (coordinate, replicate) pairs.
	want := 0.5 * (1 - 1.0/snaps + float64(rank)/float64(rank-1))
	t.Logf("SWAG variance / exact SGD variance: %.4f ± %.4f (want %.4f)", mean, se, want)
	if math.Abs(mean-want) > 4*se {
		t.Errorf("SWAG variance ratio %.4f, want %.4f ± %.4f", mean, want, 4*se)
	}
	post := m.postMean()
	for rep, fit := range fits {
		for j := 0; j < 5; j++ {
			tol := 4 * math.Sqrt(m.sgdVar(j, eta, 10)/snaps)
			if d := fit.Mean[j] - post[j]; math.Abs(d) > tol {
				t.Errorf("replicate %d, coordinate %d: SWAG mean %v, posterior mean %v (tolerance %.3g)", rep, j, fit.Mean[j], post[j], tol)
			}
		}
	}
	// The failing variant: covariance scale 1 instead of ½.
	rBad, _ := ratios(1)
	bad, _ := meanSD(rBad)
	if math.Abs(bad-want) <= 4*se {
		t.Errorf("scale 1 gives ratio %.4f: the check cannot fail", bad)
	}
}

// TestSWAGSample checks Sample against Cov: the sample covariance of 40,000
// draws matches the fit's covariance elementwise within 4 standard errors
// √((ΣᵢᵢΣⱼⱼ + Σᵢⱼ²)/n); drawing with √1 instead of √½ fails.
func TestSWAGSample(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	fit := NewSWAGFit(3, 5, 0.5)
	for i := 0; i < 30; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		fit.Add([]float64{1 + a, -2 + 0.5*a + 0.3*b, 0.2 * b})
	}
	cov := make([]float64, 9)
	fit.Cov(cov)
	check := func(f *SWAGFit) (worst float64) {
		const n = 40000
		x := make([]float64, 3)
		var s [3]float64
		var ss [9]float64
		for k := 0; k < n; k++ {
			f.Sample(x, rng)
			for i := range x {
				s[i] += x[i]
				for j := range x {
					ss[i*3+j] += x[i] * x[j]
				}
			}
		}
		for i := 0; i < 3; i++ {
			if d := s[i]/n - fit.Mean[i]; math.Abs(d) > 4*math.Sqrt(cov[i*3+i]/n) {
				worst = math.Max(worst, math.Abs(d)/math.Sqrt(cov[i*3+i]/n))
			}
			for j := 0; j < 3; j++ {
				c := ss[i*3+j]/n - s[i]*s[j]/(n*n)
				se := math.Sqrt((cov[i*3+i]*cov[j*3+j] + cov[i*3+j]*cov[i*3+j]) / n)
				worst = math.Max(worst, math.Abs(c-cov[i*3+j])/se)
			}
		}
		return worst
	}
	if w := check(fit); w > 4 {
		t.Errorf("sample covariance off by %.1f standard errors", w)
	}
	bad := *fit
	bad.scale = 1
	if w := check(&bad); w <= 4 {
		t.Errorf("scale 1 is within %.1f standard errors: the check cannot fail", w)
	}
}

func TestSWAGErrors(t *testing.T) {
	t.Parallel()
	m := newMeans(20, 2, 1, 1, 1, 3)
	for _, s := range []SWAG{{}, {Step: -1}, {Step: math.Inf(1)}, {Step: 1, Rank: -1}, {Step: 1, Batch: sampler.Minibatch{Size: 50}}} {
		if _, err := s.NewChain(m, []float64{0, 0}, langevin.ChainRNG(1, 0)); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if _, err := (SWAG{Step: 0.01}).NewChain(m, []float64{0}, langevin.ChainRNG(1, 0)); err == nil {
		t.Error("short θ₀: no error")
	}
	// Burn-in without a snapshot: Run reports it rather than sampling nothing.
	_, err := langevin.Run(context.Background(), m, SWAG{Step: 0.01, Every: 50}, langevin.Options{Chains: 1, Iters: 20, BurnIn: 10})
	if err == nil {
		t.Error("burn-in without a snapshot: no error")
	} else {
		t.Log(err)
	}
}

// TestSWAGNoAllocs checks that SGD steps, snapshots and draws allocate
// nothing.
func TestSWAGNoAllocs(t *testing.T) {
	m := newMeans(100, 4, 1, 1, 1, 4)
	ch, err := SWAG{Step: 0.001, Batch: sampler.Minibatch{Size: 10}, Every: 1}.NewChain(m, make([]float64, 4), langevin.ChainRNG(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() { ch.Step() }); a != 0 {
		t.Errorf("SGD step with snapshot: %v allocations", a)
	}
	ch.(langevin.WarmupEnder).EndWarmup()
	if a := testing.AllocsPerRun(200, func() { ch.Step() }); a != 0 {
		t.Errorf("draw: %v allocations", a)
	}
}
