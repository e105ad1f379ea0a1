package langevin_test

import (
	"math"
	"testing"

	"github.com/langevin-go/langevin"
)

// quadModel has log prior −½θᵀAθ + bᵀθ and no data: its Hessian is −A.
type quadModel struct{ a [][]float64 }

func (q quadModel) Dim() int { return len(q.a) }
func (q quadModel) Len() int { return 0 }
func (q quadModel) LogPrior(theta, grad []float64) float64 {
	var v float64
	for i, row := range q.a {
		var s float64
		for j, aij := range row {
			s += aij * theta[j]
		}
		v += -0.5*theta[i]*s + float64(i+1)*theta[i]
		if grad != nil {
			grad[i] += -s + float64(i+1)
		}
	}
	return v
}
func (q quadModel) LogLik(_ []float64, _ []int, _ []float64) float64 { return 0 }

func TestHessianFD(t *testing.T) {
	q := quadModel{a: [][]float64{{4, 1, 0}, {1, 3, -0.5}, {0, -0.5, 2}}}
	theta := []float64{0.3, -20, 1e3}
	h := make([]float64, 9)
	langevin.HessianFD(q, theta, h)
	for i := range 3 {
		for j := range 3 {
			if got, want := h[i*3+j], -q.a[i][j]; math.Abs(got-want) > 1e-6 {
				t.Errorf("H[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}
