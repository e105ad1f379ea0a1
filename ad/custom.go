package ad

import (
	"fmt"

	"github.com/langevin-go/langevin/transform"
)

// Map returns the element-wise f(aᵢ, bᵢ) (a scalar broadcasts), where f
// returns the value and its partial derivatives with respect to both
// arguments. It is the extension point for functions the tape has no node
// for (a power, the log gamma function, a front end's built-ins): the
// partials are stored in the forward pass, as the densities' are, and the
// backward pass is one multiply-add per element and argument. f must be a
// pure function; for a function of one argument pass a constant b and
// ignore it.
func (t *Tape) Map(f func(x, y float64) (z, dx, dy float64), a, b Vec) Vec {
	n := bsize("Map", a, b)
	var p [4]int32
	p[0], p[1], p[2], p[3] = -1, -1, -1, -1
	if t.grad {
		if !a.isConst() {
			p[0] = t.alloc(n)
		}
		if !b.isConst() {
			p[1] = t.alloc(n)
		}
	}
	out := t.newVec(n)
	y, x, z := t.vals(out), t.vals(a), t.vals(b)
	sa, sb := st(a), st(b)
	for i := range y {
		v, dx, dy := f(x[i*sa], z[i*sb])
		y[i] = v
		if p[0] >= 0 {
			t.val[int(p[0])+i] = dx
		}
		if p[1] >= 0 {
			t.val[int(p[1])+i] = dy
		}
	}
	t.push(node{op: opMap, out: out, a: a, b: b, part: p})
	return out
}

func (nd *node) mapBack(t *Tape, g []float64) {
	for k, v := range [2]Vec{nd.a, nd.b} {
		ga := t.adjs(v)
		if ga == nil || nd.part[k] < 0 {
			continue
		}
		s := st(v)
		d := t.val[nd.part[k] : int(nd.part[k])+len(g)]
		for i, gi := range g {
			ga[i*s] += gi * d[i]
		}
	}
}

// Stack returns the vector (e₁, …, eₙ) of the scalars es, each a variable
// or a constant of length 1: the elements of a container built one
// assignment at a time, as one vector for a vectorised operation.
func (t *Tape) Stack(es []Vec) Vec {
	if len(es) == 0 {
		panic("ad: Stack of no elements")
	}
	out := t.newVec(len(es))
	y := t.vals(out)
	off := len(t.ints)
	vars := false
	for i, e := range es {
		if e.n != 1 {
			panic(fmt.Sprintf("ad: Stack of an element of length %d", e.n))
		}
		y[i] = t.vals(e)[0]
		o := -1
		if !e.isConst() {
			o, vars = int(e.off), true
		}
		t.ints = append(t.ints, o)
	}
	if !vars {
		t.ints = t.ints[:off]
		return Vec{off: -1, n: out.n, data: y}
	}
	t.push(node{op: opGather, out: out, idx: t.ints[off : off+len(es) : off+len(es)]})
	return out
}

func (nd *node) gatherBack(t *Tape, g []float64) {
	for i, o := range nd.idx {
		if o >= 0 {
			t.adj[o] += g[i]
		}
	}
}

// Constrain returns tr applied to x (of length tr.Size()) and books its
// log Jacobian as Param does: it counts in LogPrior and never in LogLik.
// It serves transforms whose shape is known only when the model is built
// (a front end's declarations) rather than in a Layout.
func (t *Tape) Constrain(tr transform.Transform, x Vec) Vec {
	if int(x.n) != tr.Size() {
		panic(fmt.Sprintf("ad: Constrain of a vector of length %d by a transform of size %d", x.n, tr.Size()))
	}
	y := t.newVec(tr.Len())
	t.jac += tr.Forward(t.vals(y), t.vals(x))
	t.push(node{op: opConstrain, out: y, a: x, tr: tr})
	return y
}

// Reset empties t and puts θ on it as the vector Theta, for evaluations
// outside a Model (a front end's constants or derived quantities): values
// only, no gradient. The zero Tape is ready for Reset.
func (t *Tape) Reset(theta []float64) { t.reset(theta, false) }

// IsConst reports whether v is a constant (data, no adjoint).
func IsConst(v Vec) bool { return v.isConst() }

// Scratch returns the value last given to SetScratch on t (nil at first):
// a caller's buffers that must live as long as the tape's nodes (an
// interpreter's arenas, whose slices the nodes read in the backward pass).
func (t *Tape) Scratch() any { return t.scratch }

// SetScratch keeps s with t (see Scratch).
func (t *Tape) SetScratch(s any) { t.scratch = s }
