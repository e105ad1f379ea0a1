package ad

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Matrix is an n×p data matrix (design matrix) kept row-major, for the rows
// of a minibatch, and column-major, for full-data passes that run gonum's
// vector kernels down each column. It is read-only after NewMatrix and safe
// for concurrent use.
type Matrix struct {
	n, p int
	rows []float64 // n×p row-major
	cols []float64 // p×n row-major (Xᵀ)
}

// NewMatrix copies X.
func NewMatrix(X mat.Matrix) *Matrix {
	n, p := X.Dims()
	m := &Matrix{n: n, p: p, rows: make([]float64, n*p), cols: make([]float64, n*p)}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			v := X.At(i, j)
			m.rows[i*p+j] = v
			m.cols[j*n+i] = v
		}
	}
	return m
}

// NewMatrixCols returns the n×len(cols) matrix whose columns are cols
// (copied), stored by columns only: half the memory of NewMatrix, for the
// designs of models whose minibatches read their rows from a Packed (then
// the matrix itself serves full-data passes: MatVec, GroupMatVec; Row and
// the operations on a batch of its rows panic).
func NewMatrixCols(n int, cols [][]float64) *Matrix {
	m := &Matrix{n: n, p: len(cols), cols: make([]float64, n*len(cols))}
	for j, c := range cols {
		if len(c) != n {
			panic(fmt.Sprintf("ad: NewMatrixCols of %d rows given a column of %d", n, len(c)))
		}
		copy(m.cols[j*n:(j+1)*n], c)
	}
	return m
}

// AddRows stores the rows of a matrix made by NewMatrixCols as well, for
// operations on batches of its rows.
func (m *Matrix) AddRows() {
	if m.rows != nil {
		return
	}
	m.rows = make([]float64, m.n*m.p)
	for i := 0; i < m.n; i++ {
		for j := 0; j < m.p; j++ {
			m.rows[i*m.p+j] = m.cols[j*m.n+i]
		}
	}
}

// rowsOf returns the row-major storage of m for an operation on a batch
// of its rows.
func (m *Matrix) rowsOf(who string, batch int) []float64 {
	if m.rows == nil && m.n*m.p > 0 && batch > 0 {
		panic("ad: " + who + " on a batch of rows of a matrix stored by columns (NewMatrixCols): gather the batch from a Packed")
	}
	return m.rows
}

// Dims returns n and p.
func (m *Matrix) Dims() (n, p int) { return m.n, m.p }

// Col returns column j (read-only).
func (m *Matrix) Col(j int) []float64 { return m.cols[j*m.n : (j+1)*m.n] }

// Row returns row i (read-only).
func (m *Matrix) Row(i int) []float64 { return m.rowsOf("Row", 1)[i*m.p : (i+1)*m.p] }

// MatVec returns X_B v, the rows batch of X (all rows for a nil batch) times
// the vector v (length p).
func (t *Tape) MatVec(X *Matrix, v Vec, batch []int) Vec {
	if int(v.n) != X.p {
		panic(fmt.Sprintf("ad: MatVec of a %d×%d matrix and a vector of length %d", X.n, X.p, v.n))
	}
	n := X.n
	if batch != nil {
		n = len(batch)
	}
	out := t.newVec(n)
	y, b := t.vals(out), t.vals(v)
	if batch == nil {
		for j, bj := range b {
			floats.AddScaled(y, bj, X.cols[j*X.n:(j+1)*X.n])
		}
	} else if X.p < smallRow {
		p, rows := X.p, X.rowsOf("MatVec", len(batch))
		for k, i := range batch {
			var s float64
			for j, x := range rows[i*p : (i+1)*p] {
				s += x * b[j]
			}
			y[k] = s
		}
	} else {
		rows := X.rowsOf("MatVec", len(batch))
		for k, i := range batch {
			y[k] = floats.Dot(rows[i*X.p:(i+1)*X.p], b)
		}
	}
	t.push(node{op: opMatVec, out: out, a: v, x: X, batch: batch})
	return out
}

func (m *Matrix) matVecBack(t *Tape, nd *node, g []float64) {
	ga := t.adjs(nd.a)
	if ga == nil {
		return
	}
	if nd.batch == nil {
		for j := range ga {
			ga[j] += floats.Dot(g, m.cols[j*m.n:(j+1)*m.n])
		}
		return
	}
	rows := m.rowsOf("MatVec", len(nd.batch))
	if m.p < smallRow {
		p := m.p
		for k, i := range nd.batch {
			if c := g[k]; c != 0 {
				for j, x := range rows[i*p : (i+1)*p] {
					ga[j] += c * x
				}
			}
		}
		return
	}
	for k, i := range nd.batch {
		if g[k] != 0 {
			floats.AddScaled(ga, g[k], rows[i*m.p:(i+1)*m.p])
		}
	}
}

// smallRow is the row length below which a minibatch's rows are multiplied
// in a plain loop: gonum's vector kernels cost a call each, which for the
// one to seven columns of a typical regression design (a formula's
// population-level effects) is most of the work.
const smallRow = 8

// MatMulT returns X_B Wᵀ as an |B|×K row-major vector, where W is K×p
// row-major (K = len(W)/p): element (i, k) is xᵢᵀwₖ, for example the logits
// of K classes.
func (t *Tape) MatMulT(X *Matrix, W Vec, batch []int) Vec {
	if int(W.n)%X.p != 0 {
		panic(fmt.Sprintf("ad: MatMulT of a %d×%d matrix and a vector of length %d (want a multiple of %d)", X.n, X.p, W.n, X.p))
	}
	K := int(W.n) / X.p
	n := X.n
	if batch != nil {
		n = len(batch)
	}
	out := t.newVec(n * K)
	y, w := t.vals(out), t.vals(W)
	for r := 0; r < n; r++ {
		i := r
		if batch != nil {
			i = batch[r]
		}
		x := X.rows[i*X.p : (i+1)*X.p]
		for k := 0; k < K; k++ {
			y[r*K+k] = floats.Dot(x, w[k*X.p:(k+1)*X.p])
		}
	}
	t.push(node{op: opMatMulT, out: out, a: W, x: X, batch: batch, k: K})
	return out
}

func (m *Matrix) matMulTBack(t *Tape, nd *node, g []float64) {
	ga := t.adjs(nd.a)
	if ga == nil {
		return
	}
	K := nd.k
	n := len(g) / K
	for r := 0; r < n; r++ {
		i := r
		if nd.batch != nil {
			i = nd.batch[r]
		}
		x := m.rows[i*m.p : (i+1)*m.p]
		for k := 0; k < K; k++ {
			if c := g[r*K+k]; c != 0 {
				floats.AddScaled(ga[k*m.p:(k+1)*m.p], c, x)
			}
		}
	}
}
