package ad

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/langevin-go/langevin/transform"
)

type op uint8

const (
	opAdd op = iota
	opSub
	opMul
	opDiv
	opUnary
	opSum
	opDot
	opMatVec
	opMatMulT
	opIndex
	opDensity
	opConstrain
	opGLM
	opScan
	opConcat
	opMatMul
	opCholEff
	opGroupMatVec
	opGram
	opMap
	opGather
)

// unary functions
const (
	fExp uint8 = iota
	fLog
	fSquare
	fSqrt
	fSoftplus
	fSigmoid
	fTanh
	fNeg
	fLog1m
)

// node is one recorded operation. Densities and GLMs store their partials
// (computed in the forward pass) at part[k] for argument k, −1 when none.
type node struct {
	op    op
	fn    uint8
	out   Vec
	a, b  Vec
	args  [4]Vec
	part  [4]int32
	x     *Matrix
	idx   []int
	batch []int
	k     int
	tr    transform.Transform
}

// adjs returns the adjoints of v, nil for a constant.
func (t *Tape) adjs(v Vec) []float64 {
	if v.isConst() {
		return nil
	}
	return t.adj[v.off : v.off+v.n]
}

// bsize returns the broadcast length of a and b.
func bsize(who string, a, b Vec) int {
	switch {
	case a.n == b.n:
		return int(a.n)
	case a.n == 1:
		return int(b.n)
	case b.n == 1:
		return int(a.n)
	}
	panic(fmt.Sprintf("ad: %s of vectors of lengths %d and %d (want equal, or a scalar)", who, a.n, b.n))
}

func st(v Vec) int {
	if v.n == 1 {
		return 0
	}
	return 1
}

func (t *Tape) binary(o op, who string, a, b Vec) Vec {
	n := bsize(who, a, b)
	out := t.newVec(n)
	y, x, z := t.vals(out), t.vals(a)[:a.n], t.vals(b)[:b.n]
	// One loop per operation and broadcast (the same arithmetic as one
	// loop with a switch inside, without the switch and the strides).
	switch {
	case len(x) == len(y) && len(z) == len(y):
		z = z[:len(y)]
		switch o {
		case opAdd:
			for i, u := range x {
				y[i] = u + z[i]
			}
		case opSub:
			for i, u := range x {
				y[i] = u - z[i]
			}
		case opMul:
			for i, u := range x {
				y[i] = u * z[i]
			}
		case opDiv:
			for i, u := range x {
				y[i] = u / z[i]
			}
		}
	case len(x) == 1:
		u := x[0]
		switch o {
		case opAdd:
			for i, v := range z {
				y[i] = u + v
			}
		case opSub:
			for i, v := range z {
				y[i] = u - v
			}
		case opMul:
			for i, v := range z {
				y[i] = u * v
			}
		case opDiv:
			for i, v := range z {
				y[i] = u / v
			}
		}
	default: // len(z) == 1
		v := z[0]
		switch o {
		case opAdd:
			for i, u := range x {
				y[i] = u + v
			}
		case opSub:
			for i, u := range x {
				y[i] = u - v
			}
		case opMul:
			for i, u := range x {
				y[i] = u * v
			}
		case opDiv:
			for i, u := range x {
				y[i] = u / v
			}
		}
	}
	t.push(node{op: o, out: out, a: a, b: b})
	return out
}

// Add returns a + b element-wise (a scalar broadcasts).
func (t *Tape) Add(a, b Vec) Vec { return t.binary(opAdd, "Add", a, b) }

// Sub returns a − b element-wise (a scalar broadcasts).
func (t *Tape) Sub(a, b Vec) Vec { return t.binary(opSub, "Sub", a, b) }

// Mul returns a ∘ b element-wise (a scalar broadcasts).
func (t *Tape) Mul(a, b Vec) Vec { return t.binary(opMul, "Mul", a, b) }

// Div returns a / b element-wise (a scalar broadcasts).
func (t *Tape) Div(a, b Vec) Vec { return t.binary(opDiv, "Div", a, b) }

