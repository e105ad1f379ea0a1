package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
)

// TestMLPOutputJacobian checks ∂f(x; θ)/∂θ of MLP.OutputJacobian against
// central finite differences of RegressionMean, on the training rows (nil X)
// and on new inputs, for tanh and identity networks with two hidden layers,
// a standardised response (the Jacobian is then in y's units: s_y times
// the standardised one) and a learned noise (its column must be 0). A
// Jacobian that forgot s_y, a layer, or the bias entries fails it.
func TestMLPOutputJacobian(t *testing.T) {
	t.Parallel()
	for _, act := range []model.Activation{model.Tanh, model.Identity, model.ReLU} {
		X, y := mlpData(3, 40, 3, model.LikGaussian, 2)
		for i := range y {
			y[i] = 10*y[i] + 5 // s_y ≈ 10: a missing factor shows
		}
		m := mustMLP(t, X, y, model.MLPOptions{Hidden: []int{6, 4}, Activation: act, LearnNoise: true, StandardizeY: true, FanIn: true})
		d := m.Dim()
		theta := make([]float64, d)
		m.InitPoint(theta, rand.New(rand.NewPCG(1, 2)))
		Xnew := mat.NewDense(5, 3, nil)
		rng := rand.New(rand.NewPCG(4, 5))
		for i := 0; i < 5; i++ {
			for j := 0; j < 3; j++ {
				Xnew.Set(i, j, rng.NormFloat64())
			}
		}
		for _, tc := range []struct {
			name   string
			X      *mat.Dense // passed to OutputJacobian
			eval   *mat.Dense // the same rows, for RegressionMean
			i0, i1 int
		}{
			{"train rows 7–19", nil, X, 7, 19},
			{"new inputs", Xnew, Xnew, 0, 5},
		} {
			r := tc.i1 - tc.i0
			f := make([]float64, r)
			jac := make([]float64, r*d)
			m.OutputJacobian(theta, tc.X, tc.i0, tc.i1, f, jac)
			n, _ := tc.eval.Dims()
			fp, fm, f0 := make([]float64, n), make([]float64, n), make([]float64, n)
			m.RegressionMean(theta, tc.eval, f0)
			for k := 0; k < r; k++ {
				if math.Abs(f[k]-f0[tc.i0+k]) > 1e-12*math.Max(1, math.Abs(f0[tc.i0+k])) {
					t.Fatalf("%v %s: f[%d] = %v, RegressionMean %v", act, tc.name, k, f[k], f0[tc.i0+k])
				}
			}
			th := append([]float64(nil), theta...)
			var worst float64
			for j := 0; j < d; j++ {
				h := 1e-6
				th[j] = theta[j] + h
				m.RegressionMean(th, tc.eval, fp)
				th[j] = theta[j] - h
				m.RegressionMean(th, tc.eval, fm)
				th[j] = theta[j]
				for k := 0; k < r; k++ {
					fd := (fp[tc.i0+k] - fm[tc.i0+k]) / (2 * h)
					got := jac[k*d+j]
					if j == d-1 && got != 0 {
						t.Fatalf("%v %s: row %d: ∂f/∂log σ² = %v, want 0", act, tc.name, k, got)
					}
					worst = math.Max(worst, math.Abs(got-fd)/math.Max(1, math.Abs(fd)))
				}
			}
			if worst > 1e-5 {
				t.Errorf("%v %s: Jacobian vs finite differences: worst relative error %.3g", act, tc.name, worst)
			}
		}
	}
}
