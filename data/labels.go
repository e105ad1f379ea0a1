package data

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TwoLabels returns the two distinct values of the numeric response y in
// increasing order when y holds exactly two and they are not already the
// labels of a binary classifier (0/1 or −1/+1); nil otherwise (one value,
// three or more, a missing value, or labels used as they are).
//
// The rule: a response of exactly two distinct values is a binary label and
// the larger value is the event, class 1: RecodeLabels maps TwoLabels(y)[k]
// to k. R's glm does so with a factor (its first level, in sorted order, is
// the failure) and scikit-learn with its classes_ (sorted; classes_[1] is
// the positive class), so a file labelled 1/2 (UCI's Skin Segmentation:
// 1 skin, 2 non-skin) models P(label = 2). A text target of two levels is
// coded 0/1 by the reader itself (Coding).
func TwoLabels(y []float64) []float64 {
	var a, b float64
	n := 0
	for _, v := range y {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return nil
		case n == 0:
			a, n = v, 1
		case v == a:
		case n == 1:
			b, n = v, 2
		case v != b:
			return nil // a third value
		}
	}
	if n < 2 {
		return nil
	}
	lo, hi := min(a, b), max(a, b)
	if (lo == 0 || lo == -1) && hi == 1 {
		return nil // already 0/1 or −1/+1
	}
	return []float64{lo, hi}
}

// UnknownLabelError reports a response that is none of the values of a recoding
// (RecodeLabels): a test or new row whose label the training data did not
// have.
type UnknownLabelError struct {
	Row    int     // 1-based row of y
	Value  float64 // the response
	Values []float64
}

func (e *UnknownLabelError) Error() string {
	return fmt.Sprintf("row %d: label %v: expected one of the training labels %s", e.Row, e.Value, joinValues(e.Values, " or "))
}

// RecodeLabels replaces, in place, each response y[i] = values[k] by its
// class k (TwoLabels' rule: values sorted, the last the event). A response
// that is none of values is a *UnknownLabelError naming its row, and leaves y
// partly recoded.
func RecodeLabels(y, values []float64) error {
	for i, v := range y {
		k := -1
		for j, w := range values {
			if v == w {
				k = j
				break
			}
		}
		if k < 0 {
			return &UnknownLabelError{Row: i + 1, Value: v, Values: values}
		}
		y[i] = float64(k)
	}
	return nil
}

// LabelRule describes the recoding of values as a rule with its reason, for
// a run's output: "1 → 0, 2 → 1 (two distinct values; the larger is the
// event, as R's glm and scikit-learn)".
func LabelRule(values []float64) string {
	m := make([]string, len(values))
	for k, v := range values {
		m[k] = fmtValue(v) + " → " + strconv.Itoa(k)
	}
	return strings.Join(m, ", ") + " (two distinct values; the larger is the event, as R's glm and scikit-learn)"
}

func joinValues(values []float64, sep string) string {
	s := make([]string, len(values))
	for k, v := range values {
		s[k] = fmtValue(v)
	}
	return strings.Join(s, sep)
}

func fmtValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TwoLabelsRows is TwoLabels over the responses of src, read in blocks of
// rows (one pass; it stops at a third value).
func TwoLabelsRows(src Rows) []float64 {
	var seen []float64
	for _, y := range Blocks(src, 0) {
		for _, v := range y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil
			}
			if !slices.Contains(seen, v) {
				if len(seen) == 2 {
					return nil
				}
				seen = append(seen, v)
			}
		}
	}
	return TwoLabels(seen)
}

// RecodedRows are the rows of Rows with their responses recoded as
// RecodeLabels does (Values[k] → k) as they are read; a response that is
// none of Values is passed on as read, for the model to report.
type RecodedRows struct {
	Rows
	Values []float64
}

// ReadRows implements Rows.
func (r RecodedRows) ReadRows(lo int, x, y []float64) {
	r.Rows.ReadRows(lo, x, y)
	for i, v := range y {
		for k, w := range r.Values {
			if v == w {
				y[i] = float64(k)
				break
			}
		}
	}
}
