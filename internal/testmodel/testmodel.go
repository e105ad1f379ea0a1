// Package testmodel holds small models with exact answers for the tests of
// langevin's packages.
package testmodel

import (
	"math"
	"math/rand/v2"
)

// Mean is zᵢ ~ N(θ, 1) for a scalar θ with prior N(0, S²): the log posterior
// is exactly quadratic with curvature λ = N + 1/S², and the minibatch
// gradient noise (N/|B|)Σ_{i∈B}(zᵢ − θ) − Σᵢ(zᵢ − θ) does not depend on θ, so
// the stationary law of SGLD with a constant step is known exactly.
type Mean struct {
	Z []float64
	S float64
}

// NewMean returns the model for n draws zᵢ ~ N(1, 1) and prior sd 10.
func NewMean(n int, seed uint64) *Mean {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n)
	for i := range z {
		z[i] = 1 + rng.NormFloat64()
	}
	return &Mean{Z: z, S: 10}
}

func (m *Mean) Dim() int { return 1 }
func (m *Mean) Len() int { return len(m.Z) }

func (m *Mean) LogPrior(th, g []float64) float64 {
	if g != nil {
		g[0] -= th[0] / (m.S * m.S)
	}
	return -0.5 * th[0] * th[0] / (m.S * m.S)
}

func (m *Mean) LogLik(th []float64, batch []int, g []float64) float64 {
	var v, dv float64
	if batch == nil {
		for _, z := range m.Z {
			r := z - th[0]
			v -= 0.5 * r * r
			dv += r
		}
	} else {
		for _, i := range batch {
			r := m.Z[i] - th[0]
			v -= 0.5 * r * r
			dv += r
		}
	}
	if g != nil {
		g[0] += dv
	}
	return v
}

// SamplePrior draws θ ~ N(0, S²).
func (m *Mean) SamplePrior(dst []float64, rng *rand.Rand) { dst[0] = m.S * rng.NormFloat64() }

// Curvature is λ = −d²/dθ² log p(θ|D).
func (m *Mean) Curvature() float64 { return float64(len(m.Z)) + 1/(m.S*m.S) }

// Posterior returns the exact posterior mean and sd.
func (m *Mean) Posterior() (mean, sd float64) {
	var sum float64
	for _, z := range m.Z {
		sum += z
	}
	prec := m.Curvature()
	return sum / prec, 1 / math.Sqrt(prec)
}

// GradNoiseVar is Var(ĝ) for batches of size b drawn with replacement:
// N² σ²_z / b with σ²_z the population variance of z.
func (m *Mean) GradNoiseVar(b int) float64 {
	n := float64(len(m.Z))
	var s, ss float64
	for _, z := range m.Z {
		s += z
		ss += z * z
	}
	pop := ss/n - (s/n)*(s/n)
	return n * n * pop / float64(b)
}
