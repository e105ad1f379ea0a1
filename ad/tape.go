package ad

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin/transform"
)

// Vec is a vector on a Tape: a variable (a slice of the tape's values, with
// adjoints) or a constant (data, no adjoint). A Vec of length 1 is a scalar;
// the element-wise operations and densities broadcast it against vectors.
// A Vec is valid until its tape is reset (the end of the LogPrior or LogLik
// call that made it).
type Vec struct {
	off, n int32
	data   []float64 // non-nil for a constant that is not on the tape
}

// Len returns the length of v.
func (v Vec) Len() int { return int(v.n) }

// Slice returns elements [lo, hi) of v, sharing its storage and adjoints.
func (v Vec) Slice(lo, hi int) Vec {
	if lo < 0 || hi > int(v.n) || lo > hi {
		panic(fmt.Sprintf("ad: Slice(%d, %d) of a vector of length %d", lo, hi, v.n))
	}
	if v.data != nil {
		return Vec{off: -1, n: int32(hi - lo), data: v.data[lo:hi]}
	}
	return Vec{off: v.off + int32(lo), n: int32(hi - lo)}
}

// At returns element i of v as a scalar.
func (v Vec) At(i int) Vec { return v.Slice(i, i+1) }

// isConst reports whether v carries no adjoint.
func (v Vec) isConst() bool { return v.data != nil }

// Tape records the operations of one evaluation of a log density and runs
// them backwards for the gradient (reverse-mode automatic differentiation).
// Its storage is kept between evaluations, so after the first (warm-up) call
// an evaluation allocates nothing. A Tape is used by one goroutine at a time;
// Model takes them from a sync.Pool, one per concurrent call.
type Tape struct {
	val, adj []float64
	ints     []int
	nodes    []node
	theta    Vec
	layout   *transform.Layout
	params   []Vec
	have     []bool
	jac      float64     // Σ log|J| of the Params constrained so far
	jacAdj   float64     // adjoint of jac: 1 in LogPrior, 0 in LogLik
	grad     bool        // whether partials are wanted
	gen      []float64   // destination of Generate, nil unless deriving
	genHave  []bool      // which generated blocks were written
	gathered []*Gathered // Gather's arrays, one per Packed
	regather bool        // in LogLikPair's second evaluation
	pair     uint64      // LogLikPair's count, stamping what its first evaluation gathered
	scratch  any         // a front end's state, kept with the tape (Scratch)
}

// reset empties the tape and puts θ on it.
func (t *Tape) reset(theta []float64, grad bool) {
	t.val = t.val[:0]
	t.ints = t.ints[:0]
	t.nodes = t.nodes[:0]
	t.jac = 0
	t.grad = grad
	off := t.alloc(len(theta))
	copy(t.val[off:], theta)
	t.theta = Vec{off: off, n: int32(len(theta))}
	if t.layout != nil {
		nb := len(t.layout.Blocks())
		if cap(t.params) < nb {
			t.params = make([]Vec, nb)
			t.have = make([]bool, nb)
		}
		t.params, t.have = t.params[:nb], t.have[:nb]
		clear(t.have)
	}
}

// alloc appends n zeros to the values and returns their offset.
func (t *Tape) alloc(n int) int32 {
	off := len(t.val)
	if off+n > cap(t.val) {
		nv := make([]float64, off, 2*(off+n))
		copy(nv, t.val)
		t.val = nv
	}
	t.val = t.val[:off+n]
	clear(t.val[off:])
	return int32(off)
}

// vals returns the values of v.
func (t *Tape) vals(v Vec) []float64 {
	if v.data != nil {
		return v.data
	}
	return t.val[v.off : v.off+v.n]
}

// Values returns the current values of v (read-only; valid until the next
// operation on the tape).
func (t *Tape) Values(v Vec) []float64 { return t.vals(v) }

// Theta returns the unconstrained parameter vector θ.
func (t *Tape) Theta() Vec { return t.theta }

// Param returns the constrained values of the layout block b, computed once
// per evaluation. Its log Jacobian counts once in LogPrior and never in
// LogLik, whatever function calls Param.
func (t *Tape) Param(b transform.Block) Vec {
	if t.layout == nil {
		panic("ad: Param on a tape without a layout")
	}
	if t.have[b.Index] {
		return t.params[b.Index]
	}
	x := t.theta.Slice(b.Off, b.Off+b.T.Size())
	if _, ok := b.T.(transform.Identity); ok {
		t.params[b.Index], t.have[b.Index] = x, true
		return x
	}
	y := t.newVec(b.T.Len())
	t.jac += b.T.Forward(t.vals(y), t.vals(x))
	t.push(node{op: opConstrain, out: y, a: x, tr: b.T})
	t.params[b.Index], t.have[b.Index] = y, true
	return y
}

// Const puts the constant c on the tape as a scalar.
func (t *Tape) Const(c float64) Vec {
	v := t.newVec(1)
	t.val[v.off] = c
	return v
}

// Data wraps a data slice as a constant vector without copying it. The
// slice must not change while the tape uses it.
func (t *Tape) Data(x []float64) Vec {
	if len(x) == 0 {
		panic("ad: Data of an empty slice")
	}
	return Vec{off: -1, n: int32(len(x)), data: x}
}

// Rows returns the data rows x[batch[k]] as a constant (x itself for a nil
// batch).
func (t *Tape) Rows(x []float64, batch []int) Vec {
	if batch == nil {
		return t.Data(x)
	}
	v := t.newVec(len(batch))
	out := t.vals(v)
	for k, i := range batch {
		out[k] = x[i]
	}
	return Vec{off: -1, n: v.n, data: out}
}

// IntRows returns k[batch[j]] for each j (k itself for a nil batch), in
// storage owned by the tape.
func (t *Tape) IntRows(k []int, batch []int) []int {
	if batch == nil {
		return k
	}
	off := len(t.ints)
	if off+len(batch) > cap(t.ints) {
		ni := make([]int, off, 2*(off+len(batch)))
		copy(ni, t.ints)
		t.ints = ni
	}
	t.ints = t.ints[:off+len(batch)]
	out := t.ints[off:]
	for j, i := range batch {
		out[j] = k[i]
	}
	return out
}

func (t *Tape) newVec(n int) Vec { return Vec{off: t.alloc(n), n: int32(n)} }

func (t *Tape) push(nd node) { t.nodes = append(t.nodes, nd) }

// backward runs the tape backwards from the scalar out and adds the
// gradient with respect to θ into grad.
func (t *Tape) backward(out Vec, grad []float64) {
	if cap(t.adj) < len(t.val) {
		t.adj = make([]float64, len(t.val), cap(t.val))
	}
	t.adj = t.adj[:len(t.val)]
	clear(t.adj)
	if !out.isConst() {
		t.adj[out.off] = 1
	}
	for k := len(t.nodes) - 1; k >= 0; k-- {
		t.nodes[k].backward(t)
	}
	g := t.adj[t.theta.off : t.theta.off+t.theta.n]
	for i, v := range g {
		grad[i] += v
	}
}

// scalar returns the value of a length-1 Vec, panicking otherwise.
func (t *Tape) scalar(v Vec, who string) float64 {
	if v.n != 1 {
		panic(fmt.Sprintf("ad: %s: result of length %d, want a scalar", who, v.n))
	}
	return t.vals(v)[0]
}

var nan = math.NaN()
