package sampler

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/internal/linalg"
)

// DenseBlock is a dense block of a preconditioner: on the coordinates Index
// the preconditioner is the symmetric positive definite matrix Cov (|Index|
// square, in the order of Index) instead of a diagonal. A network's output
// layer is the use: the likelihood is nearly quadratic in it, its curvature
// Φᵀ W Φ (Φ the last hidden layer's activations) is far from diagonal, and
// the directions that the data leave to the prior (a function's freedom
// where there are no data) are combinations of many output weights. With
// Cov the inverse of that block's curvature, every direction of the block
// has unit preconditioned curvature and relaxes at the same rate.
type DenseBlock struct {
	Index []int
	Cov   *mat.SymDense
}

// blockOp is a DenseBlock ready for the step: P and its Cholesky factor L
// (P = LLᵀ) row-major, and scratch of |Index| values; no method allocates.
type blockOp struct {
	idx     []int
	p, l    []float64 // k×k row-major; l lower triangular
	g, u, z []float64
}

// newBlockOps checks the blocks against dimension d (indices in range,
// disjoint, Cov positive definite) and factors them.
func newBlockOps(d int, blocks []DenseBlock, what string) ([]blockOp, error) {
	seen := make(map[int]bool)
	ops := make([]blockOp, len(blocks))
	for b, blk := range blocks {
		k := len(blk.Index)
		if blk.Cov == nil || blk.Cov.SymmetricDim() != k || k == 0 {
			return nil, fmt.Errorf("sampler: %s dense block %d: %d indices and a matrix of another size (or none)", what, b+1, k)
		}
		for _, j := range blk.Index {
			if j < 0 || j >= d {
				return nil, fmt.Errorf("sampler: %s dense block %d: index %d outside the %d parameters", what, b+1, j, d)
			}
			if seen[j] {
				return nil, fmt.Errorf("sampler: %s dense block %d: index %d in two blocks", what, b+1, j)
			}
			seen[j] = true
		}
		var ch mat.Cholesky
		if !ch.Factorize(blk.Cov) {
			return nil, fmt.Errorf("sampler: %s dense block %d: the matrix is not positive definite", what, b+1)
		}
		var lt mat.TriDense
		ch.LTo(&lt)
		op := blockOp{idx: append([]int(nil), blk.Index...), p: make([]float64, k*k), l: make([]float64, k*k),
			g: make([]float64, k), u: make([]float64, k), z: make([]float64, k)}
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				op.p[i*k+j] = blk.Cov.At(i, j)
				if j <= i {
					op.l[i*k+j] = lt.At(i, j)
				}
			}
		}
		ops[b] = op
	}
	return ops, nil
}

// mulP writes P·x into dst.
func (op *blockOp) mulP(dst, x []float64) {
	k := len(op.idx)
	for i := 0; i < k; i++ {
		row := op.p[i*k : (i+1)*k]
		var s float64
		for j, v := range row {
			s += v * x[j]
		}
		dst[i] = s
	}
}

// mulL writes L·x into dst.
func (op *blockOp) mulL(dst, x []float64) {
	k := len(op.idx)
	for i := 0; i < k; i++ {
		row := op.l[i*k : i*k+i+1]
		var s float64
		for j, v := range row {
			s += v * x[j]
		}
		dst[i] = s
	}
}

// quadInv returns xᵀP⁻¹x = |L⁻¹x|² (x is left unchanged; uses op.u).
func (op *blockOp) quadInv(x []float64) float64 {
	linalg.SolveLower(op.u, op.l, x, len(op.idx))
	var q float64
	for _, u := range op.u {
		q += u * u
	}
	return q
}

// diagP returns P's diagonal entry i.
func (op *blockOp) diagP(i int) float64 { return op.p[i*(len(op.idx)+1)] }
