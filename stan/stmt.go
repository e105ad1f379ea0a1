package stan

import (
	"fmt"
	"math"
	"strings"

	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/internal/linalg"
)

// newVar returns a variable of declaration d's type, its reals NaN and its
// ints zero, with the sizes evaluated now.
func (ev *evaluator) newVar(d *Decl) val {
	x := val{}
	if len(d.Dims) > 0 {
		x.dims = ev.ints(len(d.Dims))
	}
	for k, e := range d.Dims {
		n := ev.evalInt(e, "an array size")
		if n < 0 {
			ev.fail(e.pos(), "array size %d of %s is negative", n, d.Name)
		}
		x.dims[k] = n
	}
	size := func(k int) int {
		n := ev.evalInt(d.Sizes[k], "a size")
		if n < 0 {
			ev.fail(d.Sizes[k].pos(), "size %d of %s is negative", n, d.Name)
		}
		return n
	}
	switch d.Type {
	case tyInt:
		x.b = bInt
	case tyReal:
		x.b = bReal
	case tyVector, tySimplex, tyOrdered, tyPositiveOrdered, tyUnitVector:
		x.b, x.r, x.c = bVec, size(0), 1
	case tyRowVector:
		x.b, x.r, x.c = bRow, 1, size(0)
	case tyMatrix:
		x.b, x.r, x.c = bMat, size(0), size(1)
	case tyCholCorr, tyCorr, tyCov:
		k := size(0)
		x.b, x.r, x.c = bMat, k, k
	case tyCholCov:
		x.b, x.r, x.c = bMat, size(0), size(0)
		if len(d.Sizes) > 1 {
			x.c = size(1)
		}
	}
	ev.checkSize(d.Pos, d.Name, x)
	n := x.n()
	if x.b == bInt {
		if len(x.dims) > 0 {
			x.ints = ev.ints(n)
		}
		return x
	}
	if x.b == bReal && len(x.dims) == 0 {
		x.v = nanVec
		return x
	}
	x.es = ev.vecs(n)
	for k := range x.es {
		x.es[k] = nanVec
	}
	return x
}

func (ev *evaluator) execBlock(b *Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		ev.exec(s)
		if ev.loop != 0 {
			return
		}
	}
}

func (ev *evaluator) exec(s Stmt) {
	if ev.mode != modeAll {
		f := ev.m.rows.flags[s]
		if ev.mode == modePrior && f&fRow != 0 && f&fPrior == 0 || ev.mode == modeRows && f&fPrior != 0 && f&fRow == 0 {
			return
		}
		if f&fRowLoop != 0 { // inside the loop over the rows, every statement counts
			mode := ev.mode
			ev.mode = modeAll
			ev.exec(s)
			ev.mode = mode
			return
		}
	}
	switch s := s.(type) {
	case *Decl:
		x := ev.newVar(s)
		if s.Init != nil {
			x = ev.store(s.Pos, s.Name, x, nil, ev.eval(s.Init))
		}
		ev.env[s.slot] = x
	case *Assign:
		x := ev.env[s.slot]
		y := ev.eval(s.Value)
		if s.Op != "=" {
			cur := x
			if len(s.Index) > 0 {
				cur = ev.index(s.Pos, x, s.Index)
			}
			y = ev.binary(s.Pos, strings.TrimSuffix(s.Op, "="), cur, y)
		}
		ev.env[s.slot] = ev.store(s.Pos, s.Name, x, s.Index, y)
	case *Tilde:
		args := ev.vals(len(s.Args) + 1)
		args[0] = ev.eval(s.X)
		for k, a := range s.Args {
			args[k+1] = ev.eval(a)
		}
		ev.addTerm(ev.density(s.Pos, s.Dist, args, true))
	case *TargetPlus:
		x := ev.eval(s.E)
		if x.b == bInt {
			ev.addTerm(ev.cnst(float64(ev.sumInts(x))))
		} else if x.n() > 0 {
			v := ev.flat(x)
			if v.Len() > 1 {
				v = ev.t.Sum(v)
			}
			ev.addTerm(v)
		}
	case *For:
		if s.Hi == nil {
			c := ev.eval(s.Lo)
			if c.scalar() {
				ev.fail(s.Pos, "for … in of a scalar (%s)", c.typeString())
			}
			n := 1
			if len(c.dims) > 0 {
				n = c.dims[0]
			} else {
				n = c.n()
			}
			for k := 1; k <= n; k++ {
				ev.env[s.slot] = ev.index(s.Pos, c, []Index{{Pos: s.Pos, E: &IntLit{V: k}}})
				ev.exec(s.Body)
				if ev.endIteration() {
					break
				}
			}
			return
		}
		lo := ev.evalInt(s.Lo, "a loop's lower bound")
		hi := ev.evalInt(s.Hi, "a loop's upper bound")
		for k := lo; k <= hi; k++ {
			ev.env[s.slot] = val{b: bInt, i: k}
			ev.exec(s.Body)
			if ev.endIteration() {
				break
			}
			ev.checkStop(s.Pos)
		}
	case *While:
		for ev.truth(s.Cond) {
			ev.exec(s.Body)
			if ev.endIteration() {
				break
			}
			ev.checkStop(s.Pos)
		}
	case *If:
		if ev.truth(s.Cond) {
			ev.exec(s.Then)
		} else if s.Else != nil {
			ev.exec(s.Else)
		}
	case *Block:
		ev.execBlock(s)
	case *Print:
		if s.Reject {
			var b strings.Builder
			for _, a := range s.Args {
				if sl, ok := a.(*StrLit); ok {
					b.WriteString(sl.S)
				} else {
					x := ev.eval(a)
					fmt.Fprint(&b, ev.values(x))
				}
			}
			ev.reject(s.Pos, "reject: %s", b.String())
		}
	case *Return:
		if s.E != nil {
			ev.ret = ev.eval(s.E)
		}
		ev.loop = 3
	case *Jump:
		if s.Break {
			ev.loop = 1
		} else {
			ev.loop = 2
		}
	}
}

