package ad

import (
	"fmt"
	"strconv"
)

// Generated declares quantities that the model's Prior or Lik compute on
// the way to the log density — a hierarchical model's group effects
// diag(σ)·L·z, a state-space model's latent path — and that a run should
// store with every draw. The model writes them once: inside Prior or Lik,
// Tape.Generate(b, v) records v when the tape is computing generated
// quantities and costs nothing otherwise, so the same code gives the log
// density, its gradient and the stored values.
//
//	var gq ad.Generated
//	hq := gq.Add("h", T)
//	m := ad.New(&l, T, prior, func(t *ad.Tape, batch []int) ad.Vec {
//		h := …
//		t.Generate(hq, h)
//		…
//	}).WithGenerated(&gq)
//
// Model.Derive runs Prior, then (only if a block is still missing) Lik on
// an empty batch — so a quantity written in Lik must not depend on the
// batch's rows, and its cost is that of the parameters alone, not of a
// pass over the data. Build a Generated before the model; it is read-only
// after.
type Generated struct {
	blocks []GenBlock
	names  []string
	n      int
}

// GenBlock is one named block of generated quantities.
type GenBlock struct {
	Index, Off, Len int
}

// Add appends a block of prod(dims) values (one without dims) named as the
// CmdStan CSV convention names an array: name, name.1, name.1.2, … (1-based,
// row-major).
func (g *Generated) Add(name string, dims ...int) GenBlock {
	return g.AddNamed(indexNames(name, dims))
}

// AddNamed appends a block whose values carry the given column names.
func (g *Generated) AddNamed(names []string) GenBlock {
	if len(names) == 0 {
		panic("ad: Generated.AddNamed with no names")
	}
	b := GenBlock{Index: len(g.blocks), Off: g.n, Len: len(names)}
	g.blocks = append(g.blocks, b)
	g.names = append(g.names, names...)
	g.n += len(names)
	return b
}

// Names returns the column names of all generated values, in order.
func (g *Generated) Names() []string { return g.names }

// Len returns the number of generated values.
func (g *Generated) Len() int { return g.n }

func indexNames(name string, dims []int) []string {
	n := 1
	for _, d := range dims {
		n *= d
	}
	if len(dims) == 0 {
		return []string{name}
	}
	out := make([]string, n)
	idx := make([]int, len(dims))
	for k := range out {
		s := name
		for _, i := range idx {
			s += "." + strconv.Itoa(i+1)
		}
		out[k] = s
		for a := len(idx) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < dims[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}

// Generate records v as the generated block b when the tape computes
// generated quantities (Model.Derive); otherwise it does nothing.
func (t *Tape) Generate(b GenBlock, v Vec) {
	if t.gen == nil {
		return
	}
	if int(v.n) != b.Len {
		panic(fmt.Sprintf("ad: Generate of %d values into a block of %d", v.n, b.Len))
	}
	copy(t.gen[b.Off:b.Off+b.Len], t.vals(v))
	t.genHave[b.Index] = true
}

// WithGenerated attaches the generated quantities g to m (see Generated)
// and returns m; call it before the model is used.
func (m *Model) WithGenerated(g *Generated) *Model {
	m.gen = g
	return m
}

var emptyBatch = []int{}

// Generate writes m's generated quantities (WithGenerated) at θ into dst
// (len Generated.Len()).
func (m *Model) Generate(theta, dst []float64) {
	t := m.pool.Get().(*Tape)
	t.reset(theta[:m.dim], false)
	t.jacAdj = 0
	if cap(t.genHave) < len(m.gen.blocks) {
		t.genHave = make([]bool, len(m.gen.blocks))
	}
	t.genHave = t.genHave[:len(m.gen.blocks)]
	clear(t.genHave)
	t.gen = dst
	if m.prior != nil {
		m.prior(t)
	}
	if !allTrue(t.genHave) {
		t.reset(theta[:m.dim], false)
		m.lik(t, emptyBatch)
	}
	for k, ok := range t.genHave {
		if !ok {
			panic(fmt.Sprintf("ad: generated block %q was not written by Prior or by Lik on an empty batch", m.gen.names[m.gen.blocks[k].Off]))
		}
	}
	t.gen = nil
	m.pool.Put(t)
}

func allTrue(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}
