package model

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"math"
	"sync"
)

// Rows is a table of n observations of p features and a response that a
// model reads a block of rows at a time instead of holding in memory; a
// *data.Store (a memory-mapped file) implements it.
type Rows interface {
	Len() int // n
	Dim() int // p
	// ReadRows writes rows lo, …, lo+len(y)−1: their features into x
	// (row-major, len(y)·p values) and their responses into y. It must be
	// safe for concurrent use and allocate nothing.
	ReadRows(lo int, x, y []float64)
}

// rowsBlock is the number of rows a full-data pass reads at a time.
const rowsBlock = 4096

// rowsScratch is the per-call scratch space of a model on Rows.
type rowsScratch struct {
	x, y        []float64
	z, c, s, xt []float64 // logLikRowsAll's sub-block of logBlock rows
}

// NewLogisticRows returns the logistic regression of the responses of src on
// its features, the model of NewLogistic, reading the rows from src as it
// needs them and never copying the table: a minibatch reads its rows, a
// full-data pass (LogLik with a nil batch, Hessian) streams through src in
// blocks of 4096 rows. So data larger than memory can be sampled with
// minibatches, and the model holds O(p) memory besides what src maps.
//
// The labels are checked in one pass: a label other than 0/1 or −1/+1 gives a
// *LabelError; a non-finite feature gives an error naming its row and column.
// Predict and the other methods on a test matrix work as for NewLogistic.
func NewLogisticRows(src Rows, opt LogisticOptions) (*Logistic, error) {
	n, p := src.Len(), src.Dim()
	if n == 0 || p == 0 {
		return nil, fmt.Errorf("model: logistic regression: %d rows of %d features: expected at least one of each", n, p)
	}
	m := &Logistic{design: design{n: n, p: p, intercept: !opt.NoIntercept}, rows: src, scale: opt.PriorScale}
	if m.scale == 0 {
		m.scale = 1
	}
	if !(m.scale > 0) || math.IsInf(m.scale, 1) {
		return nil, fmt.Errorf("model: logistic regression: PriorScale = %v: expected a positive finite number (0 for the default)", opt.PriorScale)
	}
	m.pool = &sync.Pool{New: func() any {
		return &rowsScratch{x: make([]float64, rowsBlock*p), y: make([]float64, rowsBlock),
			z: make([]float64, logBlock), c: make([]float64, logBlock), s: make([]float64, logBlock), xt: make([]float64, logBlock*p)}
	}}
	// Check the labels and features block by block, as CheckLabels does.
	sc := m.pool.Get().(*rowsScratch)
	defer m.pool.Put(sc)
	zero, minus := 0, 0
	for lo := 0; lo < n; lo += rowsBlock {
		k := min(rowsBlock, n-lo)
		x, y := sc.x[:k*p], sc.y[:k]
		src.ReadRows(lo, x, y)
		for i, v := range y {
			row := lo + i + 1
			switch {
			case v == 1:
			case v == 0 && minus == 0:
				zero = cmp0(zero, row)
			case v == -1 && zero == 0:
				minus = cmp0(minus, row)
			case v == 0:
				return nil, &LabelError{Row: row, Value: v, Other: minus}
			case v == -1:
				return nil, &LabelError{Row: row, Value: v, Other: zero}
			default:
				return nil, &LabelError{Row: row, Value: v}
			}
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("model: logistic regression: row %d, column %d: feature %v: expected a finite number", lo+i/p+1, i%p+1, v)
			}
		}
	}
	d := float64(m.coef())
	m.priorC = -d/2*log2Pi - d*math.Log(m.scale)
	return m, nil
}

// Streamed reports whether m reads its rows from Rows as it needs them
// (NewLogisticRows) rather than holding them.
func (m *Logistic) Streamed() bool { return m.rows != nil }

