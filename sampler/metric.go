package sampler

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// metric is the positive definite matrix M of a sampler — NUTS's inverse
// metric (the covariance of the position increments, an estimate of the
// posterior covariance), MALA's and SGLD's preconditioner, RWM's proposal
// shape — either diagonal, or dense with its Cholesky factor L, M = LLᵀ, or
// (SGLD's PrecondOp) an operator with its root R, M = RRᵀ. Its methods do
// not allocate; an operator metric has only mul and mulL.
type metric struct {
	d     int
	dense bool
	diag  []float64       // diagonal of M (diagonal metric; SGLD keeps it for every form)
	sqrt  []float64       // √diag
	m     []float64       // M, d×d row-major (dense metric)
	l     []float64       // L, lower triangular, d×d row-major (dense metric)
	op    PrecondOperator // M as an operator (not nil: neither diagonal nor dense)
}

// checkDiag returns an error unless v, a diagonal M named what in errors, has
// d entries, each positive and finite. A nil v is the identity and passes.
// It is the one check of a diagonal preconditioner or mass matrix.
func checkDiag(v []float64, d int, what string) error {
	if v == nil {
		return nil
	}
	if len(v) != d {
		return fmt.Errorf("sampler: %s has %d entries, model has %d parameters", what, len(v), d)
	}
	for j, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("sampler: %s entry %d is %v: expected a positive number", what, j+1, x)
		}
	}
	return nil
}

// newMetric returns the identity, or M = diag(v), or the dense M = cov (cov
// wins when both are given); what names the setting in errors.
func newMetric(d int, v []float64, cov *mat.SymDense, what string) (*metric, error) {
	mt := &metric{d: d, diag: make([]float64, d), sqrt: make([]float64, d)}
	for j := range mt.diag {
		mt.diag[j] = 1
	}
	if cov != nil {
		if v != nil {
			return nil, fmt.Errorf("sampler: %s: give the diagonal or the dense matrix, not both", what)
		}
		if cov.SymmetricDim() != d {
			return nil, fmt.Errorf("sampler: dense %s is %d×%d, model has %d parameters", what, cov.SymmetricDim(), cov.SymmetricDim(), d)
		}
		mt.dense = true
		mt.m = make([]float64, d*d)
		mt.l = make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				x := cov.At(i, j)
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("sampler: dense %s entry (%d, %d) is %v: expected a finite number", what, i+1, j+1, x)
				}
				mt.m[i*d+j] = x
			}
		}
		if !mt.sync() {
			return nil, fmt.Errorf("sampler: dense %s is not positive definite", what)
		}
		return mt, nil
	}
	if err := checkDiag(v, d, what); err != nil {
		return nil, err
	}
	if v != nil {
		copy(mt.diag, v)
	}
	mt.sync()
	return mt, nil
}

// makeDense switches an identity or diagonal metric to a dense one with the
// same matrix (for dense adaptation).
func (mt *metric) makeDense() {
	if mt.dense {
		return
	}
	d := mt.d
	mt.dense = true
	mt.m = make([]float64, d*d)
	mt.l = make([]float64, d*d)
	for j := 0; j < d; j++ {
		mt.m[j*d+j] = mt.diag[j]
	}
	mt.sync()
}

// sync recomputes √diag or the Cholesky factor, and reports success (a
// dense M that is not positive definite leaves L unusable).
func (mt *metric) sync() bool {
	if !mt.dense {
		for j, v := range mt.diag {
			mt.sqrt[j] = math.Sqrt(v)
		}
		return true
	}
	clear(mt.l)
	return linalg.CholLower(mt.l, mt.m, mt.d)
}

// mul writes M v into dst (dst and v must not overlap).
func (mt *metric) mul(dst, v []float64) {
	if mt.op != nil {
		mt.op.MulPrecond(dst, v)
		return
	}
	if !mt.dense {
		for j, x := range v {
			dst[j] = mt.diag[j] * x
		}
		return
	}
	d := mt.d
	for i := 0; i < d; i++ {
		row := mt.m[i*d : i*d+d]
		var s float64
		for j, x := range row {
			s += x * v[j]
		}
		dst[i] = s
	}
}

// mulL writes L z (R z for an operator) into dst (dst and z must not
// overlap).
func (mt *metric) mulL(dst, z []float64) {
	if mt.op != nil {
		mt.op.MulPrecondRoot(dst, z)
		return
	}
	if !mt.dense {
		for j, x := range z {
			dst[j] = mt.sqrt[j] * x
		}
		return
	}
	d := mt.d
	for i := 0; i < d; i++ {
		row := mt.l[i*d : i*d+i+1]
		var s float64
		for j, x := range row {
			s += x * z[j]
		}
		dst[i] = s
	}
}

// solveL writes L⁻¹ r into dst (forward substitution; dst may be r).
func (mt *metric) solveL(dst, r []float64) {
	if !mt.dense {
		for j, x := range r {
			dst[j] = x / mt.sqrt[j]
		}
		return
	}
	linalg.SolveLower(dst, mt.l, r, mt.d)
}

// solveLT writes L⁻ᵀ z into dst (back substitution; dst may be z).
func (mt *metric) solveLT(dst, z []float64) {
	if !mt.dense {
		for j, x := range z {
			dst[j] = x / mt.sqrt[j]
		}
		return
	}
	linalg.SolveLowerT(dst, mt.l, z, mt.d)
}

// quad returns vᵀ M v.
func (mt *metric) quad(v []float64) float64 {
	if !mt.dense {
		var s float64
		for j, x := range v {
			s += mt.diag[j] * x * x
		}
		return s
	}
	d := mt.d
	var s float64
	for i := 0; i < d; i++ {
		row := mt.m[i*d : i*d+d]
		var t float64
		for j, x := range row {
			t += x * v[j]
		}
		s += v[i] * t
	}
	return s
}
