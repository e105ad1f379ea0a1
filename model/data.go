package model

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// design is a copied feature matrix: n rows of p features in row-major order,
// with an optional implicit intercept column of ones in front.
type design struct {
	x         []float64 // n×p, row-major
	n, p      int
	intercept bool
}

// newDesign checks X against y (nil y skips the check) and keeps X's rows:
// a contiguous X (stride p) is shared, not copied — a wide file's features
// are held once — so X must not change while the model is in use; any other
// X is copied.
func newDesign(who string, X *mat.Dense, y []float64, intercept bool) (design, error) {
	if X == nil || X.IsEmpty() {
		return design{}, fmt.Errorf("model: %s: no feature matrix", who)
	}
	n, p := X.Dims()
	if y != nil && len(y) != n {
		return design{}, fmt.Errorf("model: %s: %d responses for %d rows of features", who, len(y), n)
	}
	var x []float64
	if raw := X.RawMatrix(); raw.Stride == p {
		x = raw.Data[: n*p : n*p]
	} else {
		x = make([]float64, n*p)
		for i := 0; i < n; i++ {
			mat.Row(x[i*p:(i+1)*p], i, X)
		}
	}
	for i := 0; i < n; i++ {
		row := x[i*p : (i+1)*p]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return design{}, fmt.Errorf("model: %s: row %d, column %d: feature %v: expected a finite number", who, i+1, j+1, v)
			}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return design{}, fmt.Errorf("model: %s: row %d: response %v: expected a finite number", who, i+1, v)
		}
	}
	return design{x: x, n: n, p: p, intercept: intercept}, nil
}

// coef returns the number of regression coefficients, p plus the intercept.
func (d *design) coef() int {
	if d.intercept {
		return d.p + 1
	}
	return d.p
}

// coefNames returns "intercept", "beta.1", …, "beta.p".
func (d *design) coefNames() []string {
	names := make([]string, 0, d.coef()+1)
	if d.intercept {
		names = append(names, "intercept")
	}
	for j := 1; j <= d.p; j++ {
		names = append(names, "beta."+strconv.Itoa(j))
	}
	return names
}

// linpred returns the linear predictor of the feature row x at coefficients
// beta (length coef()).
func (d *design) linpred(beta, x []float64) float64 {
	var z float64
	if d.intercept {
		z = beta[0]
		beta = beta[1:]
	}
	beta = beta[:len(x)]
	for j, v := range x {
		z += v * beta[j]
	}
	return z
}

// testRows copies a prediction matrix, checking that it has p columns.
func (d *design) testRows(who string, X *mat.Dense) (x []float64, n int) {
	n, p := X.Dims()
	if p != d.p {
		panic(fmt.Sprintf("model: %s: feature matrix has %d columns, model has %d features", who, p, d.p))
	}
	if raw := X.RawMatrix(); raw.Stride == p {
		return raw.Data[:n*p], n
	}
	x = make([]float64, n*p)
	for i := 0; i < n; i++ {
		mat.Row(x[i*p:(i+1)*p], i, X)
	}
	return x, n
}

// dstLen returns dst, or a new slice of length n when dst is nil; it panics
// when a non-nil dst has the wrong length.
func dstLen(who string, dst []float64, n int) []float64 {
	if dst == nil {
		return make([]float64, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("model: %s: len(dst) = %d, want %d", who, len(dst), n))
	}
	return dst
}

// checkTheta panics unless len(theta) ≥ dim.
func checkTheta(who string, theta []float64, dim int) {
	if len(theta) < dim {
		panic(fmt.Sprintf("model: %s: len(theta) = %d, model has %d parameters", who, len(theta), dim))
	}
}

// log2Pi is log(2π).
const log2Pi = 1.8378770664093454835606594728112352797227949472755668
