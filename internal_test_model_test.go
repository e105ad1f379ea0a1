package langevin_test

import (
	"math"
	"math/rand/v2"
)

// meanModel is zᵢ ~ N(θ, 1) for a scalar θ with prior N(0, s²): a model with
// an exact Gaussian posterior, local to these tests.
type meanModel struct {
	z []float64
	s float64
}

func newMeanModel(n int, seed uint64) *meanModel {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n)
	for i := range z {
		z[i] = 1 + rng.NormFloat64()
	}
	return &meanModel{z: z, s: 10}
}

func (m *meanModel) Dim() int { return 1 }
func (m *meanModel) Len() int { return len(m.z) }
func (m *meanModel) LogPrior(th, g []float64) float64 {
	if g != nil {
		g[0] -= th[0] / (m.s * m.s)
	}
	return -0.5 * th[0] * th[0] / (m.s * m.s)
}
func (m *meanModel) LogLik(th []float64, batch []int, g []float64) float64 {
	var v, dv float64
	add := func(z float64) {
		r := z - th[0]
		v -= 0.5 * r * r
		dv += r
	}
	if batch == nil {
		for _, z := range m.z {
			add(z)
		}
	} else {
		for _, i := range batch {
			add(m.z[i])
		}
	}
	if g != nil {
		g[0] += dv
	}
	return v
}
func (m *meanModel) SamplePrior(dst []float64, rng *rand.Rand) { dst[0] = m.s * rng.NormFloat64() }

// posterior returns the exact posterior mean and sd.
func (m *meanModel) posterior() (mean, sd float64) {
	prec := 1/(m.s*m.s) + float64(len(m.z))
	var sum float64
	for _, z := range m.z {
		sum += z
	}
	return sum / prec, 1 / math.Sqrt(prec)
}
