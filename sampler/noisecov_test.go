package sampler_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// TestOptimalStepConversion derives ε* in Mandt et al.'s units from their
// own definitions, ℓₙ = −log p(zₙ|θ) − (1/N) log p(θ) and BBᵀ = Cov_n(∇ℓₙ),
// computed here by brute force, and checks ε*/N = OptimalStep; then checks
// Theorem 1 in our units: η* minimises KL(N(θ*, Σ(η)) ‖ N(θ*, Λ⁻¹)) with Σ(η)
// from the Lyapunov equation, and the minimum is not at 2η* or η*/2 (the
// ε = 2η slip).
func TestOptimalStepConversion(t *testing.T) {
	ms := newMandtSetup(t, 500, 3, 10, 0.5, 12)
	m, th := ms.m, ms.lap.Mean
	d, n := m.Dim(), m.Len()
	// ∇ℓₙ, brute force.
	grads := make([][]float64, n)
	prior := make([]float64, d)
	m.LogPrior(th, prior)
	for i := range grads {
		g := make([]float64, d)
		m.LogLik(th, []int{i}, g)
		for j := range g {
			g[j] = -g[j] - prior[j]/float64(n)
		}
		grads[i] = g
	}
	var trBB float64
	for j := 0; j < d; j++ {
		var s, ss float64
		for _, g := range grads {
			s += g[j]
			ss += g[j] * g[j]
		}
		mean := s / float64(n)
		trBB += ss/float64(n) - mean*mean
	}
	epsStar := 2 * float64(ms.s) / float64(n) * float64(d) / trBB // eq. 15
	eta := sampler.OptimalStep(ms.V, n, ms.s)
	if math.Abs(epsStar/float64(n)/eta-1) > 1e-10 {
		t.Errorf("ε*/N = %.10g, OptimalStep η* = %.10g", epsStar/float64(n), eta)
	}
	kl := func(e float64) float64 {
		sig := ms.lyapunov(t, e)
		v, err := diag.KLGaussian(th, sig, th, ms.lap.Cov)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	k0 := kl(eta)
	for _, f := range []float64{0.5, 0.9, 1.1, 2} {
		if k := kl(f * eta); !(k > k0) {
			t.Errorf("KL at %gη* = %.6g ≤ KL at η* = %.6g", f, k, k0)
		}
	}
	// The diagonal and full preconditioners never do worse than the scalar
	// rate; the full one is exact (KL 0) in the Ornstein–Uhlenbeck limit.
	full, _ := sampler.OptimalFull(ms.V, n, ms.s)
	c := ms.noiseCovOfGhat()
	var mc, mcm mat.Dense
	mc.Mul(full, c)
	mcm.Mul(&mc, full)
	// MΛΣ + ΣΛM = MCM with Σ = Λ⁻¹ ⇔ 2M = MCM.
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if math.Abs(mcm.At(i, j)-2*full.At(i, j)) > 1e-9*math.Abs(full.At(i, i)) {
				t.Fatalf("M C M ≠ 2M at [%d,%d]: %g vs %g", i, j, mcm.At(i, j), 2*full.At(i, j))
			}
		}
	}
	dg := sampler.OptimalDiag(ms.V, n, ms.s)
	for k := range dg {
		if math.Abs(dg[k]*c.At(k, k)-2) > 1e-12 {
			t.Errorf("diagonal preconditioner %d: M_kk C_kk = %g, want 2", k, dg[k]*c.At(k, k))
		}
	}
	se, sp := sampler.OptimalSqrt(ms.V, n, ms.s)
	var tr float64
	for k := range sp {
		tr += sp[k] * c.At(k, k)
	}
	if math.Abs(se*tr/2-float64(d)) > 1e-9 {
		t.Errorf("square-root preconditioner: η Tr(G⁻¹C)/2 = %g, want D = %d", se*tr/2, d)
	}
}