func (t *Tape) unary(f uint8, a Vec) Vec {
	out := t.newVec(int(a.n))
	y, x := t.vals(out), t.vals(a)
	for i, v := range x {
		switch f {
		case fExp:
			y[i] = math.Exp(v)
		case fLog:
			y[i] = math.Log(v)
		case fSquare:
			y[i] = v * v
		case fSqrt:
			y[i] = math.Sqrt(v)
		case fSoftplus:
			y[i] = max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
		case fSigmoid:
			y[i] = sigmoid(v)
		case fTanh:
			y[i] = math.Tanh(v)
		case fNeg:
			y[i] = -v
		case fLog1m:
			y[i] = math.Log1p(-v)
		}
	}
	t.push(node{op: opUnary, fn: f, out: out, a: a})
	return out
}

func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

// Exp returns eˣ element-wise.
func (t *Tape) Exp(a Vec) Vec { return t.unary(fExp, a) }

// Log returns log x element-wise.
func (t *Tape) Log(a Vec) Vec { return t.unary(fLog, a) }

// Log1m returns log(1 − x) element-wise.
func (t *Tape) Log1m(a Vec) Vec { return t.unary(fLog1m, a) }

// Square returns x² element-wise.
func (t *Tape) Square(a Vec) Vec { return t.unary(fSquare, a) }

// Sqrt returns √x element-wise.
func (t *Tape) Sqrt(a Vec) Vec { return t.unary(fSqrt, a) }

// Softplus returns log(1 + eˣ) element-wise (Stan's log1p_exp).
func (t *Tape) Softplus(a Vec) Vec { return t.unary(fSoftplus, a) }

// Sigmoid returns 1/(1 + e⁻ˣ) element-wise (Stan's inv_logit).
func (t *Tape) Sigmoid(a Vec) Vec { return t.unary(fSigmoid, a) }

// Tanh returns tanh x element-wise.
func (t *Tape) Tanh(a Vec) Vec { return t.unary(fTanh, a) }

// Neg returns −x element-wise.
func (t *Tape) Neg(a Vec) Vec { return t.unary(fNeg, a) }

// Sum returns Σᵢ aᵢ as a scalar.
func (t *Tape) Sum(a Vec) Vec {
	out := t.newVec(1)
	var s float64
	for _, v := range t.vals(a) {
		s += v
	}
	t.val[out.off] = s
	t.push(node{op: opSum, out: out, a: a})
	return out
}

// Total returns the sum of scalars (for example the terms of a log density).
func (t *Tape) Total(terms ...Vec) Vec {
	if len(terms) == 0 {
		return t.Const(0)
	}
	s := terms[0]
	for _, v := range terms[1:] {
		s = t.Add(s, v)
	}
	return s
}

// Dot returns aᵀb as a scalar.
func (t *Tape) Dot(a, b Vec) Vec {
	if a.n != b.n {
		panic(fmt.Sprintf("ad: Dot of vectors of lengths %d and %d", a.n, b.n))
	}
	out := t.newVec(1)
	t.val[out.off] = floats.Dot(t.vals(a), t.vals(b))
	t.push(node{op: opDot, out: out, a: a, b: b})
	return out
}

// Index returns the vector whose element k is v[idx[r]], r = batch[k] (r = k
// for a nil batch): for example a group's intercept for each row.
func (t *Tape) Index(v Vec, idx, batch []int) Vec {
	n := len(idx)
	if batch != nil {
		n = len(batch)
	}
	out := t.newVec(n)
	y, x := t.vals(out), t.vals(v)
	for k := range y {
		r := k
		if batch != nil {
			r = batch[k]
		}
		y[k] = x[idx[r]]
	}
	t.push(node{op: opIndex, out: out, a: v, idx: idx, batch: batch})
	return out
}

// Select returns the elements v[batch[k]] (v itself for a nil batch): a
// per-observation parameter restricted to a minibatch.
func (t *Tape) Select(v Vec, batch []int) Vec {
	if batch == nil {
		return v
	}
	out := t.newVec(len(batch))
	y, x := t.vals(out), t.vals(v)
	for k, i := range batch {
		y[k] = x[i]
	}
	t.push(node{op: opIndex, out: out, a: v, batch: batch})
	return out
}

