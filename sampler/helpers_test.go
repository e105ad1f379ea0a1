package sampler_test

import (
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
)

// meanModel is zᵢ ~ N(θ, 1) for a scalar θ with prior N(0, s²): the log
// posterior is exactly quadratic with curvature λ = N + 1/s², and the
// minibatch gradient noise (N/|B|)Σ_{i∈B}(zᵢ − θ) − Σᵢ(zᵢ − θ) does not depend
// on θ, so the stationary law of SGLD with a constant step is known exactly.
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
	if batch == nil {
		for _, z := range m.z {
			r := z - th[0]
			v -= 0.5 * r * r
			dv += r
		}
	} else {
		for _, i := range batch {
			r := m.z[i] - th[0]
			v -= 0.5 * r * r
			dv += r
		}
	}
	if g != nil {
		g[0] += dv
	}
	return v
}

// curvature is λ = −d²/dθ² log p(θ|D).
func (m *meanModel) curvature() float64 { return float64(len(m.z)) + 1/(m.s*m.s) }

// posterior returns the exact posterior mean and sd.
func (m *meanModel) posterior() (mean, sd float64) {
	var sum float64
	for _, z := range m.z {
		sum += z
	}
	prec := m.curvature()
	return sum / prec, 1 / math.Sqrt(prec)
}

// gradNoiseVar is Var(ĝ) for batches of size b drawn with replacement:
// N² σ²_z / b with σ²_z the population variance of z.
func (m *meanModel) gradNoiseVar(b int) float64 {
	n := float64(len(m.z))
	var s, ss float64
	for _, z := range m.z {
		s += z
		ss += z * z
	}
	pop := ss/n - (s/n)*(s/n)
	return n * n * pop / float64(b)
}

// scaledLik multiplies a model's likelihood by f: with f = |B|/N it turns the
// estimator's N/|B| scale into 1, the slip the tests must catch.
type scaledLik struct {
	langevin.Model
	f float64
}

func (m scaledLik) LogLik(th []float64, batch []int, g []float64) float64 {
	if g == nil {
		return m.f * m.Model.LogLik(th, batch, nil)
	}
	d := len(g)
	tmp := make([]float64, d)
	v := m.Model.LogLik(th, batch, tmp)
	for j := range g {
		g[j] += m.f * tmp[j]
	}
	return m.f * v
}

// moments runs a chain for burn+n steps and returns the mean and variance of
// coordinate j over the last n.
func moments(ch langevin.Chain, burn, n, j int) (mean, variance float64) {
	for i := 0; i < burn; i++ {
		ch.Step()
	}
	var s, ss float64
	for i := 0; i < n; i++ {
		ch.Step()
		x := ch.Position()[j]
		s += x
		ss += x * x
	}
	mean = s / float64(n)
	return mean, ss/float64(n) - mean*mean
}
