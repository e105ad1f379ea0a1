package ad

import (
	"fmt"
	"math"
)

// Packed holds a model's per-row data — design matrices, integer columns
// (group codes, counts) and real columns (responses, offsets) — a second
// time, as one record per row: the row's values of every registered array
// side by side, in float64 words, two integers (as int32) to a word. A
// minibatch of scattered rows then reads one record per row instead of one
// cache line per row of each array: for y ~ x + (1 + x | g) (x, z = (1, x),
// the code of g, y: 4 words, 32 bytes) one line per two rows instead of four
// lines per row. Tape.Gather copies a batch's records into contiguous
// arrays on the tape, on which the operations run as on the original
// arrays: the same values in the same order, so the same results bit for
// bit.
//
// Build it with NewPacked, register the arrays (Matrix, Ints, Floats: each
// returns a handle), then Pack. Full-data passes (a nil batch) keep using
// the original arrays.
type Packed struct {
	n, stride int
	words     []float64
	mats      []packedMat
	ints      []packedInts
	flts      []packedFloats
	nint      int // int32 halves allotted
}

type packedMat struct {
	X   *Matrix
	off int // first word
}

type packedInts struct {
	k   []int
	off int // half-word: word off/2, low half when even
}

type packedFloats struct {
	x   []float64
	off int
}

// NewPacked returns an empty record layout for n rows.
func NewPacked(n int) *Packed { return &Packed{n: n} }

// Len returns the number of rows.
func (p *Packed) Len() int { return p.n }

// Stride returns the words (8 bytes) of one row's record (after Pack).
func (p *Packed) Stride() int { return p.stride }

// Matrix registers the rows of X and returns its handle for
// Gathered.Matrix.
func (p *Packed) Matrix(X *Matrix) int {
	if X.n != p.n {
		panic(fmt.Sprintf("ad: Packed of %d rows given a %d×%d matrix", p.n, X.n, X.p))
	}
	p.mats = append(p.mats, packedMat{X: X})
	return len(p.mats) - 1
}

// Ints registers the integer column k, whose values must fit in an int32,
// and returns its handle for Gathered.Ints.
func (p *Packed) Ints(k []int) int {
	if len(k) != p.n {
		panic(fmt.Sprintf("ad: Packed of %d rows given %d integers", p.n, len(k)))
	}
	p.ints = append(p.ints, packedInts{k: k})
	return len(p.ints) - 1
}

// Floats registers the real column x and returns its handle for
// Gathered.Floats.
func (p *Packed) Floats(x []float64) int {
	if len(x) != p.n {
		panic(fmt.Sprintf("ad: Packed of %d rows given %d values", p.n, len(x)))
	}
	p.flts = append(p.flts, packedFloats{x: x})
	return len(p.flts) - 1
}

// Pack lays out and fills the records. It fails, naming the value, if an
// integer does not fit in an int32.
func (p *Packed) Pack() error {
	w := 0
	for i := range p.mats {
		p.mats[i].off = w
		w += p.mats[i].X.p
	}
	for i := range p.flts {
		p.flts[i].off = w
		w++
	}
	for i := range p.ints {
		p.ints[i].off = 2*w + i
	}
	w += (len(p.ints) + 1) / 2
	p.stride = w
	p.words = make([]float64, p.n*w)
	for _, m := range p.mats {
		X := m.X
		for r := 0; r < p.n; r++ {
			for j := 0; j < X.p; j++ {
				if X.rows != nil {
					p.words[r*w+m.off+j] = X.rows[r*X.p+j]
				} else {
					p.words[r*w+m.off+j] = X.cols[j*X.n+r]
				}
			}
		}
	}
	for _, f := range p.flts {
		for r, v := range f.x {
			p.words[r*w+f.off] = v
		}
	}
	for c, k := range p.ints {
		for r, v := range k.k {
			if v != int(int32(v)) {
				return fmt.Errorf("ad: packed integer column %d, row %d: %d does not fit in 32 bits", c+1, r+1, v)
			}
			i := r*w + k.off/2
			bits := math.Float64bits(p.words[i])
			if k.off%2 == 0 {
				bits = bits&^0xffffffff | uint64(uint32(int32(v)))
			} else {
				bits = bits&0xffffffff | uint64(uint32(int32(v)))<<32
			}
			p.words[i] = math.Float64frombits(bits)
		}
	}
	return nil
}

// Record returns row r's record (read-only): each registered array's
// values at r, at the word offsets MatrixOffset and FloatOffset, and the
// integers read by Int. For a loop over a few scattered rows that reads
// them in place rather than through Tape.Gather.
func (p *Packed) Record(r int) []float64 { return p.words[r*p.stride : (r+1)*p.stride] }

