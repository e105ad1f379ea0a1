package stan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin/ad"
)

// evaluator runs a checked program on a tape. Its buffers (the
// environment, the arenas) are kept between evaluations.
type evaluator struct {
	m     *Model
	t     *ad.Tape
	env   []val
	terms []ad.Vec // the increments of target, scalars
	fbuf  []float64
	vbuf  []ad.Vec
	ibuf  []int
	xbuf  []val
	loop  int // 1 break, 2 continue, 3 return
	ret   val // the value returned
	depth int // of user-defined function calls
	pcg   *rand.PCG
	rng   *rand.Rand // the generated quantities' random numbers (seedFrom)
	block string
	mode  uint8 // 0 the whole target; modePrior or modeRows (NewRows)
	rowN  int   // ≥ 0 on a batch: the row count where it sizes row-wise values
}

// Modes of an evaluation of a model with rows (NewRows).
const (
	modeAll uint8 = iota
	modePrior
	modeRows
)

// runtimeErr is an error while evaluating: the program rejects the point
// (reject, a constraint of a transformed parameter, a domain error), or
// the program is wrong where the checker could not see it (an index out of
// range).
type runtimeErr struct{ *Error }

// rejectErr is a rejection of the point: reject(), a violated constraint of
// a transformed parameter, an argument outside a distribution's support.
// The log density there is −∞.
type rejectErr struct{ *Error }

func (ev *evaluator) reject(p Pos, format string, args ...any) {
	panic(rejectErr{&Error{File: ev.m.prog.File, Pos: p, Msg: fmt.Sprintf(format, args...)}})
}

func (ev *evaluator) fail(p Pos, format string, args ...any) {
	panic(runtimeErr{&Error{File: ev.m.prog.File, Pos: p, Msg: fmt.Sprintf(format, args...)}})
}

// maxElements is the most scalars one variable may hold (2²⁸, 2 GiB of
// reals): a larger size in the data is an error, not an out-of-memory crash.
const maxElements = 1 << 28

// checkSize fails when x, declared at p as name, would hold more than
// maxElements scalars (the product of its sizes, without overflow).
func (ev *evaluator) checkSize(p Pos, name string, x val) {
	n := 1
	for _, d := range append(x.dims[:len(x.dims):len(x.dims)], x.r, x.c) {
		if d == 0 {
			return
		}
		if d > maxElements || n > maxElements/d {
			ev.fail(p, "%s (%s) would hold more than %d values: sizes this large are not supported", name, x.typeString(), maxElements)
		}
		n *= d
	}
}

// checkStop fails at p when the run was interrupted (Model.Interrupt): a
// loop that would not end stops at the next iteration.
func (ev *evaluator) checkStop(p Pos) {
	if ev.m.stop.Load() {
		ev.reject(p, "interrupted (a signal or --max-time) in this loop")
	}
}

func (ev *evaluator) reset(t *ad.Tape) {
	ev.t = t
	ev.terms = ev.terms[:0]
	ev.fbuf = ev.fbuf[:0]
	ev.vbuf = ev.vbuf[:0]
	ev.ibuf = ev.ibuf[:0]
	ev.xbuf = ev.xbuf[:0]
	ev.loop, ev.depth = 0, 0
	ev.mode, ev.rowN = modeAll, -1
	if len(ev.env) != len(ev.m.consts) {
		ev.env = make([]val, len(ev.m.consts))
	}
	copy(ev.env, ev.m.consts)
}

// arenaSize fails when a container of n values is asked for, n beyond
// maxElements (rep_vector(0, N) of a huge N, say): an error, not a crash.
func (ev *evaluator) arenaSize(n int) {
	if n > maxElements || n < 0 {
		ev.fail(Pos{}, "a container of %d values: sizes beyond %d are not supported", n, maxElements)
	}
}

// mulSize returns the size a·b of a container built at p, failing when it
// is negative or beyond maxElements (without overflow).
func (ev *evaluator) mulSize(p Pos, a, b int) int {
	if a < 0 || b < 0 {
		ev.fail(p, "negative size %d", min(a, b))
	}
	if a != 0 && (a > maxElements || b > maxElements/a) {
		ev.fail(p, "a container of %d × %d values: sizes beyond %d are not supported", a, b, maxElements)
	}
	return a * b
}

