package predict

import (
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
			return nil, fmt.Errorf("predict: row %d: label %v: expected a class index 0, …, %d", i+1, v, k-1)
		}
	}
	return c, nil
}

// Evaluate returns the metrics of the probabilities p (n×K, one row per test
// point) against the labels y, with ECE over bins confidence bins (0 means
// 15).
func Evaluate(p *mat.Dense, y []float64, bins int) (*Metrics, error) {
	n, k := p.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("predict: %d labels for %d rows of probabilities", len(y), n)
	}
	if bins == 0 {
		bins = 15
	}
	if bins < 0 {
		return nil, fmt.Errorf("predict: %d calibration bins: expected a positive number", bins)
	}
	cls, err := Labels(y, k)
	if err != nil {
		return nil, err
	}
	m := &Metrics{N: n, Bins: bins, Confusion: make([][]int, k)}
	for t := range m.Confusion {
		m.Confusion[t] = make([]int, k)
	}
	binN := make([]int, bins)
	binAcc := make([]float64, bins)
	binConf := make([]float64, bins)
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
		binN[b]++
		binAcc[b] += hit
		binConf[b] += conf
	}
	for b := range binN {
		m.ECE += math.Abs(binAcc[b] - binConf[b])
	}
	fn := float64(n)
	m.Accuracy /= fn
	m.NLL /= fn
	m.Brier /= fn
	m.ECE /= fn
	return m, nil
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
