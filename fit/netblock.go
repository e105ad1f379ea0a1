package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// outputLayered is a network that names its output layer's parameters
// (model.MLP): the plan's preconditioner treats them as one dense block.
type outputLayered interface {
	OutputLayer() []int
}

// netBlockMax is the largest output layer the plan preconditions with a
// dense block: its step costs k² multiply-adds (k = 51 for a 50-unit
// regression network, against the gradient's B·d ≈ 32·750 at batch 32).
const netBlockMax = 256

// netBlockRows is the most rows on which the output block's curvature is
// measured (the likelihood scaled by N/rows): it is an average over rows,
// within a few per cent at 2,000.
const netBlockRows = 2000

// outputBlockCov returns the dense preconditioner of the output layer's
// parameters idx at theta: the inverse of their block of the negative
// log-posterior Hessian, H_B = −∂²log p(θ|D)/∂θ_B², each column a central
// difference of two gradients (on rows, scaled by N/|rows|; nil: all).
// Eigenvalues of H_B below the smallest prior precision 1/s² of the block
// are raised to it (the prior's curvature is a lower bound of the exact
// block; the floor only guards differences and non-convex likelihoods), so
// that the result is positive definite. Along a direction the data leave to
// the prior, H_B's eigenvalue is the prior's precision and P's the prior
// variance: the chain moves there at the prior's scale.
func outputBlockCov(ctx context.Context, m langevin.Model, theta []float64, idx []int, sd []float64, rows []int) (*mat.SymDense, error) {
	d, k := m.Dim(), len(idx)
	var tn float64
	for _, v := range theta {
		tn += v * v
	}
	eps := 1e-5 * (1 + math.Sqrt(tn/float64(d)))
	th := append([]float64(nil), theta...)
	gp, gm := make([]float64, d), make([]float64, d)
	H := mat.NewDense(k, k, nil)
	floor := math.Inf(1)
	for a, j := range idx {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		floor = min(floor, 1/(sd[j]*sd[j]))
		th[j] = theta[j] + eps
		clear(gp)
		logPostRows(m, th, gp, rows)
		th[j] = theta[j] - eps
		clear(gm)
		logPostRows(m, th, gm, rows)
		th[j] = theta[j]
		for b, i := range idx {
			H.Set(a, b, -(gp[i]-gm[i])/(2*eps))
		}
	}
	S := mat.NewSymDense(k, nil)
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			v := (H.At(a, b) + H.At(b, a)) / 2
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("sampler: network plan: the output layer's curvature at a mode is not finite")
			}
			S.SetSym(a, b, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		return nil, errors.New("sampler: network plan: the output layer's curvature: eigendecomposition failed")
	}
	vals := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	P := mat.NewSymDense(k, nil)
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			var s float64
			for e, lam := range vals {
				s += V.At(a, e) * V.At(b, e) / max(lam, floor)
			}
			P.SetSym(a, b, s)
		}
	}
	return P, nil
}

// halfPrecond applies the square root M^½ of a preconditioner that is
// diagonal (diag) but for dense blocks (P = LLᵀ): M^½ = L on a block,
// √diag elsewhere; and its transpose.
type halfPrecond struct {
	diag   []float64
	blocks []sampler.DenseBlock
	ls     []*mat.TriDense
}

func newHalfPrecond(diag []float64, blocks []sampler.DenseBlock) (*halfPrecond, error) {
	h := &halfPrecond{diag: diag, blocks: blocks}
	for _, b := range blocks {
		var ch mat.Cholesky
		if !ch.Factorize(b.Cov) {
			return nil, errors.New("sampler: network plan: the output layer's preconditioner is not positive definite")
		}
		l := new(mat.TriDense)
		ch.LTo(l)
		h.ls = append(h.ls, l)
	}
	return h, nil
}

// mul writes M^½u (trans: (M^½)ᵀu) into dst.
func (h *halfPrecond) mul(dst, u []float64, trans bool) {
	for j, v := range u {
		dst[j] = math.Sqrt(h.diag[j]) * v
	}
	for b, blk := range h.blocks {
		k := len(blk.Index)
		x := mat.NewVecDense(k, nil)
		for a, j := range blk.Index {
			x.SetVec(a, u[j])
		}
		var y mat.VecDense
		if trans {
			y.MulVec(h.ls[b].T(), x)
		} else {
			y.MulVec(h.ls[b], x)
		}
		for a, j := range blk.Index {
			dst[j] = y.AtVec(a)
		}
	}
}

// lambdaMaxHalf is lambdaMaxHVP with the preconditioner h: the largest
// |eigenvalue| of (M^½)ᵀ H M^½, which has MH's spectrum, by 30 steps of
// power iteration.
func lambdaMaxHalf(ctx context.Context, m langevin.Model, theta []float64, h *halfPrecond, rows []int, rng *rand.Rand) (float64, error) {
	d := m.Dim()
	u := make([]float64, d)
	for j := range u {
		u[j] = rng.NormFloat64()
	}
	normalize(u)
	v := make([]float64, d)
	tp, tm := make([]float64, d), make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	var tn float64
	for _, x := range theta {
		tn += x * x
	}
	var lam float64
	for it := 0; it < 30; it++ {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		h.mul(v, u, false)
		var vn float64
		for _, x := range v {
			vn += x * x
		}
		eps := 1e-4 * (1 + math.Sqrt(tn)) / math.Sqrt(vn)
		for j := range v {
			tp[j], tm[j] = theta[j]+eps*v[j], theta[j]-eps*v[j]
		}
		clear(gp)
		clear(gm)
		logPostRows(m, tp, gp, rows)
		logPostRows(m, tm, gm, rows)
		for j := range v {
			v[j] = -(gp[j] - gm[j]) / (2 * eps)
		}
		h.mul(u, v, true)
		lam = normalize(u)
		if math.IsNaN(lam) || math.IsInf(lam, 0) {
			return 0, errors.New("sampler: network plan: the curvature at a mode is not finite")
		}
	}
	return lam, nil
}

// blockNoiseTrace returns tr(P V P) for a dense block (idx, P): V the
// covariance over the rows of the per-observation gradients ∇_B log p(zᵢ|θ)
// at theta (the gradient noise of a minibatch of B is N²/B (1 − B/N) V).
func blockNoiseTrace(m langevin.Model, theta []float64, blk sampler.DenseBlock, rows []int) float64 {
	d, k := m.Dim(), len(blk.Index)
	G := mat.NewDense(len(rows), k, nil)
	mean := make([]float64, k)
	langevin.RowGrads(m, theta, rows, langevin.RowTerms{}, make([]float64, d), nil, func(r int, gi []float64) error {
		for a, j := range blk.Index {
			G.Set(r, a, gi[j])
			mean[a] += gi[j] / float64(len(rows))
		}
		return nil
	})
	for r := range rows {
		for a := range mean {
			G.Set(r, a, G.At(r, a)-mean[a])
		}
	}
	var PG mat.Dense
	PG.Mul(G, blk.Cov) // rows of (P(gᵢ − ḡ))ᵀ
	var s float64
	for r := range rows {
		for a := 0; a < k; a++ {
			v := PG.At(r, a)
			s += v * v
		}
	}
	return s / float64(len(rows))
}
