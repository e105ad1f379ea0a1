package approx_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

func randSPD(d int, rng *rand.Rand) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, a)
	for i := 0; i < d; i++ {
		s.SetSym(i, i, s.At(i, i)+0.1)
	}
	return s
}

func TestSolveLyapunov(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, d := range []int{1, 2, 5, 12} {
		A, Q := randSPD(d, rng), randSPD(d, rng)
		S, err := approx.SolveLyapunov(A, Q)
		if err != nil {
			t.Fatal(err)
		}
		var r1, r2 mat.Dense
		r1.Mul(S, A)
		r2.Mul(A, S)
		r1.Add(&r1, &r2)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if math.Abs(r1.At(i, j)-Q.At(i, j)) > 1e-9*mat.Norm(Q, 1) {
					t.Errorf("d=%d: (ΣA + AΣ − Q)[%d,%d] = %g", d, i, j, r1.At(i, j)-Q.At(i, j))
				}
			}
		}
	}
	// Scalar case: Σ = q/(2a). A not positive definite is an error.
	S, _ := approx.SolveLyapunov(mat.NewSymDense(1, []float64{4}), mat.NewSymDense(1, []float64{3}))
	if S.At(0, 0) != 3.0/8 {
		t.Errorf("scalar Σ = %v, want 3/8", S.At(0, 0))
	}
	if _, err := approx.SolveLyapunov(mat.NewSymDense(1, []float64{-1}), mat.NewSymDense(1, []float64{1})); err == nil || !strings.Contains(err.Error(), "positive definite") {
		t.Errorf("negative A: err = %v", err)
	}
	if _, err := approx.SolveLyapunov(mat.NewSymDense(1, []float64{1}), mat.NewSymDense(2, nil)); err == nil {
		t.Error("size mismatch accepted")
	}
}

// noHessian hides a model's Hessian so that Laplace uses finite differences.
type noHessian struct{ *model.Logistic }

func (noHessian) Hessian() {}

func TestLaplace(t *testing.T) {
	ds := data.Australian()
	var sc = data.FitScaler(ds.X)
	sc.Transform(ds.X)
	lg, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := approx.Laplace(context.Background(), lg, nil)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := approx.Laplace(context.Background(), noHessian{lg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := lg.Dim()
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if e, f := exact.Cov.At(i, j), fd.Cov.At(i, j); math.Abs(e-f) > 1e-5*math.Sqrt(exact.Cov.At(i, i)*exact.Cov.At(j, j)) {
				t.Errorf("Laplace covariance [%d,%d]: exact Hessian %g, finite differences %g", i, j, e, f)
			}
		}
	}
	// On a quadratic log posterior the Laplace approximation is exact.
	X := mat.NewDense(200, 2, nil)
	y := make([]float64, 200)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range y {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		y[i] = 1 + X.At(i, 0) - 2*X.At(i, 1) + rng.NormFloat64()
	}
	lin, _ := model.NewLinearFixedNoise(X, y, model.LinearFixedNoiseOptions{Precision: 2})
	la, err := approx.Laplace(context.Background(), lin, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, cov := lin.Posterior()
	for i := range mean {
		if math.Abs(la.Mean[i]-mean[i]) > 1e-6*math.Sqrt(cov.At(i, i)) {
			t.Errorf("mean[%d] = %g, exact %g", i, la.Mean[i], mean[i])
		}
		for j := range mean {
			if math.Abs(la.Cov.At(i, j)-cov.At(i, j)) > 1e-12 {
				t.Errorf("cov[%d,%d] = %g, exact %g", i, j, la.Cov.At(i, j), cov.At(i, j))
			}
		}
	}
	if _, err := approx.LaplaceAt(lin, []float64{1}); err == nil {
		t.Error("short mode accepted")
	}
}

// TestLaplaceFloored: with a positive definite negative Hessian P (the
// Gaussian's precision, eigenvalues above the floor) the floored Laplace
// covariance is P⁻¹; with one eigenvalue made negative
// (−H = P − 3 v vᵀ, v a unit eigenvector of P with eigenvalue 1) exactly that
// one is raised to the floor, and Prec·Cov = I.
func TestLaplaceFloored(t *testing.T) {
	// P = Q diag(1, 2, 4, 8) Qᵀ, Q a rotation in the first two and last two coordinates.
	c, s := math.Cos(0.3), math.Sin(0.3)
	q := mat.NewDense(4, 4, []float64{c, -s, 0, 0, s, c, 0, 0, 0, 0, c, s, 0, 0, -s, c})
	var p mat.Dense
	p.Mul(q, mat.NewDiagDense(4, []float64{1, 2, 4, 8}))
	p.Mul(&p, q.T())
	mode := []float64{1, 2, 3, 4}
	h := make([]float64, 16)
	for i := range 4 {
		for j := range 4 {
			h[i*4+j] = -p.At(i, j)
		}
	}
	var plain mat.Dense
	if err := plain.Inverse(&p); err != nil {
		t.Fatal(err)
	}
	fl, raised, err := approx.LaplaceFloored(mode, h, 0.5)
	if err != nil || raised != 0 {
		t.Fatalf("PD: raised %d, err %v", raised, err)
	}
	if !mat.EqualApprox(&plain, fl.Cov, 1e-12) {
		t.Errorf("PD: floored covariance differs from the plain one")
	}
	// Make the eigenvalue 1 (eigenvector (c, s, 0, 0)) equal to −2.
	v := []float64{c, s, 0, 0}
	for i := range 4 {
		for j := range 4 {
			h[i*4+j] += 3 * v[i] * v[j]
		}
	}
	fl, raised, err = approx.LaplaceFloored(mode, h, 0.5)
	if err != nil || raised != 1 {
		t.Fatalf("indefinite: raised %d, err %v", raised, err)
	}
	// Along v the precision is now the floor 0.5: vᵀ Cov v = 2.
	var cv mat.VecDense
	cv.MulVec(fl.Cov, mat.NewVecDense(4, v))
	if got := mat.Dot(&cv, mat.NewVecDense(4, v)); math.Abs(got-2) > 1e-12 {
		t.Errorf("vᵀ Cov v = %v, want 2 (1/floor)", got)
	}
	var id mat.Dense
	id.Mul(fl.Prec, fl.Cov)
	if !mat.EqualApprox(&id, mat.NewDiagDense(4, []float64{1, 1, 1, 1}), 1e-12) {
		t.Errorf("Prec·Cov ≠ I")
	}
	if _, _, err := approx.LaplaceFloored(mode, h, 0); err == nil {
		t.Error("floor 0 accepted")
	}
}

// TestPriorCurvature: a network's N(0, s²) prior on every weight has
// curvature 1/s² in every coordinate; with the learned noise's N(0, 1)
// prior on log σ², the smallest of 1/s² and 1.
func TestPriorCurvature(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	y := []float64{1, 2, 3, 4}
	for _, tc := range []struct {
		scale, want float64
		learn       bool
	}{{1, 1, false}, {0.5, 4, false}, {2, 0.25, false}, {0.5, 1, true}} {
		m, err := model.NewMLP(X, y, model.MLPOptions{Hidden: []int{3}, PriorScale: []float64{tc.scale}, LearnNoise: tc.learn})
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = 0.1 * float64(j%5)
		}
		if got := approx.PriorCurvature(m, theta); math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("prior sd %v, learned noise %v: curvature %v, want %v", tc.scale, tc.learn, got, tc.want)
		}
	}
}
