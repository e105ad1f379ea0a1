package approx

import (
	"context"
	"math"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// TestVEMEvidence checks variational EM on the means model, where the
// evidence maximiser is closed-form: marginally ȳⱼ ~ N(0, 1/λ + σ²/N), so
//
//	λ̂ = D / (‖ȳ‖² − Dσ²/N).
//
// At η* the SGD iterates' law is the posterior up to the discretisation
// (variance factor 2/(2 − ηh), exact AR(1)), so VEM's λ must be λ̂ within 4
// replicate standard errors plus that bias. Plugging in a near-MAP θ instead
// (η*/100: q collapses to a point, "MAP-EM") must fail the same check.
func TestVEMEvidence(t *testing.T) {
	t.Parallel()
	const n, d, sigma2 = 1000, 50, 100.0
	m := newMeans(n, d, sigma2, 4, 1, 21)
	var ss float64
	for _, v := range m.ybar() {
		ss += v * v
	}
	exact := d / (ss - d*sigma2/n)
	run := func(stepFactor float64) (mean, se, eta float64) {
		var ls []float64
		for r := 0; r < 4; r++ {
			rng := langevin.ChainRNG(uint64(r+1), 0)
			step, err := OptimalStep(m, make([]float64, d), 10, 1000, rng)
			if err != nil {
				t.Fatal(err)
			}
			res, err := VEM{Step: step * stepFactor, Batch: sampler.Minibatch{Size: 10, Replace: true}}.Run(context.Background(), m, make([]float64, d), 60000, rng)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, res.Lambda)
			eta = res.Step
		}
		mean, se = meanSD(ls)
		return mean, se, eta
	}
	got, se, eta := run(1)
	// Relative bias bound: the variance excess ηh/(2 − ηh) times the
	// variance's share v/(m² + v) of E‖θ‖²/D (at λ̂).
	h := exact + n/sigma2
	vshare := (1 / h) * exact
	bias := eta * h / (2 - eta*h) * vshare
	t.Logf("VEM λ = %.4f ± %.4f, evidence maximiser %.4f (η* = %.3g, ηh = %.3f, bias bound %.2f%%)", got, se, exact, eta, eta*h, 100*bias)
	if math.Abs(got-exact) > 4*se+bias*exact {
		t.Errorf("VEM λ = %.4f ± %.4f, want %.4f", got, se, exact)
	}
	// Per-coordinate rates (Corollary 3): every coordinate has the same
	// gradient variance here, so they equal η* and give the same λ.
	var dl []float64
	for r := 0; r < 4; r++ {
		rng := langevin.ChainRNG(uint64(r+1), 0)
		res, err := VEM{Diagonal: true, NoiseRows: n, Batch: sampler.Minibatch{Size: 10, Replace: true}}.Run(context.Background(), m, make([]float64, d), 60000, rng)
		if err != nil {
			t.Fatal(err)
		}
		dl = append(dl, res.Lambda)
	}
	dm, dse := meanSD(dl)
	t.Logf("diagonal rates: λ = %.4f ± %.4f", dm, dse)
	if math.Abs(dm-exact) > 4*dse+2*bias*exact {
		t.Errorf("diagonal VEM λ = %.4f ± %.4f, want %.4f", dm, dse, exact)
	}
	bad, badSE, _ := run(0.01)
	t.Logf("with η*/100 (near-MAP θ): λ = %.4f ± %.4f", bad, badSE)
	if math.Abs(bad-exact) <= 4*se+bias*exact {
		t.Errorf("near-MAP VEM gives λ = %.4f, within the tolerance of %.4f: the check cannot fail", bad, exact)
	}
}

// TestOptimalStep checks η* against its closed form on the means model, where
// one observation's gradient (yᵢ − θ)/σ² has covariance S_y/σ⁴.
func TestOptimalStep(t *testing.T) {
	t.Parallel()
	m := newMeans(300, 3, 2, 1, 1, 22)
	var tr float64
	for j := 0; j < 3; j++ {
		var s, ss float64
		for i := 0; i < 300; i++ {
			v := m.y[i*3+j]
			s += v
			ss += v * v
		}
		tr += (ss - s*s/300) / 299 / 4
	}
	want := 2 * 10 * 3 / (300 * 300 * tr)
	got, err := OptimalStep(m, []float64{5, 1, -2}, 10, 300, langevin.ChainRNG(1, 0))
	if err != nil || math.Abs(got-want) > 1e-12*want {
		t.Errorf("η* = %v (%v), want %v", got, err, want)
	}
	if _, err := OptimalStep(m, make([]float64, 3), 0, 10, langevin.ChainRNG(1, 0)); err == nil {
		t.Error("batch 0: no error")
	}
	for _, v := range []VEM{{}, {Batch: sampler.Minibatch{Size: 300}}, {Batch: sampler.Minibatch{Size: 10}, Lambda0: -1}, {Batch: sampler.Minibatch{Size: 10}, AverageFrom: 100}} {
		if _, err := v.Run(context.Background(), m, make([]float64, 3), 100, langevin.ChainRNG(1, 0)); err == nil {
			t.Errorf("%+v: no error", v)
		}
	}
}

