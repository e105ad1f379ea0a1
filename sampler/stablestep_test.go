package sampler_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// randomSPD returns AAᵀ + 0.01I for a d×d A of standard normals times
// column scales spread over three orders of magnitude: an ill-conditioned
// positive definite matrix.
func randomSPD(d int, rng *rand.Rand) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64()*math.Pow(10, 1.5*float64(i)/float64(d)))
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, a)
	for j := 0; j < d; j++ {
		s.SetSym(j, j, s.At(j, j)+0.01)
	}
	return s
}

// TestLambdaMaxMH compares the power iteration with the eigendecomposition
// of M^½HM^½ on random ill-conditioned matrices, with the identity and with
// the diagonal Laplace preconditioner diag(H⁻¹).
func TestLambdaMaxMH(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 2, 5, 20, 60} {
		h := randomSPD(d, rng)
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			t.Fatal("not positive definite")
		}
		var cov mat.SymDense
		if err := ch.InverseTo(&cov); err != nil {
			t.Fatal(err)
		}
		lap := make([]float64, d)
		for j := range lap {
			lap[j] = cov.At(j, j)
		}
		for _, pre := range [][]float64{nil, lap} {
			got, err := sampler.LambdaMaxMH(h, pre)
			if err != nil {
				t.Fatal(err)
			}
			a := mat.NewSymDense(d, nil)
			for i := 0; i < d; i++ {
				for j := i; j < d; j++ {
					mi, mj := 1.0, 1.0
					if pre != nil {
						mi, mj = math.Sqrt(pre[i]), math.Sqrt(pre[j])
					}
					a.SetSym(i, j, mi*h.At(i, j)*mj)
				}
			}
			var eig mat.EigenSym
			if !eig.Factorize(a, false) {
				t.Fatal("eigendecomposition failed")
			}
			want := eig.Values(nil)[d-1]
			if math.Abs(got-want) > 1e-8*want {
				t.Errorf("d = %d, precond %v: λmax %.12g, eigendecomposition %.12g", d, pre != nil, got, want)
			}
		}
	}
	// Bad input is an error.
	h := randomSPD(3, rng)
	neg := mat.NewSymDense(2, []float64{-1, 0, 0, -2})
	for _, tc := range []struct {
		h    mat.Symmetric
		pre  []float64
		want string
	}{
		{h, []float64{1, 1}, "preconditioner has 2 entries"},
		{h, []float64{1, 0, 1}, "entry 2 is 0"},
		{neg, nil, "not positive definite"},
		{mat.NewSymDense(1, []float64{math.NaN()}), nil, "is NaN"},
	} {
		if _, err := sampler.LambdaMaxMH(tc.h, tc.pre); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to contain %q", err, tc.want)
		}
	}
}

// TestStableStepInflation checks the variance inflation 1/(1 − ηλ/2) that
// the cap rests on, by running full-batch preconditioned SGLD (no gradient
// noise) on a correlated 4-D Gaussian (coefCorr scaled to sds 1, 10, 0.1, 3)
// with the diagonal Laplace preconditioner: along the top eigenvector u of
// A = M^½HM^½ the stationary variance of uᵀM^{-½}(θ − μ) is 1/λmax times
// 1/(1 − ηλmax/2). At η·λmax = 0.1 (the budget: +5.3%), 1 (×2) and 1.6
// (×5) the measured inflation is within 4 MCSE of the prediction, and at 1
// and 1.6 more than 10 MCSE from 1 (the check can fail).
func TestStableStepInflation(t *testing.T) {
	sd := []float64{1, 10, 0.1, 3}
	cov := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			cov.SetSym(i, j, coefCorr[4*i+j]*sd[i]*sd[j])
		}
	}
	g, err := model.NewGaussian(make([]float64, 4), cov)
	if err != nil {
		t.Fatal(err)
	}
	prec := g.Precision()
	pre := make([]float64, 4)
	for j := range pre {
		pre[j] = cov.At(j, j)
	}
	st, err := sampler.NewStableStep(prec, pre, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The top eigenvector u of A, and w = M^{-½}u so that uᵀM^{-½}θ = wᵀθ.
	a := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			a.SetSym(i, j, math.Sqrt(pre[i])*prec.At(i, j)*math.Sqrt(pre[j]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		t.Fatal("eigendecomposition failed")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	w := make([]float64, 4)
	for j := range w {
		w[j] = vecs.At(j, 3) / math.Sqrt(pre[j])
	}
	t.Logf("λmax(MH) = %.4g (eigendecomposition %.4g)", st.LambdaMax, eig.Values(nil)[3])
	for _, el := range []float64{0.1, 1, 1.6} {
		eta := el / st.LambdaMax
		s := sampler.SGLD{Step: schedule.Constant(eta), Precond: pre}
		tr, err := langevin.Run(context.Background(), g, s, langevin.Options{Chains: 4, Iters: 60000, BurnIn: 2000, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		series := make([][]float64, tr.NumChains())
		for c, rows := range tr.Draws {
			series[c] = make([]float64, len(rows))
			for i, r := range rows {
				var p float64
				for j := range w {
					p += w[j] * r[j]
				}
				series[c][i] = p * p * st.LambdaMax
			}
		}
		got, se := chainMean(series), diag.MCSEMean(series)
		want := st.Inflation(eta)
		t.Logf("η·λmax = %.2g: inflation %.4f ± %.4f, predicted %.4f", el, got, se, want)
		if z := math.Abs(got-want) / se; !(z < 4) {
			t.Errorf("η·λmax = %.2g: inflation %.4f ± %.4f, predicted 1/(1 − ηλ/2) = %.4f (%.1f MCSE)", el, got, se, want, z)
		}
		if el >= 1 && !((got-1)/se > 10) {
			t.Errorf("η·λmax = %.2g: inflation %.4f ± %.4f is not clearly above 1", el, got, se)
		}
	}
	if got, want := st.Cap(1), 0.1/st.LambdaMax; got != want {
		t.Errorf("Cap(1) = %v, want κ/λmax = %v", got, want)
	}
	for _, tc := range []struct {
		el   float64
		want string
	}{
		{0.05, ""},
		{0.5, "inflates a posterior variance by up to 33%"},
		{2.5, "is unstable: η·λmax(MH) = 2.5 ≥ 2"},
	} {
		msg := st.Warning(tc.el / st.LambdaMax)
		if (tc.want == "") != (msg == "") || !strings.Contains(msg, tc.want) || (msg != "" && !strings.Contains(msg, fmt.Sprintf("the largest stable step is %.3g", st.Limit()))) {
			t.Errorf("η·λmax = %v: warning %q, want it to contain %q and the largest stable step", tc.el, msg, tc.want)
		}
	}
}

func ExampleStableStep() {
	// A posterior with correlation 0.99 between two coordinates of unit
	// sd: H = R⁻¹, and the diagonal Laplace preconditioner is diag(R) = I.
	h := mat.NewSymDense(2, []float64{1, -0.99, -0.99, 1})
	h.ScaleSym(1/(1-0.99*0.99), h)
	st, _ := sampler.NewStableStep(h, []float64{1, 1}, 0)
	fmt.Printf("λmax(MH) = %.4g, step within the budget %.3g, stability limit %.3g\n", st.LambdaMax, st.Eta(), st.Limit())
	fmt.Printf("at η = 0.01: inflation %.3f; capped step %.3g\n", st.Inflation(0.01), st.Cap(0.01))
	// Output:
	// λmax(MH) = 100, step within the budget 0.001, stability limit 0.02
	// at η = 0.01: inflation 2.000; capped step 0.001
}
