package data

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Scaler standardises the columns of a feature matrix: Transform replaces
// x[i][j] by (x[i][j] - Mean[j]) / Scale[j].
//
// Fit a Scaler on the training data only and apply the same Scaler to
// validation and test data, so that no information from held-out rows leaks
// into the model.
type Scaler struct {
	Mean  []float64 // column means
	Scale []float64 // column standard deviations; 1 for constant columns
}

// FitScaler returns a Scaler holding the column means of X and the sample
// standard deviations with divisor n−1, as R's scale() uses (scikit-learn's
// StandardScaler divides by n instead; the two differ by a factor
// sqrt(n/(n−1))). A column whose values are all equal, and every column when
// X has a single row, gets Mean equal to that value and Scale 1, so that it
// transforms to zeros rather than to NaN or huge values. An empty X gives an
// empty Scaler.
func FitScaler(X *mat.Dense) *Scaler {
	if X.IsEmpty() {
		return &Scaler{}
	}
	n, d := X.Dims()
	s := &Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		var sum float64
		for i := range n {
			v := X.At(i, j)
			sum += v
			lo = math.Min(lo, v)
			hi = math.Max(hi, v)
		}
		if lo == hi || n < 2 {
			s.Mean[j] = X.At(0, j)
			s.Scale[j] = 1
			continue
		}
		mean := sum / float64(n)
		// Two-pass algorithm with a correction term for rounding error in
		// the mean (Chan, Golub and LeVeque 1983).
		var ss, c float64
		for i := range n {
			dv := X.At(i, j) - mean
			ss += dv * dv
			c += dv
		}
		v := (ss - c*c/float64(n)) / float64(n-1)
		s.Mean[j] = mean
		s.Scale[j] = math.Sqrt(v)
		if !(s.Scale[j] > 0) || math.IsInf(s.Scale[j], 0) {
			s.Scale[j] = 1
		}
	}
	return s
}

// Transform standardises X in place using the statistics in s. It panics if
// X does not have len(s.Mean) columns. An empty X is left alone.
func (s *Scaler) Transform(X *mat.Dense) {
	if X.IsEmpty() {
		return
	}
	n, d := X.Dims()
	if d != len(s.Mean) || d != len(s.Scale) {
		panic(fmt.Sprintf("data: Scaler fitted on %d columns applied to a matrix with %d columns", len(s.Mean), d))
	}
	for i := range n {
		row := X.RawRowView(i)
		for j, v := range row {
			row[j] = (v - s.Mean[j]) / s.Scale[j]
		}
	}
}

// Unscale maps the coefficients of a linear predictor on standardised
// features, coef = (α, β₁, …, β_d), to the data's own scale in dst (same
// layout, may be coef): with z_j = (x_j − m_j)/s_j,
//
//	α + Σ_j β_j z_j = (α − Σ_j β_j m_j/s_j) + Σ_j (β_j/s_j) x_j,
//
// so dst_j = β_j/s_j and dst_0 = α − Σ_j β_j m_j/s_j. A 0/1 dummy column is
// treated as any other: its coefficient on its own scale is the difference
// from the reference level. It panics if the lengths are not d+1.
func (s *Scaler) Unscale(dst, coef []float64) {
	d := len(s.Mean)
	if len(coef) != d+1 || len(dst) != d+1 {
		panic(fmt.Sprintf("data: Scaler.Unscale: %d coefficients and %d destinations for %d features and an intercept", len(coef), len(dst), d))
	}
	a := coef[0]
	for j := range d {
		b := coef[j+1] / s.Scale[j]
		a -= b * s.Mean[j]
		dst[j+1] = b
	}
	dst[0] = a
}
