package model

import (
	"fmt"
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
	x, y []float64
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
		return &rowsScratch{x: make([]float64, rowsBlock*p), y: make([]float64, rowsBlock)}
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

// cmp0 returns cur if set (non-zero), else row.
func cmp0(cur, row int) int {
	if cur != 0 {
		return cur
	}
	return row
}

// logLikRows is LogLik on Rows: batch rows one at a time, or all rows in
// blocks.
func (m *Logistic) logLikRows(theta []float64, batch []int, grad []float64) float64 {
	sc := m.pool.Get().(*rowsScratch)
	defer m.pool.Put(sc)
	p := m.p
	var hinge, logs float64
	prod := 1.0
	k := 0
	add := func(x []float64, y float64) {
		h, e := m.termAt(theta, grad, x, sign(y))
		hinge += h
		prod *= 1 + e // ≤ 2 per factor: 1000 factors cannot overflow
		if k++; k%1000 == 0 {
			logs += math.Log(prod)
			prod = 1
		}
	}
	if batch != nil {
		x, y := sc.x[:p], sc.y[:1]
		for _, i := range batch {
			m.rows.ReadRows(i, x, y)
			add(x, y[0])
		}
	} else {
		for lo := 0; lo < m.n; lo += rowsBlock {
			r := min(rowsBlock, m.n-lo)
			x, y := sc.x[:r*p], sc.y[:r]
			m.rows.ReadRows(lo, x, y)
			for i, yi := range y {
				add(x[i*p:(i+1)*p], yi)
			}
		}
	}
	return -(hinge + logs + math.Log(prod))
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
