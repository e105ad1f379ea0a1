package model_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// mlpLinearExact returns the exact posterior of the MLP with no hidden layer,
// Gaussian likelihood with known σ² and prior N(0, s² I) on (w, b): with
// Z = [X 1], Λ = ZᵀZ/σ² + I/s², mean Λ⁻¹Zᵀy/σ², covariance Λ⁻¹.
func mlpLinearExact(X *mat.Dense, y []float64, sigma2, s float64) (mean, sd []float64) {
	n, p := X.Dims()
	Z := mat.NewDense(n, p+1, nil)
	Z.Augment(X, mat.NewDense(n, 1, ones(n)))
	var prec mat.SymDense
	prec.SymOuterK(1/sigma2, Z.T())
	for j := 0; j <= p; j++ {
		prec.SetSym(j, j, prec.At(j, j)+1/(s*s))
	}
	var cov mat.Dense
	if err := cov.Inverse(&prec); err != nil {
		panic(err)
	}
	var zty mat.VecDense
	zty.MulVec(Z.T(), mat.NewVecDense(n, y))
	zty.ScaleVec(1/sigma2, &zty)
	var mu mat.VecDense
	mu.MulVec(&cov, &zty)
	mean, sd = make([]float64, p+1), make([]float64, p+1)
	for j := range mean {
		mean[j] = mu.AtVec(j)
		sd[j] = math.Sqrt(cov.At(j, j))
	}
	return mean, sd
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// scaledMLP multiplies the likelihood by f: with f = |B|/N the estimator's
// N/|B| scale is lost, the slip the test must catch.
type scaledMLP struct {
	*model.MLP
	f float64
}

func (m scaledMLP) LogLik(th []float64, batch []int, g []float64) float64 {
	if g == nil {
		return m.f * m.MLP.LogLik(th, batch, nil)
	}
	tmp := make([]float64, len(g))
	v := m.MLP.LogLik(th, batch, tmp)
	for j := range g {
		g[j] += m.f * tmp[j]
	}
	return m.f * v
}

// TestMLPLinearSGLD: an MLP with no hidden layer and a Gaussian likelihood
// with fixed noise is Bayesian linear regression; SGLD on it must match the
// exact posterior (means within 0.2 sd, sds within 10%). SGLD is
// preconditioned with the exact posterior variances, so every coordinate has
// unit scale, and runs at the constant step η = 0.1·B/N, where the gradient
// noise adds about ηN/(2B) = 5% to the injected noise's variance. The same
// check must fail for SGLD with noise √2 too small (τ = ½) and with the
// N/|B| scale dropped.
func TestMLPLinearSGLD(t *testing.T) {
	t.Parallel()
	const n, p, b, sigma2, s = 400, 2, 20, 0.25, 1.0
	X, y := mlpData(11, n, p, model.LikGaussian, 0)
	m := mustMLP(t, X, y, model.MLPOptions{NoiseVar: sigma2, PriorScale: []float64{s}})
	mean, sd := mlpLinearExact(X, y, sigma2, s)
	pre := make([]float64, len(sd))
	for j, v := range sd {
		pre[j] = v * v
	}
	run := func(mod langevin.Model, tau float64) error {
		eta := 0.1 * float64(b) / float64(n)
		iters := int(400 / eta)
		smp := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Precond: pre, Temperature: tau}
		tr, err := langevin.Run(context.Background(), mod, smp, langevin.Options{
			Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: 4, Seed: 5,
			Init: langevin.InitAt{Points: [][]float64{mean}},
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := testmodel.CompareMoments(tr, mean, sd, 400)
		if err == nil {
			t.Logf("τ = %g: %s", tau, got)
		}
		return err
	}
	if err := run(m, 1); err != nil {
		t.Errorf("SGLD on the linear MLP: %v", err)
	}
	if err := run(m, 0.5); err == nil {
		t.Errorf("SGLD with noise √2 too small passed the check")
	} else {
		t.Logf("noise √2 too small fails as it should: %v", err)
	}
	if err := run(scaledMLP{m, float64(b) / n}, 1); err == nil {
		t.Errorf("SGLD without the N/|B| scale passed the check")
	} else {
		t.Logf("dropped N/|B| fails as it should: %v", err)
	}
}
