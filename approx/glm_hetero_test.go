package approx

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
)

// TestGLMLaplaceHeteroFiniteDifferences: for a heteroscedastic network
// (outputs μ(x) and s(x) = log σ²(x)) the GGN precision is Σᵢ e^{−sᵢ}
// J_μᵢᵀJ_μᵢ + ½ Σᵢ J_sᵢᵀJ_sᵢ + P (the Gaussian's Fisher in (μ, s) is
// diag(e^{−s}, ½)); here J_μ and J_s are central finite differences of
// RegressionMean and log NoiseVars, Λ is inverted independently, and the
// predictive variance J_μ(x*) Λ⁻¹ J_μ(x*)ᵀ of new inputs must match
// Predict's, full and diagonal. The linearised network's noise must be
// σ̂²(x) at the MAP, per row. A GGN that leaves out the variance head, uses
// σ̂² for e^{−s}, or weights J_s by 1 instead of ½ fails.
func TestGLMLaplaceHeteroFiniteDifferences(t *testing.T) {
	X, y, Xnew := glmData(50, 2, 6)
	m, err := model.NewMLP(X, y, model.MLPOptions{Hidden: []int{5}, Activation: model.Tanh, Hetero: true, StandardizeY: true, FanIn: true})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	mode := make([]float64, d)
	m.InitPoint(mode, rand.New(rand.NewPCG(3, 4)))
	fdJac := func(Xs *mat.Dense) (Jm, Js *mat.Dense, s2 []float64) {
		n, _ := Xs.Dims()
		Jm, Js = mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
		fp, fm, vp, vm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		s2 = make([]float64, n)
		m.NoiseVars(mode, Xs, s2)
		th := append([]float64(nil), mode...)
		for j := 0; j < d; j++ {
			const h = 1e-6
			th[j] = mode[j] + h
			m.RegressionMean(th, Xs, fp)
			m.NoiseVars(th, Xs, vp)
			th[j] = mode[j] - h
			m.RegressionMean(th, Xs, fm)
			m.NoiseVars(th, Xs, vm)
			th[j] = mode[j]
			for i := 0; i < n; i++ {
				Jm.Set(i, j, (fp[i]-fm[i])/(2*h))
				Js.Set(i, j, (math.Log(vp[i])-math.Log(vm[i]))/(2*h))
			}
		}
		return Jm, Js, s2
	}
	Jm, Js, s2 := fdJac(X)
	Jn, _, s2n := fdJac(Xnew)
	n, _ := X.Dims()
	sd := make([]float64, d)
	m.PriorSDs(sd)
	lam := mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			var v float64
			for i := 0; i < n; i++ {
				v += Jm.At(i, a)*Jm.At(i, b)/s2[i] + 0.5*Js.At(i, a)*Js.At(i, b)
			}
			if a == b {
				v += 1 / (sd[a] * sd[a])
			}
			lam.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("Λ not positive definite")
	}
	var cov mat.SymDense
	ch.InverseTo(&cov)
	k, _ := Xnew.Dims()
	for _, diag := range []bool{false, true} {
		if diag {
			glmFullMax = d - 1
		}
		g, err := NewGLMLaplace(context.Background(), m, mode)
		glmFullMax = GLMFullMax
		if err != nil {
			t.Fatal(err)
		}
		checkGLMPredict(t, g, Xnew, Jn, lam, &cov, diag)
		v := make([]float64, k)
		g.Linearized().NoiseVars(nil, Xnew, v)
		for i := range v {
			if math.Abs(v[i]-s2n[i]) > 1e-12*s2n[i] {
				t.Errorf("row %d: linearised σ̂²(x) %v, want the MAP network's %v", i, v[i], s2n[i])
			}
		}
		if v[0] == v[1] && v[1] == v[2] {
			t.Errorf("σ̂²(x) %v constant over rows: not heteroscedastic", v[:3])
		}
	}
}
