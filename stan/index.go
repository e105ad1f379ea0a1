package stan

import (
	"github.com/langevin-go/langevin/ad"
)

// selection is the result of resolving indices against a value: the flat
// positions selected (row-major) and the shape of the result.
type selection struct {
	pos  []int
	res  val // shape only
	cont bool
}

// resolve selects the positions of x that the indices pick.
func (ev *evaluator) resolve(p Pos, x val, idx []Index) selection {
	md := x.matDims()
	nd := len(x.dims) + len(md)
	if len(idx) > nd {
		ev.fail(p, "%d indices for %s (at most %d)", len(idx), x.typeString(), nd)
	}
	full := ev.ints(nd)
	copy(full, x.dims)
	copy(full[len(x.dims):], md)
	var listsA [8][]int
	var singleA [8]bool
	lists, single := listsA[:0], singleA[:0]
	if nd <= 8 {
		lists, single = listsA[:nd], singleA[:nd]
	} else {
		lists, single = make([][]int, nd), make([]bool, nd)
	}
	for d := 0; d < nd; d++ {
		n := full[d]
		if d >= len(idx) {
			l := ev.ints(n)
			for k := range l {
				l[k] = k
			}
			lists[d] = l
			continue
		}
		ix := idx[d]
		switch {
		case ix.Range:
			lo, hi := 1, n
			if ix.Lo != nil {
				lo = ev.evalInt(ix.Lo, "a range's lower end")
			}
			if ix.Hi != nil {
				hi = ev.evalInt(ix.Hi, "a range's upper end")
			}
			if hi < lo {
				lists[d] = nil
				continue
			}
			if lo < 1 || hi > n {
				ev.fail(ix.Pos, "index range %d:%d out of 1:%d", lo, hi, n)
			}
			l := ev.ints(hi - lo + 1)
			for k := range l {
				l[k] = lo - 1 + k
			}
			lists[d] = l
		default:
			iv := ev.eval(ix.E)
			if iv.b != bInt {
				ev.fail(ix.Pos, "an index must be an int or an int array, found %s", iv.typeString())
			}
			if iv.scalar() {
				k := ev.intv(iv)
				if k < 1 || k > n {
					ev.fail(ix.Pos, "index %d out of range 1:%d", k, n)
				}
				l := ev.ints(1)
				l[0] = k - 1
				lists[d] = l
				single[d] = true
				continue
			}
			if len(iv.dims) != 1 {
				ev.fail(ix.Pos, "a multi-index must be a one-dimensional int array, found %s", iv.typeString())
			}
			l := ev.ints(len(iv.ints))
			for k, v := range iv.ints {
				if v < 1 || v > n {
					ev.fail(ix.Pos, "index %d (element %d of the multi-index) out of range 1:%d", v, k+1, n)
				}
				l[k] = v - 1
			}
			lists[d] = l
		}
	}
	// the result's shape
	res := val{b: x.b}
	kept := 0
	for d := range x.dims {
		if !single[d] {
			kept++
		}
	}
	if kept > 0 {
		res.dims = ev.ints(kept)[:0]
		for d := range x.dims {
			if !single[d] {
				res.dims = append(res.dims, len(lists[d]))
			}
		}
	}
	a := len(x.dims)
	switch x.b {
	case bVec, bRow:
		if single[a] {
			res.b = bReal
		} else if x.b == bVec {
			res.r, res.c = len(lists[a]), 1
		} else {
			res.r, res.c = 1, len(lists[a])
		}
	case bMat:
		si, sj := single[a], single[a+1]
		ni, nj := len(lists[a]), len(lists[a+1])
		switch {
		case si && sj:
			res.b = bReal
		case si:
			res.b, res.r, res.c = bRow, 1, nj
		case sj:
			res.b, res.r, res.c = bVec, ni, 1
		default:
			res.r, res.c = ni, nj
		}
	}
	// positions, row-major over the lists
	total := 1
	for _, l := range lists {
		total *= len(l)
	}
	pos := ev.ints(total)
	stride := ev.ints(nd)
	s := 1
	for d := nd - 1; d >= 0; d-- {
		stride[d] = s
		s *= full[d]
	}
	ctr := ev.ints(nd)
	cont := true
	for k := 0; k < total; k++ {
		o := 0
		for d := 0; d < nd; d++ {
			o += lists[d][ctr[d]] * stride[d]
		}
		pos[k] = o
		if k > 0 && o != pos[k-1]+1 {
			cont = false
		}
		for d := nd - 1; d >= 0; d-- {
			ctr[d]++
			if ctr[d] < len(lists[d]) {
				break
			}
			ctr[d] = 0
		}
	}
	return selection{pos: pos, res: res, cont: cont}
}