// TestMaxCurvature checks the power iteration on the means model, whose
// negative Hessian is hI, and on a Gaussian target with a known spectrum.
func TestMaxCurvature(t *testing.T) {
	t.Parallel()
	m := newMeans(100, 4, 2, 1, 1, 23)
	if got, want := MaxCurvature(m, make([]float64, 4), 5, langevin.ChainRNG(1, 0)), m.curvature(); math.Abs(got-want) > 1e-6*want {
		t.Errorf("a_max = %v, want h = %v", got, want)
	}
}

// padded is the means model with extra parameters that the likelihood does
// not see: a flat subspace (the last extra coordinates) along which the
// posterior is exactly the prior.
type padded struct {
	*means
	extra int
}

func (m padded) Dim() int { return m.d + m.extra }

func (m padded) LogLik(th []float64, batch []int, g []float64) float64 {
	if g != nil {
		g = g[:m.d]
	}
	return m.means.LogLik(th[:m.d], batch, g)
}

func (m padded) FlatDim() int { return m.extra }

func (m padded) FlatNorm2(th []float64) float64 {
	var ss float64
	for _, v := range th[m.d:] {
		ss += v * v
	}
	return ss
}

// TestVEMFlat checks VEM.Flat: parameters the likelihood ignores integrate
// out of the evidence exactly, so the evidence maximiser of the padded means
// model is that of the means model, λ̂ = D / (‖ȳ‖² − Dσ²/N). Constant SGD has
// no gradient noise along them and contracts them to 0, so plain eq. 22 sees
// E‖θ‖² short by F/λ and its λ is biased up by about (D+F)/D = 1.5 — that
// run must fail the same tolerance.
func TestVEMFlat(t *testing.T) {
	t.Parallel()
	const n, d, extra, sigma2 = 1000, 50, 25, 100.0
	m := padded{newMeans(n, d, sigma2, 4, 1, 21), extra}
	var ss float64
	for _, v := range m.ybar() {
		ss += v * v
	}
	exact := d / (ss - d*sigma2/n)
	run := func(flat bool) (mean, se, eta float64) {
		var ls []float64
		for r := 0; r < 4; r++ {
			v := VEM{Batch: sampler.Minibatch{Size: 10, Replace: true}, NoiseRows: n}
			if flat {
				v.Flat = m
			}
			res, err := v.Run(context.Background(), m, make([]float64, d+extra), 40000, langevin.ChainRNG(uint64(r+1), 0))
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, res.Lambda)
			eta = res.Step
		}
		mean, se = meanSD(ls)
		return mean, se, eta
	}
	got, se, eta := run(true)
	// η* uses r = D here (Tr C is that of the means model), so it is the
	// means model's η*, and the bias bound is TestVEMEvidence's.
	h := exact + n/sigma2
	bias := eta * h / (2 - eta*h) * (1 / h) * exact
	t.Logf("VEM with Flat: λ = %.4f ± %.4f, evidence maximiser %.4f (η = %.3g, bias bound %.2f%%)", got, se, exact, eta, 100*bias)
	if math.Abs(got-exact) > 4*se+bias*exact {
		t.Errorf("VEM with Flat: λ = %.4f ± %.4f, want %.4f", got, se, exact)
	}
	bad, badSE, _ := run(false)
	t.Logf("plain eq. 22 (flat coordinates contract to 0): λ = %.4f ± %.4f", bad, badSE)
	if math.Abs(bad-exact) <= 4*se+bias*exact {
		t.Errorf("VEM without Flat gives λ = %.4f, within the tolerance of %.4f: the check cannot fail", bad, exact)
	}
	if _, err := (VEM{Batch: sampler.Minibatch{Size: 10}, Flat: padded{m.means, d}}).Run(context.Background(), padded{m.means, d}, make([]float64, 2*d), 100, langevin.ChainRNG(1, 0)); err != nil {
		t.Errorf("F < D: %v", err)
	}
	if _, err := (VEM{Batch: sampler.Minibatch{Size: 10}, Flat: padded{m.means, 2 * d}}).Run(context.Background(), m, make([]float64, d+extra), 100, langevin.ChainRNG(1, 0)); err == nil {
		t.Error("F ≥ D: no error")
	}
}
