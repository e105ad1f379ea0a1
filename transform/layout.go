package transform

import (
	"fmt"
	"strconv"
	"strings"
)

// Layout lays out named parameter blocks in one unconstrained vector θ, as
// Stan's parameters block does:
//
//	var l transform.Layout
//	mu := l.Add("mu", transform.Identity(1))
//	tau := l.Add("tau", transform.Positive(1))
//	w := l.Add("w", transform.Identity(24), 2, 3, 4)
//
// Names follow the CmdStan CSV convention with 1-based indices: a scalar is
// "tau", a vector "beta.1", …, an array "w.1.3.2" (row-major, the last index
// fastest). The unconstrained values are named with the transform's prefix
// ("log_tau", "free_L.1"); the constrained values of every non-identity block
// are the derived quantities (DerivedNames, Constrain) that a run stores after
// the parameters. Build the layout once, before use; after that it is
// read-only and safe for concurrent use.
type Layout struct {
	blocks       []Block
	size, length int
	derived      int // constrained values of the non-identity blocks
}

// Block is one named parameter block of a Layout.
type Block struct {
	Name     string
	T        Transform
	Dims     []int
	Index    int // position of the block in its layout
	Off      int // offset of its unconstrained values in θ
	YOff     int // offset of its constrained values in the vector Constrain writes
	DerivOff int // offset of its constrained values among the derived quantities, −1 for an identity
	identity bool
}

// Free returns the block's unconstrained values in θ.
func (b Block) Free(theta []float64) []float64 { return theta[b.Off : b.Off+b.T.Size()] }

// Of returns the block's constrained values in y (as Constrain writes it).
func (b Block) Of(y []float64) []float64 { return y[b.YOff : b.YOff+b.T.Len()] }

// Add appends a block called name with transform t and returns it. The dims
// name the constrained values as an array (their product must be t.Len());
// without dims a block of one value is a scalar and a longer one a vector
// (a CholeskyCorr of size K is named as a K×K matrix). Add panics on a
// repeated or empty name or dims that do not fit: layouts are written by
// programmers, not read from input.
func (l *Layout) Add(name string, t Transform, dims ...int) Block {
	if name == "" || strings.ContainsAny(name, ". ,\"") {
		panic(fmt.Sprintf("transform: Layout.Add(%q): expected a name without dots, spaces, commas or quotes", name))
	}
	for _, b := range l.blocks {
		if b.Name == name {
			panic(fmt.Sprintf("transform: Layout.Add(%q): name already used", name))
		}
	}
	if dims == nil {
		switch c := t.(type) {
		case CholeskyCorr:
			dims = []int{int(c), int(c)}
		default:
			if t.Len() != 1 {
				dims = []int{t.Len()}
			}
		}
	}
	n := 1
	for _, d := range dims {
		n *= d
	}
	if n != t.Len() || t.Len() < 1 {
		panic(fmt.Sprintf("transform: Layout.Add(%q): dims %v hold %d values, the transform has %d", name, dims, n, t.Len()))
	}
	_, id := t.(Identity)
	b := Block{Name: name, T: t, Dims: append([]int(nil), dims...), Index: len(l.blocks), Off: l.size, YOff: l.length, DerivOff: -1, identity: id}
	if !id {
		b.DerivOff = l.derived
		l.derived += t.Len()
	}
	l.blocks = append(l.blocks, b)
	l.size += t.Size()
	l.length += t.Len()
	return b
}

// Blocks returns the blocks in order.
func (l *Layout) Blocks() []Block { return l.blocks }

// Dim returns the number of unconstrained values, the length of θ.
func (l *Layout) Dim() int { return l.size }

// Len returns the number of constrained values of all blocks.
func (l *Layout) Len() int { return l.length }

// indexNames returns name.i.j… for the dims (row-major), or name alone.
func indexNames(name string, dims []int) []string {
	if len(dims) == 0 {
		return []string{name}
	}
	n := 1
	for _, d := range dims {
		n *= d
	}
	out := make([]string, n)
	idx := make([]int, len(dims))
	for k := range out {
		var sb strings.Builder
		sb.WriteString(name)
		for _, i := range idx {
			sb.WriteByte('.')
			sb.WriteString(strconv.Itoa(i + 1))
		}
		out[k] = sb.String()
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

// Names returns the names of the unconstrained values: the block's names
// for an identity and for elementwise transforms with the prefix ("log_tau",
// "logit_p.2"), and prefix + name + ".k" (k = 1 … Size) for the vector
// transforms (ordered, simplex, Cholesky).
func (l *Layout) Names() []string {
	out := make([]string, 0, l.size)
	for _, b := range l.blocks {
		if b.T.Size() == 0 {
			continue
		}
		if b.T.Size() == b.T.Len() && !isVectorTransform(b.T) {
			out = append(out, indexNames(b.T.Prefix()+b.Name, b.Dims)...)
			continue
		}
		dims := []int{b.T.Size()}
		out = append(out, indexNames(b.T.Prefix()+b.Name, dims)...)
	}
	return out
}

func isVectorTransform(t Transform) bool {
	switch t.(type) {
	case Ordered, Simplex, CholeskyCorr:
		return true
	}
	return false
}

// ConstrainedNames returns the names of all constrained values in the order
// Constrain writes them.
func (l *Layout) ConstrainedNames() []string {
	out := make([]string, 0, l.length)
	for _, b := range l.blocks {
		out = append(out, indexNames(b.Name, b.Dims)...)
	}
	return out
}

// DerivedNames returns the constrained names of the non-identity blocks: the
// derived quantities a run stores after θ.
func (l *Layout) DerivedNames() []string {
	out := make([]string, 0, l.derived)
	for _, b := range l.blocks {
		if !b.identity {
			out = append(out, indexNames(b.Name, b.Dims)...)
		}
	}
	return out
}

// Constrain writes the constrained values of θ into y (len Len) and returns
// the total log Jacobian.
func (l *Layout) Constrain(y, theta []float64) float64 {
	var lj float64
	for _, b := range l.blocks {
		lj += b.T.Forward(b.Of(y), b.Free(theta))
	}
	return lj
}

// Derive writes the constrained values of the non-identity blocks into dst
// (len(DerivedNames())).
func (l *Layout) Derive(theta, dst []float64) {
	for _, b := range l.blocks {
		if !b.identity {
			b.T.Forward(dst[b.DerivOff:b.DerivOff+b.T.Len()], b.Free(theta))
		}
	}
}

// Unconstrain writes θ = f⁻¹(y) for the constrained values y (len Len) into
// theta (len Dim), or returns an error naming the block and value outside its
// support.
func (l *Layout) Unconstrain(theta, y []float64) error {
	for _, b := range l.blocks {
		if err := b.T.Inverse(b.Free(theta), b.Of(y)); err != nil {
			return fmt.Errorf("parameter %s: %w", b.Name, err)
		}
	}
	return nil
}
