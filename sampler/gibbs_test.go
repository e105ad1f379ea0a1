package sampler_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// gibbsNet is Bayesian linear regression as a network without hidden
// layers, f = xᵀw + b, with the noise learned: θ = (w₁, w₂, w₃, b, γ = log
// σ²), prior N(0, 1.5²/3) on the weights (fan-in), N(0, 1.5²) on b and
// N(log 0.5, 1) on γ; three correlated features (x₂ = 0.9x₁ + 0.44z), 40
// rows.
func gibbsNet(t testing.TB) (*model.MLP, *mat.Dense, []float64) {
	X, y := testmodel.CorrelatedRegression()
	m, err := model.NewMLP(X, y, model.MLPOptions{Likelihood: model.LikGaussian, LearnNoise: true, NoiseVar: 0.5,
		LogNoiseMean: math.Log(0.5), LogNoiseSD: 1, PriorScale: []float64{1.5}, FanIn: true})
	if err != nil {
		t.Fatal(err)
	}
	return m, X, y
}

// gibbsNetPosterior returns the exact posterior means and sds of gibbsNet's
// parameters by quadrature over γ: given γ, β = (w, b) is Gaussian with
// precision A(γ) = ΦᵀΦ/σ² + S⁻¹ and mean A⁻¹Φᵀy/σ² (Φ = [X 1], S the
// prior variances), and p(γ|D) ∝ N(γ; μ_γ, s_γ²) N(y; 0, σ²I + ΦSΦᵀ); the
// moments of β are ∫ (μ, A⁻¹ + μ²) p(γ|D) dγ on a grid of step 0.002.
func gibbsNetPosterior(m *model.MLP, X *mat.Dense, y []float64) (mean, sd []float64) {
	n, p := X.Dims()
	k := p + 1
	phi := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			phi.Set(i, j, X.At(i, j))
		}
		phi.Set(i, p, 1)
	}
	psd := make([]float64, m.Dim())
	m.PriorSDs(psd)
	S := mat.NewDiagDense(k, nil)
	for j := 0; j < k; j++ {
		S.SetDiag(j, psd[j]*psd[j])
	}
	var PSP mat.Dense
	PSP.Product(phi, S, phi.T())
	var ptp mat.Dense
	ptp.Mul(phi.T(), phi)
	yv := mat.NewVecDense(n, y)
	var pty mat.VecDense
	pty.MulVec(phi.T(), yv)
	type point struct{ lw, g float64 }
	var pts []point
	var mus [][]float64
	var vars [][]float64
	lmax := math.Inf(-1)
	mu0, s0 := math.Log(0.5), 1.0
	for g := mu0 - 7; g <= mu0+7; g += 0.002 {
		s2 := math.Exp(g)
		K := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				K.SetSym(i, j, PSP.At(i, j))
			}
			K.SetSym(i, i, K.At(i, i)+s2)
		}
		var ch mat.Cholesky
		if !ch.Factorize(K) {
			panic("K not positive definite")
		}
		var u mat.VecDense
		if err := ch.SolveVecTo(&u, yv); err != nil {
			panic(err)
		}
		z := (g - mu0) / s0
		lw := -0.5*z*z - 0.5*ch.LogDet() - 0.5*mat.Dot(yv, &u)
		A := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				A.SetSym(i, j, ptp.At(i, j)/s2)
			}
			A.SetSym(i, i, A.At(i, i)+1/S.At(i, i))
		}
		var ca mat.Cholesky
		ca.Factorize(A)
		var Ainv mat.SymDense
		ca.InverseTo(&Ainv)
		var r, mu mat.VecDense
		r.ScaleVec(1/s2, &pty)
		mu.MulVec(&Ainv, &r)
		mv, vv := make([]float64, k), make([]float64, k)
		for j := 0; j < k; j++ {
			mv[j] = mu.AtVec(j)
			vv[j] = Ainv.At(j, j)
		}
		pts = append(pts, point{lw, g})
		mus, vars = append(mus, mv), append(vars, vv)
		lmax = max(lmax, lw)
	}
	d := m.Dim()
	m1, m2 := make([]float64, d), make([]float64, d)
	var wsum float64
	for i, pt := range pts {
		w := math.Exp(pt.lw - lmax)
		wsum += w
		for j := 0; j < k; j++ {
			m1[j] += w * mus[i][j]
			m2[j] += w * (vars[i][j] + mus[i][j]*mus[i][j])
		}
		m1[k] += w * pt.g
		m2[k] += w * pt.g * pt.g
	}
	mean, sd = make([]float64, d), make([]float64, d)
	for j := range mean {
		mean[j] = m1[j] / wsum
		sd[j] = math.Sqrt(m2[j]/wsum - mean[j]*mean[j])
	}
	return mean, sd
}

// slipCond draws its block at twice the chain's temperature: noise √2 too
// large, the slip the test must catch.
type slipCond struct{ c sampler.Conditional }

func (s slipCond) Draw(theta []float64, tau float64, rng *rand.Rand) error {
	return s.c.Draw(theta, 2*tau, rng)
}

// TestSGHMCGibbsExactPosterior: SGHMC on all five parameters of gibbsNet
// (batch 20 of 40 rows) composed with an exact draw of the regression
// coefficients β = (w, b) from their conditional given σ² every 5 steps
// (model.OutputConditional) matches the exact posterior (quadrature over
// log σ²): means within 0.2 sd, sds within 10%, ESS ≥ 400
// (testmodel.CompareMoments). The composition fails when the block's draw
// has √2 too much noise, and when the likelihood of the SGHMC steps lacks
// the N/|B| scale.
func TestSGHMCGibbsExactPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical test: skipped with -short")
	}
	m, X, y := gibbsNet(t)
	mean, sd := gibbsNetPosterior(m, X, y)
	pre := make([]float64, len(sd))
	for j, s := range sd {
		pre[j] = s * s
	}
	mk := func() (sampler.Conditional, error) { return m.NewOutputConditional() }
	const eta, alpha = 0.02, 0.3
	s := sampler.SGHMC{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: 20}, Friction: alpha, Precond: pre,
		Gibbs: mk, GibbsEvery: 5}
	init := append([]float64(nil), mean...)
	tr := runFamily(t, m, s, 200000, init, 31)
	if sum, err := testmodel.CompareMoments(tr, mean, sd, 400); err != nil {
		t.Error(err)
	} else {
		t.Logf("SGHMC + Gibbs block: %s", sum)
	}
	slip := s
	slip.Gibbs = func() (sampler.Conditional, error) { c, err := mk(); return slipCond{c}, err }
	if _, err := testmodel.CompareMoments(runFamily(t, m, slip, 200000, init, 31), mean, sd, 400); err == nil {
		t.Error("Gibbs block with noise ×√2 passed")
	} else {
		t.Logf("Gibbs block with noise ×√2 fails as it should: %v", err)
	}
	if _, err := testmodel.CompareMoments(runFamily(t, scaledLik{m, 20.0 / 40}, s, 200000, init, 31), mean, sd, 400); err == nil {
		t.Error("SGHMC steps without N/|B| passed")
	} else {
		t.Logf("SGHMC steps without N/|B| fail as they should: %v", err)
	}
}
