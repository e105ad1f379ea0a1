package sampler_test

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

// denseOp is a PrecondOperator holding M and its lower Cholesky factor.
type denseOp struct {
	m, l *mat.Dense
	d    int
}

func newDenseOp(m *mat.SymDense) denseOp {
	var ch mat.Cholesky
	ch.Factorize(m)
	var l mat.TriDense
	ch.LTo(&l)
	d := m.SymmetricDim()
	return denseOp{mat.DenseCopyOf(m), mat.DenseCopyOf(&l), d}
}

func (o denseOp) Dim() int { return o.d }
func (o denseOp) mul(a *mat.Dense, dst, v []float64) {
	for i := 0; i < o.d; i++ {
		var s float64
		for j := 0; j < o.d; j++ {
			s += a.At(i, j) * v[j]
		}
		dst[i] = s
	}
}
func (o denseOp) MulPrecond(dst, g []float64) {
	t := append([]float64(nil), g...)
	o.mul(o.m, dst, t)
}
func (o denseOp) MulPrecondRoot(dst, xi []float64) {
	t := append([]float64(nil), xi...)
	o.mul(o.l, dst, t)
}
func (o denseOp) PrecondDiag(dst []float64) {
	for i := range dst {
		dst[i] = o.m.At(i, i)
	}
}

// TestSGLDPrecondOp: SGLD with M given as an operator (PrecondOp) makes
// the same moves as with the same M dense (PrecondFull, validated by the
// correlated-Gaussian tests): the same draws to rounding, on a 4-D
// logistic posterior. A root R with RRᵀ ≠ M (here √2·L) is caught.
func TestSGLDPrecondOp(t *testing.T) {
	X, y := testmodel.LogisticData(200, 3, 5)
	m, err := model.NewLogistic(X, y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	M := mat.NewSymDense(4, []float64{1, 0.2, 0, 0, 0.2, 1, 0, 0, 0, 0, 2, 0.1, 0, 0, 0.1, 1})
	M.ScaleSym(0.05, M)
	step := schedule.Constant(0.05)
	mb := sampler.Minibatch{Size: 20}
	o := langevin.Options{Chains: 2, Iters: 300, BurnIn: 100, Seed: 3}
	a, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: step, Batch: mb, PrecondFull: M}, o)
	if err != nil {
		t.Fatal(err)
	}
	op := newDenseOp(M)
	b, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: step, Batch: mb, PrecondOp: op}, o)
	if err != nil {
		t.Fatal(err)
	}
	worst := func(b *langevin.Trace) float64 {
		var w float64
		for c := range a.Draws {
			for i := range a.Draws[c] {
				for j, v := range a.Draws[c][i] {
					w = math.Max(w, math.Abs(v-b.Draws[c][i][j]))
				}
			}
		}
		return w
	}
	if w := worst(b); w > 1e-9 {
		t.Errorf("PrecondOp vs PrecondFull: draws differ by up to %g", w)
	}
	op.l.Scale(math.Sqrt2, op.l)
	c, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: step, Batch: mb, PrecondOp: op}, o)
	if err != nil {
		t.Fatal(err)
	}
	if w := worst(c); w < 1e-3 {
		t.Errorf("a √2 root gives the same draws (difference %g): the test cannot fail", w)
	}
}
