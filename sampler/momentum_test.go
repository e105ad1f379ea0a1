package sampler_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// extremeEig returns the smallest and largest eigenvalue of a.
func extremeEig(t testing.TB, a mat.Symmetric) (lo, hi float64) {
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		t.Fatal("eigendecomposition failed")
	}
	v := eig.Values(nil)
	return v[0], v[len(v)-1]
}

// Heavy-ball momentum (lecture notes' Note 15) on the full-data gradient of
// a 4-parameter Gaussian linear regression (neighbouring features correlated
// 0.97) is the linear
// recursion eₜ₊₁ = ((1 + β)I − ηΛ)eₜ − βeₜ₋₁ of the error e = θ − θ̂: after
// 60 steps at Polyak's η = 4/(√L + √μ)², β = ((√κ − 1)/(√κ + 1))² the
// chain equals the recursion computed with the exact precision to 1e-9, and
// its error is below 5·61·((√κ−1)/(√κ+1))^60 ‖e₀‖ (the
// factor t + 1 of the double eigenvalue at Polyak's setting), far below what gradient
// descent reaches at its best step 2/(L + μ). The likelihood at the wrong
// weight (as a wrong N/|B| would give) fails.
func TestMomentumHeavyBallRecursion(t *testing.T) {
	ms := newMandtSetup(t, 1000, 3, 10, 0.97, 21)
	d := ms.m.Dim()
	mu, L := extremeEig(t, ms.lap.Prec)
	sk := math.Sqrt(L / mu)
	eta := 4 / ((math.Sqrt(L) + math.Sqrt(mu)) * (math.Sqrt(L) + math.Sqrt(mu)))
	rate := (sk - 1) / (sk + 1)
	beta := rate * rate
	mode, _ := ms.m.Posterior()
	theta0 := make([]float64, d)
	const steps = 60
	run := func(m langevin.Model, s langevin.Sampler) []float64 {
		ch, err := s.NewChain(m, theta0, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < steps; i++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return append([]float64(nil), ch.Position()...)
	}
	got := run(ms.m, sampler.Momentum{Step: schedule.Constant(eta), Beta: beta})
	// The recursion with the exact Λ.
	e0 := mat.NewVecDense(d, nil)
	for j := range theta0 {
		e0.SetVec(j, theta0[j]-mode[j])
	}
	prev, cur := mat.VecDenseCopyOf(e0), mat.VecDenseCopyOf(e0)
	var le, next mat.VecDense
	for i := 0; i < steps; i++ {
		le.MulVec(ms.lap.Prec, cur)
		next.ScaleVec(1+beta, cur)
		next.AddScaledVec(&next, -eta, &le)
		next.AddScaledVec(&next, -beta, prev)
		prev.CopyVec(cur)
		cur.CopyVec(&next)
	}
	scale := mat.Norm(e0, 2)
	var worst, errNorm float64
	for j := range got {
		worst = max(worst, math.Abs(got[j]-mode[j]-cur.AtVec(j)))
		errNorm += (got[j] - mode[j]) * (got[j] - mode[j])
	}
	errNorm = math.Sqrt(errNorm)
	t.Logf("κ = %.1f, η = %.3g, β = %.3f: |chain − recursion| = %.2g, ‖e‖/‖e₀‖ = %.3g (bound %.3g)", L/mu, eta, beta, worst, errNorm/scale, 5*(steps+1)*math.Pow(rate, steps))
	if worst > 1e-9*scale {
		t.Errorf("chain differs from the heavy-ball recursion by %.3g (‖e₀‖ = %.3g)", worst, scale)
	}
	if errNorm > 5*(steps+1)*math.Pow(rate, steps)*scale {
		t.Errorf("‖e₆₀‖/‖e₀‖ = %.3g above 5·61·rate^60 = %.3g", errNorm/scale, 5*(steps+1)*math.Pow(rate, steps))
	}
	gd := run(ms.m, sampler.GD(schedule.Constant(2/(L+mu))))
	var gdErr float64
	for j := range gd {
		gdErr += (gd[j] - mode[j]) * (gd[j] - mode[j])
	}
	gdErr = math.Sqrt(gdErr)
	t.Logf("gradient descent at 2/(L + μ): ‖e‖/‖e₀‖ = %.3g", gdErr/scale)
	if !(errNorm < gdErr/10) {
		t.Errorf("momentum's error %.3g not 10× below gradient descent's %.3g", errNorm, gdErr)
	}
	// Wrong variant: the likelihood scaled by |B|/N (scale 1 instead of N/|B|):
	// a different optimum, far from the recursion.
	bad := run(scaledLik{ms.m, 0.5}, sampler.Momentum{Step: schedule.Constant(eta), Beta: beta})
	var badWorst float64
	for j := range bad {
		badWorst = max(badWorst, math.Abs(bad[j]-mode[j]-cur.AtVec(j)))
	}
	if badWorst < 1e-3*scale {
		t.Errorf("the likelihood at half weight still matched the recursion (%.3g): the check cannot fail", badWorst)
	}
	if _, err := (sampler.Momentum{Step: schedule.Constant(1), Beta: 1}).NewChain(ms.m, theta0, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("β = 1: no error")
	}
}

// Momentum on minibatches reaches the MAP of the Australian logistic
// regression (15 parameters) with a decaying step, and 1% of the steps does
// not.
func TestMomentumReachesMAPOnMinibatches(t *testing.T) {
	t.Parallel()
	m := australianLogistic(t)
	want, err := approx.FindMAP(t.Context(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	dist := func(iters int) float64 {
		s := sampler.Momentum{Step: schedule.Polynomial{A: 0.02, B: 100, Gamma: 1}, Batch: sampler.Minibatch{Size: 50}}
		ch, err := s.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < iters; i++ {
			if err := ch.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var worst float64
		for j, v := range ch.Position() {
			worst = max(worst, math.Abs(v-want[j]))
		}
		return worst
	}
	d := dist(60000)
	t.Logf("momentum β = 0.9, B = 50, 60,000 steps: max |θ − MAP| = %.3g", d)
	if !(d < 0.05) {
		t.Errorf("max |θ − MAP| = %.3g, want < 0.05", d)
	}
	if short := dist(200); short < 0.05 {
		t.Errorf("200 steps reached the MAP too (%.3g): the check cannot fail", short)
	}
}

// Polyak–Ruppert averaging (Mandt et al. 2017, §6.1) as an optimiser: on a
// 4-parameter correlated Gaussian linear regression, at a constant step
// (ηλmax = 0.2, minibatches of 10 with replacement, averaging after 1000
// steps), the average θ̄ₜ of 25 independent chains converges to the exact
// MAP with covariance Λ⁻¹CΛ⁻¹/t (C = Cov(ĝ)): the statistic
// Σ_chains (θ̄ₜ − θ̂)ᵀ(Λ⁻¹CΛ⁻¹/t)⁻¹(θ̄ₜ − θ̂) is χ² with 100 degrees of
// freedom (sd 14.1) at t = 2,000 and at t = 32,000, the 1/t rate; within
// 4 sd of 100 at both. The last iterate (no averaging) and the likelihood
// at the wrong weight fail.
func TestPolyakSGDConvergesAtRate1OverT(t *testing.T) {
	ms := newMandtSetup(t, 1000, 3, 10, 0.6, 22)
	d := ms.m.Dim()
	mode, _ := ms.m.Posterior()
	_, L := extremeEig(t, ms.lap.Prec)
	C := ms.noiseCovOfGhat()
	// A = Λ⁻¹CΛ⁻¹ and its inverse ΛC⁻¹Λ.
	var cl, cc mat.Cholesky
	cl.Factorize(ms.lap.Prec)
	if !cc.Factorize(C) {
		t.Fatal("gradient noise not positive definite")
	}
	var ci mat.SymDense
	if err := cc.InverseTo(&ci); err != nil {
		t.Fatal(err)
	}
	var ainv, tmp mat.Dense
	tmp.Mul(&ci, ms.lap.Prec)
	ainv.Mul(ms.lap.Prec, &tmp)
	const chains, start = 25, 1000
	checkpoints := []int{2000, 32000}
	stat := func(m langevin.Model, last bool) []float64 {
		out := make([]float64, len(checkpoints))
		for k := 0; k < chains; k++ {
			s := sampler.PolyakSGD{Step: schedule.Constant(0.2 / L), Batch: sampler.Minibatch{Size: ms.s, Replace: true}, Start: start}
			ch, err := s.NewChain(m, make([]float64, d), rand.New(rand.NewPCG(uint64(k), 23)))
			if err != nil {
				t.Fatal(err)
			}
			var it int
			for c, tt := range checkpoints {
				for ; it < start+tt; it++ {
					if err := ch.Step(); err != nil {
						t.Fatal(err)
					}
				}
				pos := ch.Position()
				if last {
					pos = ch.(interface{ Iterate() []float64 }).Iterate()
				}
				e := mat.NewVecDense(d, nil)
				for j := range pos {
					e.SetVec(j, pos[j]-mode[j])
				}
				var ae mat.VecDense
				ae.MulVec(&ainv, e)
				out[c] += float64(tt) * mat.Dot(e, &ae)
			}
		}
		return out
	}
	const df = chains * 4
	sd := math.Sqrt(2 * df)
	for c, v := range stat(ms.m, false) {
		t.Logf("t = %d: χ² statistic %.1f (df %d, sd %.1f)", checkpoints[c], v, df, sd)
		if math.Abs(v-df) > 4*sd {
			t.Errorf("t = %d: χ² statistic %.1f, want %d ± %.1f: θ̄ₜ does not converge to the MAP at Cov Λ⁻¹CΛ⁻¹/t", checkpoints[c], v, df, 4*sd)
		}
	}
	for c, v := range stat(ms.m, true) {
		if math.Abs(v-df) <= 4*sd {
			t.Errorf("t = %d: the last iterate passes the 1/t check (%.1f): the test cannot fail", checkpoints[c], v)
		}
	}
	for c, v := range stat(scaledLik{ms.m, 0.5}, false) {
		if c == 1 && math.Abs(v-df) <= 4*sd {
			t.Errorf("t = %d: the likelihood at half weight passes (%.1f): the test cannot fail", checkpoints[c], v)
		}
	}
}
