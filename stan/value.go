package stan

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin/ad"
)

// base is the element structure of a value: an int, a real, or a vector,
// row vector or matrix of reals.
type base uint8

const (
	bInt base = iota
	bReal
	bVec
	bRow
	bMat
)

func (b base) String() string {
	return [...]string{"int", "real", "vector", "row_vector", "matrix"}[b]
}

// val is a value of the evaluator: an array (dims, possibly none) of
// elements of type b, stored flat in row-major order (arrays, then the
// rows of a matrix). An int is i (a scalar) or ints (an array). Reals are
// v, one vector on the tape or a constant, or es, one scalar per element
// when a container is built one assignment at a time.
type val struct {
	b    base
	dims []int
	r, c int // vector: r × 1, row vector: 1 × c, matrix: r × c
	i    int
	ints []int
	v    ad.Vec
	es   []ad.Vec
}

// elemLen is the number of reals in one element of the array.
func (x *val) elemLen() int {
	switch x.b {
	case bVec, bRow, bMat:
		return x.r * x.c
	}
	return 1
}

// n is the number of scalars in x.
func (x *val) n() int {
	n := x.elemLen()
	for _, d := range x.dims {
		n *= d
	}
	return n
}

func (x *val) scalar() bool { return len(x.dims) == 0 && (x.b == bInt || x.b == bReal) }

// typeString describes x's type as Stan writes it.
func (x *val) typeString() string {
	s := x.b.String()
	switch x.b {
	case bVec:
		s += fmt.Sprintf("[%d]", x.r)
	case bRow:
		s += fmt.Sprintf("[%d]", x.c)
	case bMat:
		s += fmt.Sprintf("[%d, %d]", x.r, x.c)
	}
	if len(x.dims) > 0 {
		s = fmt.Sprint("array", x.dims, " ", s)
	}
	return s
}

// matDims are the dimensions of one element: none for a scalar, one for a
// vector, two for a matrix.
func (x *val) matDims() []int {
	switch x.b {
	case bVec:
		return []int{x.r}
	case bRow:
		return []int{x.c}
	case bMat:
		return []int{x.r, x.c}
	}
	return nil
}

var nanSlice = []float64{math.NaN()}

// nanVec is the value of an unassigned real (Stan sets them to NaN).
var nanVec = (*ad.Tape)(nil).Data(nanSlice)

// constVec wraps x as a constant vector.
func constVec(x []float64) ad.Vec { return (*ad.Tape)(nil).Data(x) }
