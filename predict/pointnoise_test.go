package predict_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/predict"
)

// hetReg is f(x; θ) = θ₀x with noise variance σ²(x) = θ₁(1 + x²): a
// PointNoise regressor whose NoiseVar (θ₁) is wrong for every x ≠ 0.
type hetReg struct{}

func (hetReg) RegressionMean(th []float64, X *mat.Dense, dst []float64) {
	for i := range dst {
		dst[i] = th[0] * X.At(i, 0)
	}
}
func (hetReg) NoiseVar(th []float64) float64 { return th[1] }
func (hetReg) NoiseVars(th []float64, X *mat.Dense, dst []float64) {
	for i := range dst {
		x := X.At(i, 0)
		dst[i] = th[1] * (1 + x*x)
	}
}

// TestPointNoise: ScoreRegression's log density and Regress's observation
// interval use each draw's σ²(xᵢ) of a PointNoise regressor: the mixture
// density computed directly, and with one draw the interval μ ± z·σ(x).
func TestPointNoise(t *testing.T) {
	X := mat.NewDense(3, 1, []float64{0, 1, 3})
	y := []float64{0.5, 2, -1}
	draws := [][]float64{{1, 0.5}, {2, 0.2}}
	sc, err := predict.ScoreRegression(hetReg{}, draws, X, y)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for i, yi := range y {
		x := X.At(i, 0)
		var p float64
		for _, th := range draws {
			v := th[1] * (1 + x*x)
			d := yi - th[0]*x
			p += math.Exp(-0.5*d*d/v) / math.Sqrt(2*math.Pi*v) / 2
		}
		want += math.Log(p) / 3
	}
	if math.Abs(sc.LPD-want) > 1e-12 {
		t.Errorf("LPD %v, want %v", sc.LPD, want)
	}
	reg, err := predict.Regress(hetReg{}, draws[:1], X, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		x := X.At(i, 0)
		half := 1.959963984540054 * math.Sqrt(0.5*(1+x*x))
		if math.Abs(reg.ObsUpper[i]-(x+half)) > 1e-6 || math.Abs(reg.ObsLower[i]-(x-half)) > 1e-6 {
			t.Errorf("row %d: interval [%v, %v], want %v ± %v", i, reg.ObsLower[i], reg.ObsUpper[i], x, half)
		}
	}
}
