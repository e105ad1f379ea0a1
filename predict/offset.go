package predict

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// OffsetModel is a regression whose prediction for one θ takes an offset
// per row (model.GLM: Poisson and negative binomial with an exposure,
// probit, robust regression).
type OffsetModel interface {
	Dim() int
	// Mean writes E[yᵢ | xᵢ, θ] for the rows of X into dst.
	Mean(theta []float64, X *mat.Dense, offset, dst []float64) []float64
	// LogDensity writes log p(yᵢ | xᵢ, θ) for the rows of X into dst.
	LogDensity(theta []float64, X *mat.Dense, offset, y, dst []float64) []float64
}

// OffsetMean writes the posterior predictive means
// (1/S) Σₛ E[yᵢ | xᵢ, θₛ] over the draws into dst (allocated when nil) and
// returns it; offset (nil: none) holds the rows' offsets.
func OffsetMean(m OffsetModel, draws [][]float64, X *mat.Dense, offset, dst []float64) []float64 {
	checkOffsetDraws("OffsetMean", m, draws)
	n, _ := X.Dims()
	if dst == nil {
		dst = make([]float64, n)
	}
	clear(dst)
	tmp := make([]float64, n)
	for _, th := range draws {
		m.Mean(th, X, offset, tmp)
		for i, v := range tmp {
			dst[i] += v
		}
	}
	for i := range dst {
		dst[i] /= float64(len(draws))
	}
	return dst
}

// OffsetLogPredictiveDensity returns the mean log posterior predictive
// density of the responses y at the rows of X,
// (1/n) Σᵢ log((1/S) Σₛ p(yᵢ | xᵢ, θₛ)), the inner mean by log-sum-exp.
// Responses outside the support count −Inf. The rows are taken in blocks,
// so that memory is S × 256 numbers whatever n.
func OffsetLogPredictiveDensity(m OffsetModel, draws [][]float64, X *mat.Dense, offset, y []float64) float64 {
	checkOffsetDraws("OffsetLogPredictiveDensity", m, draws)
	n, p := X.Dims()
	if len(y) != n {
		panic(fmt.Sprintf("predict: OffsetLogPredictiveDensity: %d responses for %d rows", len(y), n))
	}
	const block = 256
	lp := make([][]float64, len(draws))
	for s := range lp {
		lp[s] = make([]float64, block)
	}
	col := make([]float64, len(draws))
	var total float64
	for i0 := 0; i0 < n; i0 += block {
		i1 := min(n, i0+block)
		Xb := X.Slice(i0, i1, 0, p).(*mat.Dense)
		var ob []float64
		if offset != nil {
			ob = offset[i0:i1]
		}
		for s, th := range draws {
			m.LogDensity(th, Xb, ob, y[i0:i1], lp[s][:i1-i0])
		}
		for i := 0; i < i1-i0; i++ {
			for s := range draws {
				col[s] = lp[s][i]
			}
			total += logMeanExpOf(col)
		}
	}
	return total / float64(n)
}

func checkOffsetDraws(who string, m OffsetModel, draws [][]float64) {
	if len(draws) == 0 {
		panic("predict: " + who + ": no draws")
	}
	for s, th := range draws {
		if len(th) < m.Dim() {
			panic(fmt.Sprintf("predict: %s: draw %d has %d values, model has %d parameters", who, s+1, len(th), m.Dim()))
		}
	}
}

// logMeanExpOf returns log((1/S) Σ e^{vₛ}).
func logMeanExpOf(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s/float64(len(v)))
}