// backward adds the node's contribution to the adjoints of its inputs.
func (nd *node) backward(t *Tape) {
	g := t.adj[nd.out.off : nd.out.off+nd.out.n]
	switch nd.op {
	case opAdd, opSub, opMul, opDiv:
		a, b := nd.a, nd.b
		ga, gb := t.adjs(a), t.adjs(b)
		x, z := t.vals(a), t.vals(b)
		if binaryBack(nd.op, g, ga, gb, x[:a.n], z[:b.n]) {
			return
		}
		sa, sb := st(a), st(b)
		for i, gi := range g {
			if gi == 0 {
				continue
			}
			u, v := x[i*sa], z[i*sb]
			switch nd.op {
			case opAdd:
				if ga != nil {
					ga[i*sa] += gi
				}
				if gb != nil {
					gb[i*sb] += gi
				}
			case opSub:
				if ga != nil {
					ga[i*sa] += gi
				}
				if gb != nil {
					gb[i*sb] -= gi
				}
			case opMul:
				if ga != nil {
					ga[i*sa] += gi * v
				}
				if gb != nil {
					gb[i*sb] += gi * u
				}
			case opDiv:
				if ga != nil {
					ga[i*sa] += gi / v
				}
				if gb != nil {
					gb[i*sb] -= gi * u / (v * v)
				}
			}
		}
	case opUnary:
		ga := t.adjs(nd.a)
		if ga == nil {
			return
		}
		x, y := t.vals(nd.a), t.vals(nd.out)
		for i, gi := range g {
			var d float64
			switch nd.fn {
			case fExp:
				d = y[i]
			case fLog:
				d = 1 / x[i]
			case fSquare:
				d = 2 * x[i]
			case fSqrt:
				d = 0.5 / y[i]
			case fSoftplus:
				d = sigmoid(x[i])
			case fSigmoid:
				d = y[i] * (1 - y[i])
			case fTanh:
				d = 1 - y[i]*y[i]
			case fNeg:
				d = -1
			case fLog1m:
				d = -1 / (1 - x[i])
			}
			ga[i] += gi * d
		}
	case opSum:
		if ga := t.adjs(nd.a); ga != nil {
			for i := range ga {
				ga[i] += g[0]
			}
		}
	case opDot:
		if ga := t.adjs(nd.a); ga != nil {
			floats.AddScaled(ga, g[0], t.vals(nd.b))
		}
		if gb := t.adjs(nd.b); gb != nil {
			floats.AddScaled(gb, g[0], t.vals(nd.a))
		}
	case opIndex:
		ga := t.adjs(nd.a)
		if ga == nil {
			return
		}
		for k, gk := range g {
			r := k
			if nd.batch != nil {
				r = nd.batch[k]
			}
			if nd.idx != nil {
				r = nd.idx[r]
			}
			ga[r] += gk
		}
	case opMatVec:
		nd.x.matVecBack(t, nd, g)
	case opMatMulT:
		nd.x.matMulTBack(t, nd, g)
	case opDensity, opGLM:
		for k, a := range nd.args {
			if nd.part[k] < 0 || a.isConst() || a.n == 0 {
				continue
			}
			ga := t.adjs(a)
			floats.AddScaled(ga, g[0], t.val[nd.part[k]:nd.part[k]+a.n])
		}
	case opScan:
		nd.scanBack(t, g)
	case opConcat:
		if ga := t.adjs(nd.a); ga != nil {
			for i := range ga {
				ga[i] += g[i]
			}
		}
		if gb := t.adjs(nd.b); gb != nil {
			for i := range gb {
				gb[i] += g[int(nd.a.n)+i]
			}
		}
	case opMatMul:
		nd.matMulBack(t, g)
	case opCholEff:
		nd.cholEffBack(t, g)
	case opGroupMatVec:
		nd.groupMatVecBack(t, g)
	case opGram:
		nd.gramBack(t, g)
	case opMap:
		nd.mapBack(t, g)
	case opGather:
		nd.gatherBack(t, g)
	case opConstrain:
		nd.tr.Backward(t.adjs(nd.a), t.vals(nd.a), t.vals(nd.out), g, t.jacAdj)
	}
}

