package predict

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Metrics scores predicted class probabilities p (n×K) against labels y.
type Metrics struct {
	N        int
	Accuracy float64 // fraction of i with argmaxₖ pᵢₖ = yᵢ (ties: the lowest k)
	// NLL is the mean negative log predictive probability of the label,
	// −(1/n) Σᵢ log pᵢ,yᵢ (nats; +Inf if a label has probability 0).
	NLL float64
	// Brier is the mean squared error of the probability vector,
	// (1/n) Σᵢ Σₖ (pᵢₖ − 1[yᵢ = k])², in [0, 2].
	Brier float64
	// ECE is the expected calibration error with Bins equal-width bins of
	// the confidence cᵢ = maxₖ pᵢₖ: Σ_b (n_b/n) |acc_b − conf_b|.
	ECE  float64
	Bins int
	// Confusion[t][k] counts the points of true class t predicted as k.
	Confusion [][]int
}

// Labels checks that y holds class indices 0, …, K−1 (for K = 2, −1 is
// class 0) and returns them as ints; the error names the first bad row
// (1-based).
func Labels(y []float64, k int) ([]int, error) {
	c := make([]int, len(y))
	for i, v := range y {
		switch {
		case k == 2 && v == -1:
			c[i] = 0
		case v >= 0 && v < float64(k) && v == math.Trunc(v):
			c[i] = int(v)
		default:
			return nil, &labelError{row: i + 1, value: v, k: k}
		}
	}
	return c, nil
}

// labelError is Labels' error: a label that is not a class index.
type labelError struct {
	row   int
	value float64
	k     int
}

func (e *labelError) Error() string {
	return fmt.Sprintf("predict: row %d: label %v: expected a class index 0, …, %d", e.row, e.value, e.k-1)
}

// Evaluate returns the metrics of the probabilities p (n×K, one row per test
// point) against the labels y, with ECE over bins confidence bins (0 means
// 15).
func Evaluate(p *mat.Dense, y []float64, bins int) (*Metrics, error) {
	_, k := p.Dims()
	e, err := NewEvaluator(k, bins)
	if err != nil {
		return nil, err
	}
	if err := e.Add(p, y); err != nil {
		return nil, err
	}
	return e.Metrics(), nil
}

// Evaluator computes the Metrics of Evaluate over test points given a block
// of rows at a time, so that a test set larger than memory can be scored;
// the result equals Evaluate's on all the rows at once, bit for bit.
type Evaluator struct {
	m       Metrics
	k       int
	binN    []int
	binAcc  []float64
	binConf []float64
	cls     []int
}

// NewEvaluator returns an Evaluator of K-class probabilities with ECE over
// bins confidence bins (0 means 15).
func NewEvaluator(k, bins int) (*Evaluator, error) {
	if bins == 0 {
		bins = 15
	}
	if bins < 0 {
		return nil, fmt.Errorf("predict: %d calibration bins: expected a positive number", bins)
	}
	e := &Evaluator{k: k, m: Metrics{Bins: bins, Confusion: make([][]int, k)},
		binN: make([]int, bins), binAcc: make([]float64, bins), binConf: make([]float64, bins)}
	for t := range e.m.Confusion {
		e.m.Confusion[t] = make([]int, k)
	}
	return e, nil
}

// Add scores the next block of test points: probabilities p (one row per
// point, K columns) against labels y. A bad label's error names its row
// counted over all blocks.
func (e *Evaluator) Add(p *mat.Dense, y []float64) error {
	n, k := p.Dims()
	if p.IsEmpty() {
		n, k = 0, e.k
	}
	if len(y) != n {
		return fmt.Errorf("predict: %d labels for %d rows of probabilities", len(y), n)
	}
	if k != e.k {
		return fmt.Errorf("predict: %d columns of probabilities, expected %d classes", k, e.k)
	}
	cls, err := Labels(y, k)
	if err != nil {
		var le *labelError
		if errors.As(err, &le) {
			le.row += e.m.N
			return le
		}
		return err
	}
	m := &e.m
	bins := m.Bins
	for i := 0; i < n; i++ {
		row := p.RawRowView(i)
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
			t := 0.0
			if j == cls[i] {
				t = 1
			}
			m.Brier += (v - t) * (v - t)
		}
		m.Confusion[cls[i]][best]++
		hit := 0.0
		if best == cls[i] {
			hit = 1
		}
		m.Accuracy += hit
		m.NLL -= math.Log(row[cls[i]])
		conf := row[best]
		b := min(int(conf*float64(bins)), bins-1)
		e.binN[b]++
		e.binAcc[b] += hit
		e.binConf[b] += conf
	}
	m.N += n
	return nil
}

// Metrics returns the metrics of the points added so far.
func (e *Evaluator) Metrics() *Metrics {
	m := e.m
	m.Confusion = make([][]int, len(e.m.Confusion))
	for t, r := range e.m.Confusion {
		m.Confusion[t] = append([]int(nil), r...)
	}
	m.ECE = 0
	for b := range e.binN {
		m.ECE += math.Abs(e.binAcc[b] - e.binConf[b])
	}
	fn := float64(m.N)
	m.Accuracy /= fn
	m.NLL /= fn
	m.Brier /= fn
	m.ECE /= fn
	return &m
}

// Compare measures how close two methods' predictive distributions p and q
// (n×K each) are in function space (Izmailov et al. 2021): the agreement,
// the fraction of points where their top classes coincide, and the mean total
// variation (1/n) Σᵢ ½ Σₖ |pᵢₖ − qᵢₖ|.
func Compare(p, q *mat.Dense) (agreement, tv float64, err error) {
	n, k := p.Dims()
	if r, c := q.Dims(); r != n || c != k {
		return 0, 0, fmt.Errorf("predict: comparing %d×%d with %d×%d probabilities", n, k, r, c)
	}
	for i := 0; i < n; i++ {
		a, b := p.RawRowView(i), q.RawRowView(i)
		if argmax(a) == argmax(b) {
			agreement++
		}
		var d float64
		for j := range a {
			d += math.Abs(a[j] - b[j])
		}
		tv += d / 2
	}
	return agreement / float64(n), tv / float64(n), nil
}

func argmax(v []float64) int {
	best := 0
	for j, x := range v {
		if x > v[best] {
			best = j
		}
	}
	return best
}