// endIteration handles break, continue and return at the end of a loop's
// body: it reports whether the loop ends.
func (ev *evaluator) endIteration() bool {
	switch ev.loop {
	case 1:
		ev.loop = 0
		return true
	case 2:
		ev.loop = 0
	case 3:
		return true
	}
	return false
}

func (ev *evaluator) sumInts(x val) int {
	if x.ints == nil {
		return x.i
	}
	s := 0
	for _, v := range x.ints {
		s += v
	}
	return s
}

func (ev *evaluator) addTerm(v ad.Vec) {
	if v.Len() == 0 {
		return
	}
	ev.terms = append(ev.terms, v)
}

// total returns target, the sum of the terms.
func (ev *evaluator) total() ad.Vec {
	switch len(ev.terms) {
	case 0:
		return ev.t.Const(0)
	case 1:
		return ev.terms[0]
	}
	return ev.t.Sum(ev.t.Stack(ev.terms))
}

// checkConstraint rejects when x violates d's bounds (transformed
// parameters and generated quantities, at the end of their block).
func (ev *evaluator) checkConstraint(d *Decl, x val) {
	if d.Lower == nil && d.Upper == nil && d.Type < tySimplex || x.n() == 0 {
		return
	}
	xs := ev.values(x)
	check := func(e Expr, upper bool) {
		if e == nil {
			return
		}
		b := ev.eval(e)
		bs := ev.values(b)
		for k, v := range xs {
			bk := bs[0]
			if len(bs) > 1 {
				if len(bs) != len(xs) {
					ev.fail(e.pos(), "the bound of %s has %d values, want 1 or %d", d.Name, len(bs), len(xs))
				}
				bk = bs[k]
			}
			if upper && !(v <= bk) || !upper && !(v >= bk) {
				w := "lower"
				if upper {
					w = "upper"
				}
				ev.reject(d.Pos, "%s: value %d = %v violates its %s bound %v", d.Name, k+1, v, w, bk)
			}
		}
	}
	check(d.Lower, false)
	check(d.Upper, true)
	ev.checkStructure(d, x, xs)
}

// checkStructure rejects x unless it is of d's structured type (a simplex,
// an ordered vector, a covariance or correlation matrix or its Cholesky
// factor), to Stan's tolerance 1e-8.
func (ev *evaluator) checkStructure(d *Decl, x val, xs []float64) {
	const tol = 1e-8
	per := x.elemLen()
	for e := 0; e*per < len(xs); e++ {
		v := xs[e*per : (e+1)*per]
		bad := ""
		switch d.Type {
		case tySimplex:
			s := 0.0
			for _, a := range v {
				s += a
				if a < 0 {
					bad = "is not a simplex: an element is negative"
				}
			}
			if math.Abs(s-1) > tol {
				bad = fmt.Sprintf("is not a simplex: its sum is %v", s)
			}
		case tyOrdered, tyPositiveOrdered:
			for k := range v {
				if k > 0 && !(v[k] > v[k-1]) {
					bad = "is not in increasing order"
				}
			}
			if d.Type == tyPositiveOrdered && len(v) > 0 && !(v[0] > 0) {
				bad = "is not positive"
			}
		case tyUnitVector:
			s := 0.0
			for _, a := range v {
				s += a * a
			}
			if math.Abs(s-1) > tol {
				bad = "is not a unit vector"
			}
		case tyCov, tyCorr:
			k := x.r
			for i := 0; i < k && bad == ""; i++ {
				for j := 0; j < i; j++ {
					if math.Abs(v[i*k+j]-v[j*k+i]) > tol {
						bad = "is not symmetric"
					}
				}
				if d.Type == tyCorr && math.Abs(v[i*k+i]-1) > tol {
					bad = "has a diagonal element other than 1"
				}
			}
			if bad == "" && !posDef(v, k) {
				bad = "is not positive definite"
			}
		case tyCholCorr, tyCholCov:
			r, c := x.r, x.c
			for i := 0; i < r; i++ {
				s := 0.0
				for j := 0; j < c; j++ {
					a := v[i*c+j]
					s += a * a
					if j > i && a != 0 {
						bad = "is not lower triangular"
					}
				}
				if i < c && !(v[i*c+i] > 0) {
					bad = "has a diagonal element that is not positive"
				}
				if d.Type == tyCholCorr && math.Abs(s-1) > tol {
					bad = "has a row that is not of unit length"
				}
			}
		}
		if bad != "" {
			if len(x.dims) > 0 {
				ev.reject(d.Pos, "%s: element %d %s", d.Name, e+1, bad)
			}
			ev.reject(d.Pos, "%s %s", d.Name, bad)
		}
	}
}

// posDef reports whether the k×k row-major matrix a is positive definite
// (its Cholesky factorisation succeeds, every pivot positive and finite).
func posDef(a []float64, k int) bool {
	return linalg.CholLower(make([]float64, k*k), a, k)
}
