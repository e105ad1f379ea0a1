package data

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Rows is a table of n observations of p features and a response read a
// block of rows at a time instead of held in memory: a *Store, a Dataset,
// and the views below (a split, a standardisation) over either. It is the
// method set of model.Rows, restated here so that data imports no model.
type Rows interface {
	Len() int // n
	Dim() int // p
	// ReadRows writes rows lo, …, lo+len(y)−1: their features into x
	// (row-major, len(y)·p values) and their responses into y. It must be
	// safe for concurrent use and allocate nothing.
	ReadRows(lo int, x, y []float64)
}

// ReadRows writes rows lo, …, lo+len(y)−1 of d into x (row-major) and y, so
// that a Dataset in memory is Rows.
func (d *Dataset) ReadRows(lo int, x, y []float64) {
	p := d.Dim()
	for i := range y {
		if p > 0 {
			copy(x[i*p:(i+1)*p], d.X.RawRowView(lo+i))
		}
		y[i] = d.Y[lo+i]
	}
}

// rowsBlock is the number of rows a pass over Rows reads at a time.
const rowsBlock = 4096

// Blocks returns the rows of src in order, as blocks of at most size rows
// (0 means 4096): the features as a matrix and the responses. The matrix and
// slice are reused from block to block.
func Blocks(src Rows, size int) iter.Seq2[*mat.Dense, []float64] {
	if size <= 0 {
		size = rowsBlock
	}
	return func(yield func(*mat.Dense, []float64) bool) {
		n, p := src.Len(), src.Dim()
		if n == 0 || p == 0 {
			return
		}
		size := min(size, n)
		x := make([]float64, size*p)
		y := make([]float64, size)
		for lo := 0; lo < n; lo += size {
			k := min(size, n-lo)
			src.ReadRows(lo, x[:k*p], y[:k])
			if !yield(mat.NewDense(k, p, x[:k*p]), y[:k]) {
				return
			}
		}
	}
}

// FitScalerRows returns the Scaler of FitScaler for the rows of src, read
// in two passes of blocks (one for the means, minima and maxima, one for the
// sums of squared deviations) with FitScaler's arithmetic in FitScaler's
// order, so that the Scaler is the same bit for bit as that of the table
// in memory; its memory is O(p) besides one block.
func FitScalerRows(src Rows) *Scaler {
	n, d := src.Len(), src.Dim()
	if n == 0 || d == 0 {
		return &Scaler{}
	}
	s := &Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
	sum := make([]float64, d)
	lo, hi := make([]float64, d), make([]float64, d)
	first := make([]float64, d)
	for j := range d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	start := true
	for X, _ := range Blocks(src, 0) {
		r, _ := X.Dims()
		if start {
			copy(first, X.RawRowView(0))
			start = false
		}
		for i := range r {
			for j, v := range X.RawRowView(i) {
				sum[j] += v
				lo[j] = math.Min(lo[j], v)
				hi[j] = math.Max(hi[j], v)
			}
		}
	}
	mean := make([]float64, d)
	live := false // a column that needs the second pass
	for j := range d {
		if lo[j] == hi[j] || n < 2 {
			s.Mean[j], s.Scale[j] = first[j], 1
			continue
		}
		mean[j] = sum[j] / float64(n)
		live = true
	}
	if !live {
		return s
	}
	ss, c := make([]float64, d), make([]float64, d)
	for X, _ := range Blocks(src, 0) {
		r, _ := X.Dims()
		for i := range r {
			for j, v := range X.RawRowView(i) {
				dv := v - mean[j]
				ss[j] += dv * dv
				c[j] += dv
			}
		}
	}
	for j := range d {
		if lo[j] == hi[j] {
			continue
		}
		v := (ss[j] - c[j]*c[j]/float64(n)) / float64(n-1)
		s.Mean[j] = mean[j]
		s.Scale[j] = math.Sqrt(v)
		if !(s.Scale[j] > 0) || math.IsInf(s.Scale[j], 0) {
			s.Scale[j] = 1
		}
	}
	return s
}

// ScaledRows is the view of Rows standardised on the fly by a Scaler:
// ReadRows returns (x − Mean)/Scale, computed as Transform does, without
// copying the table.
type ScaledRows struct {
	src Rows
	s   *Scaler
}

// View returns src standardised by s as it is read. It panics if s was
// fitted on another number of columns.
func (s *Scaler) View(src Rows) *ScaledRows {
	if src.Dim() != len(s.Mean) || src.Dim() != len(s.Scale) {
		panic(fmt.Sprintf("data: Scaler fitted on %d columns applied to rows of %d columns", len(s.Mean), src.Dim()))
	}
	return &ScaledRows{src: src, s: s}
}

// Len returns the number of rows.
func (v *ScaledRows) Len() int { return v.src.Len() }

// Dim returns the number of features.
func (v *ScaledRows) Dim() int { return v.src.Dim() }

// ReadRows reads rows lo, …, lo+len(y)−1 and standardises their features.
func (v *ScaledRows) ReadRows(lo int, x, y []float64) {
	v.src.ReadRows(lo, x, y)
	p := v.src.Dim()
	mean, scale := v.s.Mean[:p], v.s.Scale[:p]
	for i := range y {
		row := x[i*p : (i+1)*p : (i+1)*p]
		for j, u := range row {
			row[j] = (u - mean[j]) / scale[j]
		}
	}
}

// RowSubset is the view of the rows of a table that one side of SplitRows
// holds, in their order in the table.
type RowSubset struct {
	src   Rows
	bits  []uint64 // bit i set: row i of src is in the test set
	test  bool     // the subset holds the rows whose bit is set (else clear)
	all   bool     // no bits: the subset is every row (or none, when test)
	ranks []int    // ranks[b]: rows of the subset before row 512·b
	n     int
	pool  *sync.Pool
}