// Touch reads the first word of each row's record in batch and returns
// their sum: independent loads, so the processor overlaps their cache
// misses, where a loop that reads each record amid longer work waits for
// one miss at a time. Add 0·Touch(batch) to a result that is used, so
// that the loads are kept.
func (p *Packed) Touch(batch []int) float64 {
	var s float64
	w, words := p.stride, p.words
	for _, r := range batch {
		s += words[r*w]
	}
	return s
}

// MatrixOffset returns the first word of the registered matrix h's row in
// a record.
func (p *Packed) MatrixOffset(h int) int { return p.mats[h].off }

// FloatOffset returns the word of the registered real column h in a record.
func (p *Packed) FloatOffset(h int) int { return p.flts[h].off }

// Int returns the registered integer column h's value in the record rec.
func (p *Packed) Int(rec []float64, h int) int {
	off := p.ints[h].off
	return int(int32(uint32(math.Float64bits(rec[off/2]) >> uint(32*(off%2)))))
}

// Gathered is a batch's rows of a Packed, contiguous: the arrays of the
// batch in the order of the batch, and Index, the batch 0, 1, …, |B|−1
// over them. It belongs to the tape and is valid until the tape's next
// Gather of the same Packed.
type Gathered struct {
	src   *Packed
	mats  []Matrix
	ints  [][]int
	flts  [][]float64
	index []int
	pair  uint64 // the tape's LogLikPair count when gathered
}

// Matrix returns the batch's rows of the registered matrix h (rows only:
// use it with Index as the batch).
func (g *Gathered) Matrix(h int) *Matrix { return &g.mats[h] }

// Ints returns the batch's values of the registered integer column h.
func (g *Gathered) Ints(h int) []int { return g.ints[h] }

// Floats returns the batch's values of the registered real column h.
func (g *Gathered) Floats(h int) []float64 { return g.flts[h] }

// Index returns 0, 1, …, |B|−1, the batch over the gathered arrays.
func (g *Gathered) Index() []int { return g.index }

// Gather copies the records of the rows batch (non-empty) of p into arrays
// owned by the tape and returns them. After the first call with the largest
// batch it allocates nothing.
func (t *Tape) Gather(p *Packed, batch []int) *Gathered {
	var g *Gathered
	for _, h := range t.gathered {
		if h.src == p {
			g = h
			break
		}
	}
	if g != nil && t.regather && g.pair == t.pair {
		return g // LogLikPair's second evaluation: the same batch, gathered by the first
	}
	if g == nil {
		g = &Gathered{src: p, mats: make([]Matrix, len(p.mats)), ints: make([][]int, len(p.ints)), flts: make([][]float64, len(p.flts))}
		t.gathered = append(t.gathered, g)
	}
	nb := len(batch)
	if cap(g.index) < nb {
		g.index = make([]int, nb)
		for i := range g.index {
			g.index[i] = i
		}
		for h, m := range p.mats {
			g.mats[h] = Matrix{p: m.X.p, rows: make([]float64, nb*m.X.p)}
		}
		for h := range g.ints {
			g.ints[h] = make([]int, nb)
		}
		for h := range g.flts {
			g.flts[h] = make([]float64, nb)
		}
	}
	g.pair = t.pair
	g.index = g.index[:nb]
	for h, m := range p.mats {
		g.mats[h].n = nb
		g.mats[h].rows = g.mats[h].rows[:cap(g.mats[h].rows)][:nb*m.X.p]
	}
	for h := range g.ints {
		g.ints[h] = g.ints[h][:nb]
	}
	for h := range g.flts {
		g.flts[h] = g.flts[h][:nb]
	}
	// One array at a time: each loop's loads are independent, so the
	// processor overlaps the cache misses of many rows (the first loop
	// brings each record into cache for the others).
	w := p.stride
	words := p.words
	for h, m := range p.mats {
		q, off, dst := m.X.p, m.off, g.mats[h].rows
		for k, r := range batch {
			rec := words[r*w+off : r*w+off+q]
			out := dst[k*q : (k+1)*q]
			for j := range out {
				out[j] = rec[j]
			}
		}
	}
	for h, f := range p.flts {
		dst, off := g.flts[h], f.off
		for k, r := range batch {
			dst[k] = words[r*w+off]
		}
	}
	for h, c := range p.ints {
		dst, off, shift := g.ints[h], c.off/2, uint(32*(c.off%2))
		for k, r := range batch {
			dst[k] = int(int32(uint32(math.Float64bits(words[r*w+off]) >> shift)))
		}
	}
	return g
}
