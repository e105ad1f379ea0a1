package predict

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RegressionScore scores a regressor's posterior predictive on test data.
type RegressionScore struct {
	N int
	// RMSE is the root mean squared error of the predictive mean
	// (1/S) Σₛ fₛ(xᵢ) against yᵢ.
	RMSE float64
	// LPD is the mean log predictive density of the mixture,
	// (1/n) Σᵢ log( (1/S) Σₛ N(yᵢ; fₛ(xᵢ), σₛ²) ) (σₛ²(xᵢ) for a
	// [PointNoise] regressor), with the inner mean by
	// log-sum-exp (nats).
	LPD float64
}

// ScoreRegression returns the RMSE of the predictive mean and the mean log
// predictive density of r's posterior predictive at the rows of X over the
// draws, against the responses y. It does not sort or bisect, so it is
// cheap where [Regress]'s intervals are not needed.
func ScoreRegression(r Regressor, draws [][]float64, X *mat.Dense, y []float64) (*RegressionScore, error) {
	if len(draws) == 0 {
		return nil, fmt.Errorf("predict: no draws")
	}
	n, _ := X.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("predict: %d responses for %d rows", len(y), n)
	}
	f := make([]float64, n)
	v := make([]float64, n)
	mean := make([]float64, n)
	acc := make([]logMeanExp, n)
	var prev []float64
	for _, th := range draws {
		if !sameDraw(th, prev) {
			r.RegressionMean(th, X, f)
			noiseVars(r, th, X, v) // σₛ², or σₛ²(xᵢ) of a PointNoise regressor
		}
		prev = th
		for i, fi := range f {
			mean[i] += fi
			d := y[i] - fi
			acc[i].add(-0.5*(math.Log(2*math.Pi*v[i])) - 0.5*d*d/v[i])
		}
	}
	res := &RegressionScore{N: n}
	var ss float64
	for i := range mean {
		d := mean[i]/float64(len(draws)) - y[i]
		ss += d * d
		res.LPD += acc[i].value()
	}
	res.RMSE = math.Sqrt(ss / float64(n))
	res.LPD /= float64(n)
	return res, nil
}

// logMeanExp accumulates log((1/S) Σₛ exp(vₛ)) one term at a time without
// overflow: it keeps the running maximum m and Σₛ exp(vₛ − m).
type logMeanExp struct {
	max, sum float64
	n        int
}

func (a *logMeanExp) add(v float64) {
	a.n++
	switch {
	case a.n == 1 || v > a.max:
		if a.n == 1 || math.IsInf(a.max, -1) {
			a.sum = 1
		} else {
			a.sum = a.sum*math.Exp(a.max-v) + 1
		}
		a.max = v
	case math.IsInf(v, -1):
		// exp(−∞) = 0 adds nothing.
	default:
		a.sum += math.Exp(v - a.max)
	}
}

func (a *logMeanExp) value() float64 {
	if math.IsInf(a.max, -1) {
		return a.max
	}
	return a.max + math.Log(a.sum) - math.Log(float64(a.n))
}