// splitSuper is the rows per entry of a RowSubset's rank index.
const splitSuper = 512

// SplitRows splits the rows of src into a training and a test set without
// copying them: row i (0-based) goes to the test set when h(seed, i) <
// testFrac·2⁶⁴, h a 64-bit mix of the seed and the row number (SplitMix64's
// finaliser). So each row is a test row with probability testFrac,
// independently of the others and of its place in the file — a file sorted
// by label or by time, or with a period, splits as well as a shuffled one
// (an interleaved split, every k-th row, would not) — the test set has about
// testFrac·n rows (binomially distributed), and the split is the same on
// every machine. The views keep one bit per row and a rank index, n/8 +
// n/64 bytes (14 MB for 10⁸ rows), instead of the 8n bytes of a permuted
// index; a minibatch row is found with a few popcounts, and a block of rows
// is read as one run of the table. testFrac 0 gives every row to the
// training set and keeps no bits.
func SplitRows(src Rows, testFrac float64, seed uint64) (train, test *RowSubset) {
	if !(testFrac >= 0 && testFrac <= 1) {
		panic(fmt.Sprintf("data: SplitRows fraction %v not in [0, 1]", testFrac))
	}
	n := src.Len()
	pool := &sync.Pool{New: func() any {
		b := make([]float64, rowsBlock*(src.Dim()+1))
		return &b
	}}
	if testFrac == 0 {
		return &RowSubset{src: src, all: true, n: n, pool: pool},
			&RowSubset{src: src, all: true, test: true, pool: pool}
	}
	words := (n + 63) / 64
	b := make([]uint64, words)
	thr := uint64(math.MaxUint64)
	if testFrac < 1 {
		thr = uint64(testFrac * (1 << 64))
	}
	for i := range n {
		if h := splitHash(seed, uint64(i)); h < thr || thr == math.MaxUint64 {
			b[i/64] |= 1 << (i % 64)
		}
	}
	ranks := func(want bool) ([]int, int) {
		r := make([]int, (n+splitSuper-1)/splitSuper+1)
		c := 0
		for w, v := range b {
			if w%(splitSuper/64) == 0 {
				r[w/(splitSuper/64)] = c
			}
			k := bits.OnesCount64(v)
			if !want {
				k = min(64, n-64*w) - k
			}
			c += k
		}
		r[len(r)-1] = c
		return r, c
	}
	tr, ntr := ranks(false)
	te, nte := ranks(true)
	return &RowSubset{src: src, bits: b, ranks: tr, n: ntr, pool: pool},
		&RowSubset{src: src, bits: b, test: true, ranks: te, n: nte, pool: pool}
}

// splitHash mixes the seed and the row number (SplitMix64's finaliser).
func splitHash(seed, i uint64) uint64 {
	z := i + (seed+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Len returns the number of rows in the subset.
func (s *RowSubset) Len() int { return s.n }

// Dim returns the number of features.
func (s *RowSubset) Dim() int { return s.src.Dim() }

// word returns word w of the subset's membership bits.
func (s *RowSubset) word(w int) uint64 {
	v := s.bits[w]
	if !s.test {
		v = ^v
		if rest := s.src.Len() - 64*w; rest < 64 {
			v &= 1<<rest - 1
		}
	}
	return v
}

// Row returns the row of the table that is row k (0-based) of the subset.
func (s *RowSubset) Row(k int) int {
	if k < 0 || k >= s.n {
		panic(fmt.Sprintf("data: RowSubset.Row(%d) of %d rows", k, s.n))
	}
	if s.all {
		return k
	}
	// The last superblock with fewer than k+1 rows before it.
	b := sort.Search(len(s.ranks), func(b int) bool { return s.ranks[b] > k }) - 1
	left := k - s.ranks[b]
	for w := b * (splitSuper / 64); ; w++ {
		v := s.word(w)
		c := bits.OnesCount64(v)
		if left < c {
			for range left {
				v &= v - 1 // clear the lowest set bit
			}
			return 64*w + bits.TrailingZeros64(v)
		}
		left -= c
	}
}

// ReadRows writes rows lo, …, lo+len(y)−1 of the subset into x and y: one
// row is read where it is; a block is read as the run of table rows that
// spans it, a block of 4096 table rows at a time, and its members copied
// out.
func (s *RowSubset) ReadRows(lo int, x, y []float64) {
	k := len(y)
	if lo < 0 || lo+k > s.n {
		panic(fmt.Sprintf("data: RowSubset.ReadRows: rows [%d, %d) of %d", lo, lo+k, s.n))
	}
	if k == 0 {
		return
	}
	if s.all {
		s.src.ReadRows(lo, x, y)
		return
	}
	r := s.Row(lo)
	if k == 1 {
		s.src.ReadRows(r, x, y)
		return
	}
	end := s.Row(lo+k-1) + 1
	p := s.src.Dim()
	bp := s.pool.Get().(*[]float64)
	defer s.pool.Put(bp)
	buf := *bp
	got := 0
	for r < end {
		m := min(rowsBlock, end-r)
		bx, by := buf[:m*p], buf[rowsBlock*p:rowsBlock*p+m]
		s.src.ReadRows(r, bx, by)
		for i := range m {
			row := r + i
			if (s.bits[row/64]>>(row%64)&1 == 1) == s.test {
				copy(x[got*p:(got+1)*p], bx[i*p:(i+1)*p])
				y[got] = by[i]
				got++
			}
		}
		r += m
	}
}