// floats returns n zeros from the arena (valid until the next reset).
func (ev *evaluator) floats(n int) []float64 {
	ev.arenaSize(n)
	if len(ev.fbuf)+n > cap(ev.fbuf) {
		ev.fbuf = make([]float64, 0, max(2*cap(ev.fbuf), n, 256))
	}
	s := ev.fbuf[len(ev.fbuf) : len(ev.fbuf)+n : len(ev.fbuf)+n]
	ev.fbuf = ev.fbuf[:len(ev.fbuf)+n]
	clear(s)
	return s
}

func (ev *evaluator) vecs(n int) []ad.Vec {
	ev.arenaSize(n)
	if len(ev.vbuf)+n > cap(ev.vbuf) {
		ev.vbuf = make([]ad.Vec, 0, max(2*cap(ev.vbuf), n, 256))
	}
	s := ev.vbuf[len(ev.vbuf) : len(ev.vbuf)+n : len(ev.vbuf)+n]
	ev.vbuf = ev.vbuf[:len(ev.vbuf)+n]
	return s
}

// vals returns n values from the arena.
func (ev *evaluator) vals(n int) []val {
	ev.arenaSize(n)
	if len(ev.xbuf)+n > cap(ev.xbuf) {
		ev.xbuf = make([]val, 0, max(2*cap(ev.xbuf), n, 64))
	}
	s := ev.xbuf[len(ev.xbuf) : len(ev.xbuf)+n : len(ev.xbuf)+n]
	ev.xbuf = ev.xbuf[:len(ev.xbuf)+n]
	return s
}

func (ev *evaluator) ints(n int) []int {
	ev.arenaSize(n)
	if len(ev.ibuf)+n > cap(ev.ibuf) {
		ev.ibuf = make([]int, 0, max(2*cap(ev.ibuf), n, 256))
	}
	s := ev.ibuf[len(ev.ibuf) : len(ev.ibuf)+n : len(ev.ibuf)+n]
	ev.ibuf = ev.ibuf[:len(ev.ibuf)+n]
	clear(s)
	return s
}

func (ev *evaluator) cnst(c float64) ad.Vec {
	s := ev.floats(1)
	s[0] = c
	return constVec(s)
}

// flat returns all the reals of x as one vector (ints become constants).
func (ev *evaluator) flat(x val) ad.Vec {
	switch {
	case x.b == bInt && x.ints == nil && len(x.dims) == 0:
		return ev.cnst(float64(x.i))
	case x.b == bInt:
		f := ev.floats(len(x.ints))
		for k, v := range x.ints {
			f[k] = float64(v)
		}
		if len(f) == 0 {
			return ad.Vec{}
		}
		return constVec(f)
	case x.es != nil:
		if len(x.es) == 0 {
			return ad.Vec{}
		}
		return ev.t.Stack(x.es)
	}
	return x.v
}

// at returns the scalar k of x.
func (ev *evaluator) at(x val, k int) ad.Vec {
	switch {
	case x.b == bInt && x.ints == nil:
		return ev.cnst(float64(x.i))
	case x.b == bInt:
		return ev.cnst(float64(x.ints[k]))
	case x.es != nil:
		return x.es[k]
	}
	return x.v.At(k)
}

// num returns the value of the scalar x.
func (ev *evaluator) num(x val) float64 {
	if x.b == bInt {
		if x.ints != nil {
			return float64(x.ints[0])
		}
		return float64(x.i)
	}
	if x.es != nil {
		return ev.t.Values(x.es[0])[0]
	}
	return ev.t.Values(x.v)[0]
}

// values returns the current values of the reals of x.
func (ev *evaluator) values(x val) []float64 {
	if x.b == bInt {
		f := ev.floats(x.n())
		if x.ints == nil {
			f[0] = float64(x.i)
		}
		for k, v := range x.ints {
			f[k] = float64(v)
		}
		return f
	}
	if x.n() == 0 {
		return nil
	}
	return ev.t.Values(ev.flat(x))
}

func isConst(v ad.Vec) bool { return v.Len() > 0 && constOf(v) }

// constOf reports whether v is a constant (carries no gradient).
func constOf(v ad.Vec) bool { return ad.IsConst(v) }

