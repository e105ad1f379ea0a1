package langevin_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/formula"
)

// blockModel is y ~ x + (1 + x | g), logistic, J groups, and optionally a
// second grouping factor (1 | h).
func blockModel(t *testing.T, n, J int, crossed bool) *formula.Model {
	rng := rand.New(rand.NewPCG(3, 4))
	y, x := make([]float64, n), make([]float64, n)
	g, h := make([]int, n), make([]int, n)
	a := make([]float64, J)
	for j := range a {
		a[j] = rng.NormFloat64()
	}
	for i := range y {
		x[i] = rng.NormFloat64()
		g[i], h[i] = rng.IntN(J), rng.IntN(4)
		if rng.Float64() < 1/(1+math.Exp(-(a[g[i]]+0.5*x[i]+0.3*float64(h[i])))) {
			y[i] = 1
		}
	}
	lv := make([]string, J)
	for j := range lv {
		lv[j] = string(rune('A'+j/26)) + string(rune('a'+j%26))
	}
	fr := &formula.Frame{}
	fr.AddNumeric("y", y)
	fr.AddNumeric("x", x)
	fr.AddFactor("g", g, lv)
	fr.AddFactor("h", h, []string{"p", "q", "r", "s"})
	text := "y ~ x + (1 + x | g)"
	if crossed {
		text += " + (1 | h)"
	}
	f, err := formula.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := formula.New(f, fr, formula.Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func blockDense(h *langevin.BlockArrow, apply func(dst, v []float64)) *mat.Dense {
	d := h.Dim()
	out := mat.NewDense(d, d, nil)
	e, c := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		clear(e)
		e[j] = 1
		apply(c, e)
		for i := 0; i < d; i++ {
			out.Set(i, j, c[i])
		}
	}
	return out
}

// TestHessianBlockArrowFD: on a one-factor hierarchical model the
// block-arrow Hessian (14 gradients) equals the dense central-difference
// Hessian (2d gradients) entry by entry; its solve inverts it, and its
// root's square is the inverse: L⁻ᵀ(L⁻ᵀ)ᵀ = H⁻¹. On a crossed model the
// smaller term is in the border, and the form is still exact.
func TestHessianBlockArrowFD(t *testing.T) {
	for _, crossed := range []bool{false, true} {
		m := blockModel(t, 400, 8, crossed)
		d := m.Dim()
		theta, err := approx.FindMAP(context.Background(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := langevin.HessianBlockArrowFD(context.Background(), m, theta, m.HessianBlocks())
		if err != nil {
			t.Fatal(err)
		}
		dense := make([]float64, d*d)
		langevin.HessianFD(m, theta, dense)
		H := blockDense(h, h.MulVec)
		terms := m.HessianBlocks()
		termOf := func(i int) int {
			for k, bt := range terms {
				if i >= bt.Offset && i < bt.Offset+bt.Levels*bt.K {
					return k
				}
			}
			return -1
		}
		var worst float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := -dense[i*d+j]
				if ti, tj := termOf(i), termOf(j); ti >= 0 && tj >= 0 && ti != tj {
					want = 0 // dropped by the block-arrow form
				}
				worst = math.Max(worst, math.Abs(H.At(i, j)-want)/(1+math.Abs(want)))
			}
		}
		if worst > 1e-4 {
			t.Errorf("crossed %v: block-arrow vs dense Hessian: worst relative difference %.3g", crossed, worst)
		}
		var inv mat.Dense
		if err := inv.Inverse(H); err != nil {
			t.Fatal(err)
		}
		P := blockDense(h, h.MulPrecond)
		R := blockDense(h, h.MulPrecondRoot)
		if RT := blockDense(h, h.MulPrecondRootT); !mat.EqualApprox(RT, R.T(), 1e-12) {
			t.Errorf("crossed %v: MulPrecondRootT is not the transpose of MulPrecondRoot", crossed)
		}
		var RRt mat.Dense
		RRt.Mul(R, R.T())
		var e1, e2 float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				s := 1e-9 * (1 + math.Abs(inv.At(i, j)))
				e1 = math.Max(e1, math.Abs(P.At(i, j)-inv.At(i, j))/s)
				e2 = math.Max(e2, math.Abs(RRt.At(i, j)-inv.At(i, j))/s)
			}
		}
		if e1 > 1e3 || e2 > 1e3 {
			t.Errorf("crossed %v: H⁻¹ off by %.3g, RRᵀ off by %.3g (units of 1e-9 relative)", crossed, e1, e2)
		}
		diag := make([]float64, d)
		h.PrecondDiag(diag)
		for i := range diag {
			if math.Abs(diag[i]-inv.At(i, i)) > 1e-8*(1+inv.At(i, i)) {
				t.Fatalf("diag(H⁻¹)[%d] = %g, want %g", i, diag[i], inv.At(i, i))
			}
		}
	}
}
