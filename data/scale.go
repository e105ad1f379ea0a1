package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Scaler standardises the columns of a feature matrix: Transform replaces
// x[i][j] by (x[i][j] - Mean[j]) / Scale[j].
//
// Fit a Scaler on the training data only and apply the same Scaler to
// validation and test data, so that no information from held-out rows leaks
// into the model.
//
// A regression response may be standardised too (FitTarget):
// z = (y − TargetMean)/TargetScale. Scores of a predictive distribution
// of z convert to y's units by the change of variables: a density
// p_y(y) = p_z(z)/TargetScale, so log p_y = log p_z − log TargetScale, and
// a root mean squared error RMSE_y = TargetScale · RMSE_z (see
// TargetLogDensity and TargetRMSE). TargetScale 0 means the response is
// not standardised.
type Scaler struct {
	Mean  []float64 // column means
	Scale []float64 // column standard deviations; 1 for constant columns

	TargetMean, TargetScale float64 // the response's standardisation; TargetScale 0: none
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

// FitTarget sets the response standardisation of s to the mean and the
// population standard deviation (divisor n) of y, and standardises y in
// place, so that the standardised response has mean 0 and variance 1
// exactly (up to rounding). A constant or single response gets scale 1.
//
// This is the one rule for a response, and its home: the divisor is n, not
// FitScaler's n−1, because the response's standardisation is part of the
// model (a network's prior on f and on log σ² is set for a unit-variance
// response: model.MLPOptions.StandardizeY, which applies the same rule when
// it is given raw responses) and because the UCI benchmark's protocol
// (Hernández-Lobato & Adams 2015, their code: numpy's std) and
// scikit-learn's StandardScaler divide by n. The features keep FitScaler's
// n−1 (R's scale(); the linear models' results are pinned to it).
func (s *Scaler) FitTarget(y []float64) {
	s.TargetMean, s.TargetScale = 0, 1
	n := len(y)
	if n == 0 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var sum float64
	for _, v := range y {
		sum += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	s.TargetMean = y[0]
	if lo == hi || n < 2 {
		s.TransformTarget(y)
		return
	}
	mean := sum / float64(n)
	// Two-pass with the rounding correction of the mean (Chan, Golub and
	// LeVeque 1983), as FitScaler.
	var ss, c float64
	for _, v := range y {
		dv := v - mean
		ss += dv * dv
		c += dv
	}
	s.TargetMean = mean
	if sd := math.Sqrt((ss - c*c/float64(n)) / float64(n)); sd > 0 && !math.IsInf(sd, 0) {
		s.TargetScale = sd
	}
	s.TransformTarget(y)
}

// TransformTarget standardises the responses y in place with the response
// standardisation of s (none when TargetScale is 0).
func (s *Scaler) TransformTarget(y []float64) {
	if s.TargetScale == 0 {
		return
	}
	for i, v := range y {
		y[i] = (v - s.TargetMean) / s.TargetScale
	}
}

// TargetValue returns the response in its original units for the
// standardised value z: TargetMean + TargetScale·z (z itself when the
// response is not standardised).
func (s *Scaler) TargetValue(z float64) float64 {
	if s.TargetScale == 0 {
		return z
	}
	return s.TargetMean + s.TargetScale*z
}

// TargetLogDensity converts a log density of the standardised response to
// the response's units: log p(y) = log p(z) − log TargetScale.
func (s *Scaler) TargetLogDensity(logpz float64) float64 {
	if s.TargetScale == 0 {
		return logpz
	}
	return logpz - math.Log(s.TargetScale)
}

// TargetRMSE converts a root mean squared error (or any error of the
// response's scale: a standard deviation, an interval width) of the
// standardised response to the response's units: TargetScale·e.
func (s *Scaler) TargetRMSE(e float64) float64 {
	if s.TargetScale == 0 {
		return e
	}
	return s.TargetScale * e
}

// CheckColumns finds, before a model is fitted to X, the columns it cannot
// use as they are: a constant column (warnings, one per column: its
// coefficient is set by the prior alone, or duplicates the intercept) and
// a column whose values overflow the standardisation (their sum or sum of
// squares is not a finite float64: an error naming the column and what to
// do). names are X's column names.
func CheckColumns(X *mat.Dense, names []string) (warnings []string, err error) {
	if X.IsEmpty() {
		return nil, nil
	}
	n, d := X.Dims()
	var constant []string // the constant columns' names
	var value float64     // the last one's value
	for j := range d {
		name := "column " + strconv.Itoa(j+1)
		if j < len(names) {
			name = "column " + quote(names[j])
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		var sum, ss float64
		for i := range n {
			v := X.At(i, j)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			sum += v
		}
		mean := sum / float64(n)
		for i := range n {
			dv := X.At(i, j) - mean
			ss += dv * dv
		}
		switch {
		case math.IsInf(sum, 0) || math.IsNaN(sum) || math.IsInf(ss, 0) || math.IsNaN(ss):
			return warnings, fmt.Errorf("%s: values from %g to %g overflow its standardisation (their sum or squares exceed the largest float64): rescale the column (for example divide it by a power of ten) or drop it", name, lo, hi)
		case lo == hi && n > 1:
			constant = append(constant, name)
			value = lo
		}
	}
	switch k := len(constant); {
	case k == 1:
		warnings = append(warnings, fmt.Sprintf("%s is constant (%g in every row): it carries no information, and its coefficient is set by the prior alone; drop it", constant[0], value))
	case k > 1:
		list := strings.Join(constant[:min(k, 5)], ", ")
		if k > 5 {
			list += ", …"
		}
		warnings = append(warnings, fmt.Sprintf("%d columns are constant (%s): they carry no information, and their coefficients are set by the prior alone; drop them", k, list))
	}
	return warnings, nil
}

// RowNumberColumns warns of each column of X that holds the row numbers:
// distinct integers 1…n or 0…n−1 in any order (n ≥ 10). As a feature such
// a column makes the answer depend on the order of the rows (an ID or an
// index written out with the data); names are X's column names.
func RowNumberColumns(X *mat.Dense, names []string) (warnings []string) {
	if X.IsEmpty() {
		return nil
	}
	n, d := X.Dims()
	if n < 10 {
		return nil
	}
	seen := make([]bool, n)
	for j := range d {
		lo := X.At(0, j)
		for i := range n {
			lo = math.Min(lo, X.At(i, j))
		}
		if lo != 0 && lo != 1 {
			continue
		}
		clear(seen)
		ok := true
		for i := range n {
			k := X.At(i, j) - lo
			if k != math.Trunc(k) || k < 0 || k >= float64(n) || seen[int(k)] {
				ok = false
				break
			}
			seen[int(k)] = true
		}
		if !ok {
			continue
		}
		name := "column " + strconv.Itoa(j+1)
		flagName := strconv.Itoa(j + 1)
		if j < len(names) {
			name, flagName = "column "+quote(names[j]), names[j]
		}
		warnings = append(warnings, fmt.Sprintf("%s holds the row numbers %g…%g: as a feature it makes the answer depend on the order of the rows; if it numbers the rows, --id %s (written beside each prediction) or --drop %s", name, lo, lo+float64(n-1), flagName, flagName))
	}
	return warnings
}

// DuplicateIDs warns when the ID column (ids, one a row) repeats a value:
// predictions written beside the IDs cannot be told apart by them.
func DuplicateIDs(ids []string, column string) string {
	first := make(map[string]int, len(ids))
	dups, ex, exA, exB := 0, "", 0, 0
	for i, id := range ids {
		if a, ok := first[id]; ok {
			if dups == 0 {
				ex, exA, exB = id, a+1, i+1
			}
			dups++
			continue
		}
		first[id] = i
	}
	if dups == 0 {
		return ""
	}
	return fmt.Sprintf("ID column %s: %d rows repeat an ID that an earlier row has (as %s, rows %d and %d): the predictions written beside the IDs cannot be told apart by them; an ID names each row once (more than once means it is not an ID: a group, or duplicated rows)",
		quote(column), dups, quote(ex), exA, exB)
}