func (ev *evaluator) realScalar(v ad.Vec) val { return val{b: bReal, v: v} }

// like returns a real value of x's shape holding v.
func like(x val, v ad.Vec) val {
	if x.b == bInt {
		x.b = bReal
	}
	x.ints, x.es, x.v = nil, nil, v
	return x
}

// evalInt evaluates e, which must be an int scalar.
func (ev *evaluator) evalInt(e Expr, what string) int {
	x := ev.eval(e)
	if x.b != bInt || !x.scalar() {
		ev.fail(e.pos(), "%s must be an int, found %s", what, x.typeString())
	}
	if x.ints != nil {
		return x.ints[0]
	}
	return x.i
}

// truth evaluates a condition: an int or real scalar, true when not zero.
func (ev *evaluator) truth(e Expr) bool {
	x := ev.eval(e)
	if !x.scalar() {
		ev.fail(e.pos(), "a condition must be an int or real, found %s", x.typeString())
	}
	return ev.num(x) != 0
}

func boolInt(b bool) val {
	if b {
		return val{b: bInt, i: 1}
	}
	return val{b: bInt}
}

func (ev *evaluator) eval(e Expr) val {
	switch e := e.(type) {
	case *IntLit:
		return val{b: bInt, i: e.V}
	case *RealLit:
		return val{b: bReal, v: constVec(e.c)}
	case *Ident:
		if e.rowCount && ev.rowN >= 0 {
			return val{b: bInt, i: ev.rowN}
		}
		return ev.env[e.slot]
	case *Unary:
		x := ev.eval(e.X)
		switch e.Op {
		case "-":
			if x.b == bInt && x.scalar() {
				return val{b: bInt, i: -ev.intv(x)}
			}
			if x.b == bInt {
				ev.fail(e.Pos, "'-' of %s", x.typeString())
			}
			return like(x, ev.t.Neg(ev.flat(x)))
		case "!":
			if !x.scalar() {
				ev.fail(e.Pos, "'!' of %s", x.typeString())
			}
			return boolInt(ev.num(x) == 0)
		case "'":
			return ev.transpose(e.Pos, x)
		}
	case *Binary:
		if e.Op == "&&" {
			return boolInt(ev.truth(e.L) && ev.truth(e.R))
		}
		if e.Op == "||" {
			return boolInt(ev.truth(e.L) || ev.truth(e.R))
		}
		l, r := ev.eval(e.L), ev.eval(e.R)
		if l.b == bReal && r.b == bReal && l.dims == nil && r.dims == nil && l.es == nil && r.es == nil {
			// two real scalars: the common case in loops
			switch e.Op {
			case "+":
				return val{b: bReal, v: ev.t.Add(l.v, r.v)}
			case "-":
				return val{b: bReal, v: ev.t.Sub(l.v, r.v)}
			case "*":
				return val{b: bReal, v: ev.t.Mul(l.v, r.v)}
			case "/":
				return val{b: bReal, v: ev.t.Div(l.v, r.v)}
			}
		}
		return ev.binary(e.Pos, e.Op, l, r)
	case *Cond:
		if ev.truth(e.C) {
			return ev.eval(e.A)
		}
		return ev.eval(e.B)
	case *IndexExpr:
		x := ev.eval(e.X)
		return ev.index(e.Pos, x, e.Idx)
	case *Call:
		return ev.call(e)
	case *ArrayLit:
		return ev.arrayLit(e)
	case *StrLit:
		ev.fail(e.Pos, "a string is allowed only in print and reject")
	}
	ev.fail(e.pos(), "unsupported expression")
	return val{}
}

func (ev *evaluator) intv(x val) int {
	if x.ints != nil {
		return x.ints[0]
	}
	return x.i
}

func (ev *evaluator) transpose(p Pos, x val) val {
	if len(x.dims) > 0 {
		ev.fail(p, "transpose (') of an array")
	}
	switch x.b {
	case bVec:
		x.b, x.r, x.c = bRow, 1, x.r
		return x
	case bRow:
		x.b, x.r, x.c = bVec, x.c, 1
		return x
	case bMat:
		idx := ev.ints(x.r * x.c)
		for i := 0; i < x.c; i++ {
			for j := 0; j < x.r; j++ {
				idx[i*x.r+j] = j*x.c + i
			}
		}
		y := val{b: bMat, r: x.c, c: x.r}
		if x.r*x.c > 0 {
			y.v = ev.t.Index(ev.flat(x), idx, nil)
		}
		return y
	}
	return x // a scalar
}