// TestGradCovEstimators checks the one-off minibatch estimate and the online
// estimate (eq. 21) against the exact full-data V, within 4 Monte Carlo
// standard errors of a Wishart-type estimate.
func TestGradCovEstimators(t *testing.T) {
	ms := newMandtSetup(t, 2000, 2, 20, 0.6, 13)
	m, th := ms.m, ms.lap.Mean
	d := m.Dim()
	est := mat.NewSymDense(d, nil)
	const batches = 400
	if err := sampler.EstimateGradCov(m, th, ms.s, batches, rand.New(rand.NewPCG(1, 2)), est); err != nil {
		t.Fatal(err)
	}
	// Var of a sample covariance entry ≈ (V_aa V_bb + V_ab²)/(#terms) for
	// Gaussian-like gradients; allow 4 s.e. with a kurtosis factor 3.
	check := func(name string, got *mat.SymDense, terms float64) {
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				v := ms.V.At(a, b)
				se := math.Sqrt(3 * (ms.V.At(a, a)*ms.V.At(b, b) + v*v) / terms)
				if math.Abs(got.At(a, b)-v) > 4*se {
					t.Errorf("%s [%d,%d] = %.5g, exact %.5g ± %.2g", name, a, b, got.At(a, b), v, 4*se)
				}
			}
		}
	}
	check("EstimateGradCov", est, batches*float64(ms.s-1))
	// Online estimate along a chain at the mode (θ fixed: SGD with a tiny step).
	for _, full := range []bool{true, false} {
		on := sampler.NewNoiseCovOnline(d, full)
		rng := rand.New(rand.NewPCG(3, 4))
		b, _ := langevin.NewBatcher(m.Len(), ms.s, false, rng)
		g1, gS := make([]float64, d), make([]float64, d)
		const steps = 2000
		for k := 0; k < steps; k++ {
			batch := b.Next()
			clear(gS)
			m.LogLik(th, batch, gS)
			for j := range gS {
				gS[j] /= float64(ms.s)
			}
			clear(g1)
			m.LogLik(th, batch[:1], g1)
			on.Update(g1, gS, ms.s)
		}
		got := mat.NewSymDense(d, nil)
		on.Cov(got)
		if full {
			check("NoiseCovOnline (full)", got, steps)
		} else {
			for k := 0; k < d; k++ {
				if got.At(k, k) != on.Var(k) || (k > 0 && got.At(0, k) != 0) {
					t.Errorf("diagonal form: Cov and Var disagree")
				}
				se := math.Sqrt(3 * 2 * ms.V.At(k, k) * ms.V.At(k, k) / steps)
				if math.Abs(got.At(k, k)-ms.V.At(k, k)) > 4*se {
					t.Errorf("NoiseCovOnline (diag) [%d] = %.5g, exact %.5g", k, got.At(k, k), ms.V.At(k, k))
				}
			}
		}
		if on.N() != steps {
			t.Errorf("N() = %d", on.N())
		}
	}
	if err := sampler.EstimateGradCov(m, th, 1, 10, rand.New(rand.NewPCG(1, 1)), est); err == nil || !strings.Contains(err.Error(), "batches of 1") {
		t.Errorf("batch size 1: err = %v", err)
	}
	if err := sampler.GradCov(m, th[:1], est); err == nil {
		t.Error("short θ accepted")
	}
}

func TestMandtSamplerErrors(t *testing.T) {
	ms := newMandtSetup(t, 50, 1, 5, 0, 14)
	V := ms.V
	rng := rand.New(rand.NewPCG(1, 1))
	mb := sampler.Minibatch{Size: 5}
	for _, tc := range []struct {
		s    langevin.Sampler
		want string
	}{
		{sampler.ConstSGD{Eta: 0, Batch: mb}, "step η"},
		{sampler.ConstSGD{Eta: math.Inf(1), Batch: mb}, "step η"},
		{sampler.ConstSGD{Eta: 1, Batch: mb, Momentum: 2}, "momentum"},
		{sampler.ConstSGD{Eta: 1, Batch: mb, Precond: []float64{1}}, "preconditioner has 1"},
		{sampler.ConstSGD{Eta: 1, Batch: mb, PrecondFull: mat.NewSymDense(2, nil)}, "not positive definite"},
		{sampler.SGFS{Batch: mb, Eps: 1}, "gradient covariance"},
		{sampler.SGFS{Batch: mb, GradCov: V}, "ε"},
		{sampler.SGFS{Batch: mb, GradCov: V, Eps: 1, Hmax: 1}, "h_max"},
		{sampler.SGFS{GradCov: V, Eps: 1}, "minibatch"},
		{sampler.IASG{Eta: -1, Batch: mb}, "step η"},
		{sampler.IASG{Eta: 1, Batch: mb, Window: -2}, "window"},
	} {
		_, err := tc.s.NewChain(ms.m, ms.lap.Mean, rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", tc.s, err, tc.want)
		}
	}
	// Divergence is an error naming the iteration and the parameter.
	ch, _ := sampler.ConstSGD{Eta: 10, Batch: mb}.NewChain(ms.m, ms.lap.Mean, rng)
	var err error
	for i := 0; i < 2000 && err == nil; i++ {
		err = ch.Step()
	}
	if err == nil || !strings.Contains(err.Error(), "diverged at iteration") {
		t.Errorf("divergence: err = %v", err)
	}
}