// index returns x[idx…].
func (ev *evaluator) index(p Pos, x val, idx []Index) val {
	if x.scalar() {
		ev.fail(p, "indexing a scalar (%s)", x.typeString())
	}
	if k, ok := ev.single(x, idx); ok { // x[k] of a one-dimensional container: the common case in loops
		if x.b == bInt {
			return val{b: bInt, i: x.ints[k]}
		}
		if x.es != nil {
			return val{b: bReal, v: x.es[k]}
		}
		return val{b: bReal, v: x.v.At(k)}
	}
	sel := ev.resolve(p, x, idx)
	r := sel.res
	n := len(sel.pos)
	if x.b == bInt {
		if len(r.dims) == 0 {
			r.i = x.ints[sel.pos[0]]
			return r
		}
		r.ints = ev.ints(n)
		for k, o := range sel.pos {
			r.ints[k] = x.ints[o]
		}
		if n == 0 {
			r.ints = []int{}
		}
		return r
	}
	if n == 0 {
		r.v = ad.Vec{}
		return r
	}
	switch {
	case x.es != nil && sel.cont:
		r.es = x.es[sel.pos[0] : sel.pos[0]+n : sel.pos[0]+n]
	case x.es != nil:
		r.es = ev.vecs(n)
		for k, o := range sel.pos {
			r.es[k] = x.es[o]
		}
	case sel.cont:
		r.v = x.v.Slice(sel.pos[0], sel.pos[0]+n)
	default:
		r.v = ev.t.Index(x.v, sel.pos, nil)
	}
	return r
}

// store assigns y to the variable x (whole, when idx is empty), converting
// ints to reals, and returns the new value of the variable.
func (ev *evaluator) store(p Pos, name string, x val, idx []Index, y val) val {
	if len(idx) == 0 {
		if !sameShape(x, y) || x.b == bInt && y.b != bInt {
			ev.fail(p, "assigning %s to %s of type %s", y.typeString(), name, x.typeString())
		}
		return ev.copyInto(x, y)
	}
	if k, ok := ev.single(x, idx); ok && y.scalar() && !(x.b == bInt && y.b != bInt) {
		if x.b == bInt {
			x.ints[k] = ev.intv(y)
			return x
		}
		if x.es == nil {
			es := ev.vecs(x.n())
			for j := range es {
				es[j] = x.v.At(j)
			}
			x.es, x.v = es, ad.Vec{}
		}
		x.es[k] = ev.at(y, 0)
		return x
	}
	sel := ev.resolve(p, x, idx)
	if !sameShape(sel.res, y) || x.b == bInt && y.b != bInt {
		ev.fail(p, "assigning %s to %s[…] of type %s", y.typeString(), name, sel.res.typeString())
	}
	if x.b == bInt {
		if y.ints == nil {
			x.ints[sel.pos[0]] = y.i
		} else {
			for k, o := range sel.pos {
				x.ints[o] = y.ints[k]
			}
		}
		return x
	}
	if x.es == nil { // element storage, owned by the variable
		n := x.n()
		es := ev.vecs(n)
		for k := range es {
			es[k] = x.v.At(k)
		}
		x.es, x.v = es, ad.Vec{}
	}
	for k, o := range sel.pos {
		x.es[o] = ev.at(y, k)
	}
	return x
}

// copyInto returns y in x's shape with storage of its own.
func (ev *evaluator) copyInto(x, y val) val {
	if x.b == bInt {
		if x.ints == nil {
			x.i = ev.intv(y)
			return x
		}
		x.ints = ev.ints(len(y.ints))
		copy(x.ints, y.ints)
		return x
	}
	n := y.n()
	x.ints, x.es, x.v = nil, nil, ad.Vec{}
	if n == 0 {
		return x
	}
	switch {
	case y.b == bInt:
		x.v = ev.flat(y)
	case y.es != nil && n == 1:
		x.v = y.es[0]
	case y.es != nil:
		x.es = ev.vecs(n)
		copy(x.es, y.es)
	default:
		x.v = y.v
	}
	return x
}

// single returns the 0-based position k when idx is one int index into a
// one-dimensional container of scalars (an array of reals or ints, a
// vector or row vector), and whether it is.
func (ev *evaluator) single(x val, idx []Index) (int, bool) {
	if len(idx) != 1 || idx[0].Range {
		return 0, false
	}
	var n int
	switch {
	case len(x.dims) == 1 && (x.b == bReal || x.b == bInt):
		n = x.dims[0]
	case len(x.dims) == 0 && (x.b == bVec || x.b == bRow):
		n = x.r * x.c
	default:
		return 0, false
	}
	iv := ev.eval(idx[0].E)
	if iv.b != bInt || !iv.scalar() {
		if iv.b == bInt && len(iv.dims) == 1 {
			return 0, false // a multi-index
		}
		ev.fail(idx[0].Pos, "an index must be an int or an int array, found %s", iv.typeString())
	}
	k := ev.intv(iv)
	if k < 1 || k > n {
		ev.fail(idx[0].Pos, "index %d out of range 1:%d", k, n)
	}
	return k - 1, true
}