func (ev *evaluator) arrayLit(e *ArrayLit) val {
	xs := make([]val, len(e.Elems))
	for k, el := range e.Elems {
		xs[k] = ev.eval(el)
	}
	f := xs[0]
	if e.Row {
		if f.scalar() { // a row vector
			es := ev.vecs(len(xs))
			for k, x := range xs {
				if !x.scalar() {
					ev.fail(e.Elems[k].pos(), "element %d of a row vector literal is %s, not a scalar", k+1, x.typeString())
				}
				es[k] = ev.at(x, 0)
			}
			return val{b: bRow, r: 1, c: len(xs), es: es}
		}
		if f.b != bRow || len(f.dims) > 0 {
			ev.fail(e.Pos, "a [ … ] literal holds scalars or row vectors, found %s", f.typeString())
		}
		es := ev.vecs(len(xs) * f.c)
		for k, x := range xs {
			if x.b != bRow || x.c != f.c || len(x.dims) > 0 {
				ev.fail(e.Elems[k].pos(), "row %d of the matrix literal is %s, want row_vector[%d]", k+1, x.typeString(), f.c)
			}
			for j := 0; j < f.c; j++ {
				es[k*f.c+j] = ev.at(x, j)
			}
		}
		return val{b: bMat, r: len(xs), c: f.c, es: es}
	}
	anyReal := false
	for _, x := range xs {
		anyReal = anyReal || x.b != bInt
	}
	dims := append([]int{len(xs)}, f.dims...)
	if f.b == bInt && !anyReal {
		ints := ev.ints(len(xs) * f.n())
		for k, x := range xs {
			if x.b != bInt || !sameDims(x.dims, f.dims) {
				ev.fail(e.Elems[k].pos(), "element %d of the array literal is %s, unlike element 1 (%s)", k+1, x.typeString(), f.typeString())
			}
			if x.ints == nil {
				ints[k] = x.i
			} else {
				copy(ints[k*f.n():], x.ints)
			}
		}
		return val{b: bInt, dims: dims, ints: ints}
	}
	m := f.n()
	es := ev.vecs(len(xs) * m)
	b := f.b
	if b == bInt {
		b = bReal
	}
	for k, x := range xs {
		xb := x.b
		if xb == bInt {
			xb = bReal
		}
		if xb != b || !sameDims(x.dims, f.dims) || x.r != f.r || x.c != f.c {
			ev.fail(e.Elems[k].pos(), "element %d of the array literal is %s, unlike element 1 (%s)", k+1, x.typeString(), f.typeString())
		}
		for j := 0; j < m; j++ {
			es[k*m+j] = ev.at(x, j)
		}
	}
	return val{b: b, dims: dims, r: f.r, c: f.c, es: es}
}