// SGFS-d with h_max: every M_kk is min(h_max, 2/C_kk).
func TestSGFSDiagHmax(t *testing.T) {
	ms := newMandtSetup(t, 1000, 2, 10, 0.6, 15)
	c := ms.noiseCovOfGhat()
	hmax := 1 / c.At(0, 0) // below 2/C_00 for every k here
	s := sampler.SGFS{Batch: sampler.Minibatch{Size: ms.s}, GradCov: ms.V, Diag: true, Hmax: hmax}
	ch, err := s.NewChain(ms.m, ms.lap.Mean, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ch.Step()
	st := make([]float64, 2)
	ch.Stats(st)
	var want float64
	for k := 0; k < ms.m.Dim(); k++ {
		want += min(hmax, 2/c.At(k, k)) / float64(ms.m.Dim())
	}
	if math.Abs(st[1]/want-1) > 1e-12 {
		t.Errorf("mean M_kk = %g, want %g", st[1], want)
	}
}

func benchMandt(b *testing.B, s langevin.Sampler) {
	ms := newMandtSetup(b, 10_000, 9, 10, 0.3, 16)
	ch, err := s.NewChain(ms.m, ms.lap.Mean, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ch.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// The benchmarks use §7.2's model (N = 10,000, D = 10) with S = 10.
func BenchmarkMandtSteps(b *testing.B) {
	ms := newMandtSetup(b, 10_000, 9, 10, 0.3, 16)
	mb := sampler.Minibatch{Size: 10, Replace: true}
	eta := sampler.OptimalStep(ms.V, ms.n, ms.s)
	full, _ := sampler.OptimalFull(ms.V, ms.n, ms.s)
	b.Run("csgd", func(b *testing.B) { benchMandt(b, sampler.ConstSGD{Eta: eta, Batch: mb}) })
	b.Run("csgd-diag", func(b *testing.B) {
		benchMandt(b, sampler.ConstSGD{Eta: 1, Batch: mb, Precond: sampler.OptimalDiag(ms.V, ms.n, ms.s)})
	})
	b.Run("csgd-full", func(b *testing.B) { benchMandt(b, sampler.ConstSGD{Eta: 1, Batch: mb, PrecondFull: full}) })
	b.Run("csgd-momentum", func(b *testing.B) { benchMandt(b, sampler.ConstSGD{Eta: eta / 4, Momentum: 0.25, Batch: mb}) })
	b.Run("sgfs", func(b *testing.B) { benchMandt(b, sampler.SGFS{Batch: mb, GradCov: ms.V, Eps: 2}) })
	b.Run("sgfs-diag", func(b *testing.B) { benchMandt(b, sampler.SGFS{Batch: mb, GradCov: ms.V, Eps: 2, Diag: true}) })
	b.Run("iasg-window", func(b *testing.B) { benchMandt(b, sampler.IASG{Eta: eta, Batch: mb}) })
	b.Run("online-noise-cov-full", func(b *testing.B) {
		on := sampler.NewNoiseCovOnline(10, true)
		g1, gS := make([]float64, 10), make([]float64, 10)
		g1[0] = 1
		b.ReportAllocs()
		for b.Loop() {
			on.Update(g1, gS, 10)
		}
	})
}