// Subset returns the logistic regression on the rows idx of m's data (in
// that order) with m's prior, held in memory: for a model on Rows, a batch
// used again and again (the fixed batch of a kernel Stein discrepancy's
// scores) is then read from the file once.
func (m *Logistic) Subset(idx []int) (langevin.Model, error) {
	p := m.p
	x := make([]float64, len(idx)*p)
	y := make([]float64, len(idx))
	for k, i := range idx {
		if m.rows != nil {
			m.rows.ReadRows(i, x[k*p:(k+1)*p], y[k:k+1])
		} else {
			copy(x[k*p:(k+1)*p], m.x[i*p:(i+1)*p])
			y[k] = m.s[i] // ±1: a label NewLogistic reads
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("model: logistic Subset: no rows")
	}
	return NewLogistic(mat.NewDense(len(idx), p, x), y, LogisticOptions{NoIntercept: !m.intercept, PriorScale: m.scale})
}

// cmp0 returns cur if set (non-zero), else row.
func cmp0(cur, row int) int {
	if cur != 0 {
		return cur
	}
	return row
}

// logLikRows is LogLik on Rows: batch rows one at a time, or all rows in
// blocks with the arithmetic of logLikAll (the same sums in the same order),
// so that a full pass gives the in-memory model's value and gradient bit for
// bit.
func (m *Logistic) logLikRows(theta []float64, batch []int, grad []float64) float64 {
	sc := m.pool.Get().(*rowsScratch)
	defer m.pool.Put(sc)
	p := m.p
	if batch == nil {
		return m.logLikRowsAll(sc, theta, grad)
	}
	var hinge, logs float64
	prod := 1.0
	x, y := sc.x[:p], sc.y[:1]
	for k, i := range batch {
		m.rows.ReadRows(i, x, y)
		h, e := m.termAt(theta, grad, x, sign(y[0]))
		hinge += h
		prod *= 1 + e // ≤ 2 per factor: 1000 factors cannot overflow
		if k%1000 == 999 {
			logs += math.Log(prod)
			prod = 1
		}
	}
	return -(hinge + logs + math.Log(prod))
}

// LogLikPair returns LogLik(a, batch, ga) and LogLik(b, batch, gb), the
// same values bit for bit (langevin.PairLogLik); on Rows each row of the
// batch is read once for both points.
func (m *Logistic) LogLikPair(a, b []float64, batch []int, ga, gb []float64) (la, lb float64) {
	if m.rows == nil || batch == nil {
		return m.LogLik(a, batch, ga), m.LogLik(b, batch, gb)
	}
	sc := m.pool.Get().(*rowsScratch)
	defer m.pool.Put(sc)
	var hingeA, logsA, hingeB, logsB float64
	prodA, prodB := 1.0, 1.0
	x, y := sc.x[:m.p], sc.y[:1]
	for k, i := range batch {
		m.rows.ReadRows(i, x, y)
		s := sign(y[0])
		h, e := m.termAt(a, ga, x, s)
		hingeA += h
		prodA *= 1 + e
		h, e = m.termAt(b, gb, x, s)
		hingeB += h
		prodB *= 1 + e
		if k%1000 == 999 {
			logsA += math.Log(prodA)
			logsB += math.Log(prodB)
			prodA, prodB = 1, 1
		}
	}
	return -(hingeA + logsA + math.Log(prodA)), -(hingeB + logsB + math.Log(prodB))
}

// logLikRowsAll is logLikAll on Rows: blocks of rowsBlock rows are read and
// handled in sub-blocks of logBlock rows (rowsBlock is a multiple of
// logBlock), each transposed so that the gradient's dot products are those
// of logLikAll.
func (m *Logistic) logLikRowsAll(sc *rowsScratch, theta, grad []float64) float64 {
	n, p := m.n, m.p
	b0, beta, g := m.split(theta, grad)
	var hinge, logs, g0 float64
	for lo := 0; lo < n; lo += rowsBlock {
		r := min(rowsBlock, n-lo)
		x, y := sc.x[:r*p], sc.y[:r]
		m.rows.ReadRows(lo, x, y)
		for slo := 0; slo < r; slo += logBlock {
			shi := min(slo+logBlock, r)
			nb := shi - slo
			z, c := sc.z[:nb], sc.c[:nb]
			for i := range z {
				row := x[(slo+i)*p : (slo+i+1)*p : (slo+i+1)*p]
				zi := b0
				for j, bj := range beta {
					zi += bj * row[j]
				}
				z[i] = zi
			}
			sg := sc.s[:nb]
			for k := range sg {
				sg[k] = sign(y[slo+k])
			}
			logs += blockTerms(z, sg, c, &hinge)
			if g != nil {
				for _, ck := range c {
					g0 += ck
				}
				xt := sc.xt[:p*nb]
				for i := 0; i < nb; i++ {
					row := x[(slo+i)*p : (slo+i+1)*p]
					for j, v := range row {
						xt[j*nb+i] = v
					}
				}
				for j := range g {
					g[j] += dot(c, xt[j*nb:(j+1)*nb])
				}
			}
		}
	}
	if grad != nil && m.intercept {
		grad[0] += g0
	}
	return -(hinge + logs)
}

// termAt is term for the feature row x with label sign s.
func (m *Logistic) termAt(theta, grad, x []float64, s float64) (hinge, e float64) {
	z := m.linpred(theta, x)
	t := s * z
	e = math.Exp(-math.Abs(t))
	if grad != nil {
		// c = sᵢ σ(−t), σ(−t) = e/(1+e) for t ≥ 0 and 1/(1+e) for t < 0.
		c := s / (1 + e)
		if t >= 0 {
			c *= e
		}
		g := grad
		if m.intercept {
			g[0] += c
			g = g[1:]
		}
		g = g[:len(x)]
		for j, v := range x {
			g[j] += c * v
		}
	}
	return max(-t, 0), e
}

// hessianRows is Hessian on Rows, streaming the rows in blocks.
func (m *Logistic) hessianRows(theta, dst []float64) {
	d, p := m.coef(), m.p
	clear(dst[:d*d])
	sc := m.pool.Get().(*rowsScratch)
	defer m.pool.Put(sc)
	full := make([]float64, d)
	for lo := 0; lo < m.n; lo += rowsBlock {
		r := min(rowsBlock, m.n-lo)
		x, y := sc.x[:r*p], sc.y[:r]
		m.rows.ReadRows(lo, x, y)
		for i := range y {
			xi := x[i*p : (i+1)*p]
			if m.intercept {
				full[0] = 1
				copy(full[1:], xi)
			} else {
				copy(full, xi)
			}
			q := sigmoid(m.linpred(theta, xi))
			addOuter(dst, d, -q*(1-q), full)
		}
	}
	c := 1 / (m.scale * m.scale)
	for j := 0; j < d; j++ {
		dst[j*d+j] -= c
	}
}