func sameDims(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameShape(a, b val) bool {
	ab, bb := a.b, b.b
	if ab == bInt {
		ab = bReal
	}
	if bb == bInt {
		bb = bReal
	}
	return ab == bb && sameDims(a.dims, b.dims) && (ab == bReal || a.r == b.r && a.c == b.c)
}

// binary applies a binary operator.
func (ev *evaluator) binary(p Pos, op string, a, b val) val {
	if a.b == bInt && b.b == bInt && a.scalar() && b.scalar() {
		x, y := ev.intv(a), ev.intv(b)
		switch op {
		case "+":
			return val{b: bInt, i: x + y}
		case "-":
			return val{b: bInt, i: x - y}
		case "*":
			return val{b: bInt, i: x * y}
		case "/", "%/%":
			if y == 0 {
				ev.fail(p, "integer division by zero")
			}
			return val{b: bInt, i: x / y}
		case "%":
			if y == 0 {
				ev.fail(p, "integer modulus by zero")
			}
			return val{b: bInt, i: x % y}
		case "^":
			return val{b: bReal, v: ev.cnst(math.Pow(float64(x), float64(y)))}
		}
	}
	switch op {
	case "<", "<=", ">", ">=", "==", "!=":
		if !a.scalar() || !b.scalar() {
			ev.fail(p, "'%s' of %s and %s (want scalars)", op, a.typeString(), b.typeString())
		}
		x, y := ev.num(a), ev.num(b)
		switch op {
		case "<":
			return boolInt(x < y)
		case "<=":
			return boolInt(x <= y)
		case ">":
			return boolInt(x > y)
		case ">=":
			return boolInt(x >= y)
		case "==":
			return boolInt(x == y)
		}
		return boolInt(x != y)
	case "+", "-", ".*", "./", ".^":
		return ev.elementwise(p, op, a, b)
	case "*":
		if a.scalar() || b.scalar() {
			return ev.elementwise(p, op, a, b)
		}
		return ev.matmul(p, a, b)
	case "/":
		if b.scalar() {
			return ev.elementwise(p, op, a, b)
		}
		ev.fail(p, "'/' of %s by %s is not supported (use ./ for element-wise division)", a.typeString(), b.typeString())
	case "^":
		if a.scalar() && b.scalar() {
			return ev.elementwise(p, op, a, b)
		}
		ev.fail(p, "'^' of %s and %s (want scalars; .^ is element-wise)", a.typeString(), b.typeString())
	case "%", "%/%":
		ev.fail(p, "'%s' of %s and %s (want ints)", op, a.typeString(), b.typeString())
	case "\\":
		ev.fail(p, "left division '\\' is not supported")
	}
	ev.fail(p, "unsupported operator '%s'", op)
	return val{}
}

// elementwise applies + − ∘ ÷ or a power to a and b, one of them possibly a
// scalar.
func (ev *evaluator) elementwise(p Pos, op string, a, b val) val {
	shape := a
	if a.scalar() {
		shape = b
	} else if !b.scalar() && !sameShape(a, b) {
		ev.fail(p, "'%s' of %s and %s (want the same shape, or a scalar)", op, a.typeString(), b.typeString())
	}
	if shape.n() == 0 {
		return like(shape, ad.Vec{})
	}
	if len(a.dims) > 0 || len(b.dims) > 0 {
		ev.fail(p, "'%s' of %s and %s: arrays take no arithmetic (use vectors)", op, a.typeString(), b.typeString())
	}
	x, y := ev.flat(a), ev.flat(b)
	var v ad.Vec
	switch op {
	case "+":
		v = ev.t.Add(x, y)
	case "-":
		v = ev.t.Sub(x, y)
	case "*", ".*":
		v = ev.t.Mul(x, y)
	case "/", "./":
		v = ev.t.Div(x, y)
	case "^", ".^":
		v = ev.t.Map(powD, x, y)
	}
	return like(shape, v)
}

func powD(x, y float64) (float64, float64, float64) {
	z := math.Pow(x, y)
	dx := y * math.Pow(x, y-1)
	dy := 0.0
	if x > 0 {
		dy = z * math.Log(x)
	} else if x == 0 && y > 0 {
		dy = 0
	}
	return z, dx, dy
}

// matmul multiplies matrices, vectors and row vectors.
func (ev *evaluator) matmul(p Pos, a, b val) val {
	if len(a.dims) > 0 || len(b.dims) > 0 || a.b < bVec || b.b < bVec {
		ev.fail(p, "'*' of %s and %s", a.typeString(), b.typeString())
	}
	if a.c != b.r {
		ev.fail(p, "'*' of %s and %s: the inner dimensions %d and %d differ", a.typeString(), b.typeString(), a.c, b.r)
	}
	if a.b == bRow && b.b == bVec {
		return val{b: bReal, v: ev.t.Dot(ev.flat(a), ev.flat(b))}
	}
	// the result's type follows the operands' types, not their sizes: a
	// matrix with one row (a minibatch of one row, say) times a vector is a
	// vector
	out := val{b: bMat, r: a.r, c: b.c}
	switch {
	case b.b == bVec:
		out.b = bVec
	case a.b == bRow:
		out.b = bRow
	}
	if a.c == 0 || out.r*out.c == 0 {
		ev.fail(p, "'*' of empty matrices is not supported")
	}
	out.v = ev.t.MatMul(ev.flat(a), ev.flat(b), a.c)
	return out
}