// binaryBack is the backward pass of an element-wise operation when at most
// one of its inputs has adjoints (a parameter and data, the usual case):
// one loop per operation and broadcast, a broadcast scalar's adjoint summed
// in a register. The sums are those of the general loop, term by term in
// the same order, so the gradient is the same to the bit. It returns false
// (and does nothing) when both inputs have adjoints, which may share
// storage.
func binaryBack(o op, g, ga, gb, x, z []float64) bool {
	switch {
	case ga != nil && gb != nil:
		return false
	case ga == nil && gb == nil:
		return true
	}
	n := len(g)
	if ga != nil { // ∂/∂a: Add, Sub gi; Mul gi·z; Div gi/z
		if len(ga) == 1 {
			s := ga[0]
			switch o {
			case opAdd, opSub:
				for _, gi := range g {
					if gi != 0 {
						s += gi
					}
				}
			case opMul:
				if len(z) == 1 {
					for _, gi := range g {
						if gi != 0 {
							s += gi * z[0]
						}
					}
				} else {
					z = z[:n]
					for i, gi := range g {
						if gi != 0 {
							s += gi * z[i]
						}
					}
				}
			case opDiv:
				if len(z) == 1 {
					for _, gi := range g {
						if gi != 0 {
							s += gi / z[0]
						}
					}
				} else {
					z = z[:n]
					for i, gi := range g {
						if gi != 0 {
							s += gi / z[i]
						}
					}
				}
			}
			ga[0] = s
			return true
		}
		ga = ga[:n]
		switch o {
		case opAdd, opSub:
			for i, gi := range g {
				if gi != 0 {
					ga[i] += gi
				}
			}
		case opMul:
			if len(z) == 1 {
				for i, gi := range g {
					if gi != 0 {
						ga[i] += gi * z[0]
					}
				}
			} else {
				z = z[:n]
				for i, gi := range g {
					if gi != 0 {
						ga[i] += gi * z[i]
					}
				}
			}
		case opDiv:
			if len(z) == 1 {
				for i, gi := range g {
					if gi != 0 {
						ga[i] += gi / z[0]
					}
				}
			} else {
				z = z[:n]
				for i, gi := range g {
					if gi != 0 {
						ga[i] += gi / z[i]
					}
				}
			}
		}
		return true
	}
	// ∂/∂b: Add gi; Sub −gi; Mul gi·x; Div −gi·x/z²
	if len(gb) == 1 {
		s := gb[0]
		switch o {
		case opAdd:
			for _, gi := range g {
				if gi != 0 {
					s += gi
				}
			}
		case opSub:
			for _, gi := range g {
				if gi != 0 {
					s -= gi
				}
			}
		case opMul:
			if len(x) == 1 {
				for _, gi := range g {
					if gi != 0 {
						s += gi * x[0]
					}
				}
			} else {
				x = x[:n]
				for i, gi := range g {
					if gi != 0 {
						s += gi * x[i]
					}
				}
			}
		default:
			return false
		}
		gb[0] = s
		return true
	}
	gb = gb[:n]
	switch o {
	case opAdd:
		for i, gi := range g {
			if gi != 0 {
				gb[i] += gi
			}
		}
	case opSub:
		for i, gi := range g {
			if gi != 0 {
				gb[i] -= gi
			}
		}
	case opMul:
		if len(x) == 1 {
			for i, gi := range g {
				if gi != 0 {
					gb[i] += gi * x[0]
				}
			}
		} else {
			x = x[:n]
			for i, gi := range g {
				if gi != 0 {
					gb[i] += gi * x[i]
				}
			}
		}
	default:
		return false
	}
	return true
}
