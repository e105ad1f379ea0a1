package approx

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
)

// means is the model yᵢ ~ N(θ, σ²I) in ℝᴰ, i = 1…N, with prior θ ~ N(0, λ⁻¹I):
// the log posterior is quadratic with curvature h = λ + N/σ² in every
// coordinate, and the minibatch gradient noise does not depend on θ, so the
// stationary law of constant-step SGD is known exactly.
type means struct {
	y      []float64 // N×D row-major
	n, d   int
	sigma2 float64
	lambda float64
}

// newMeans draws θ* ~ N(0, λ*⁻¹ I) and N observations around it.
func newMeans(n, d int, sigma2, lambdaTrue, lambda float64, seed uint64) *means {
	rng := rand.New(rand.NewPCG(seed, 11))
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = rng.NormFloat64() / math.Sqrt(lambdaTrue)
	}
	m := &means{y: make([]float64, n*d), n: n, d: d, sigma2: sigma2, lambda: lambda}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.y[i*d+j] = theta[j] + math.Sqrt(sigma2)*rng.NormFloat64()
		}
	}
	return m
}

func (m *means) Dim() int { return m.d }
func (m *means) Len() int { return m.n }

func (m *means) LogPrior(th, g []float64) float64 {
	var ss float64
	for j, v := range th {
		ss += v * v
		if g != nil {
			g[j] -= m.lambda * v
		}
	}
	return 0.5*float64(m.d)*math.Log(m.lambda/(2*math.Pi)) - 0.5*m.lambda*ss
}

func (m *means) LogLik(th []float64, batch []int, g []float64) float64 {
	var v float64
	term := func(i int) {
		y := m.y[i*m.d : (i+1)*m.d]
		for j, yj := range y {
			r := yj - th[j]
			v -= 0.5 * r * r / m.sigma2
			if g != nil {
				g[j] += r / m.sigma2
			}
		}
		v -= 0.5 * float64(m.d) * math.Log(2*math.Pi*m.sigma2)
	}
	if batch == nil {
		for i := 0; i < m.n; i++ {
			term(i)
		}
		return v
	}
	for _, i := range batch {
		term(i)
	}
	return v
}

// curvature is h = λ + N/σ².
func (m *means) curvature() float64 { return m.lambda + float64(m.n)/m.sigma2 }

// ybar returns the data mean.
func (m *means) ybar() []float64 {
	yb := make([]float64, m.d)
	for i := 0; i < m.n; i++ {
		for j := range yb {
			yb[j] += m.y[i*m.d+j] / float64(m.n)
		}
	}
	return yb
}

// postMean is N ȳ / (σ² h).
func (m *means) postMean() []float64 {
	mu := m.ybar()
	for j := range mu {
		mu[j] *= float64(m.n) / (m.sigma2 * m.curvature())
	}
	return mu
}

// sgdVar is the exact stationary variance of coordinate j of SGD with step η
// and batches of size b drawn with replacement: the iterates are the AR(1)
// process θ ← (1 − ηh)θ + η(N/(bσ²))Σ_B yᵢⱼ, so
// v = η² N² s²ⱼ/(b σ⁴) / (1 − (1 − ηh)²), s²ⱼ the population variance of yⱼ.
func (m *means) sgdVar(j int, eta float64, b int) float64 {
	n := float64(m.n)
	var s, ss float64
	for i := 0; i < m.n; i++ {
		v := m.y[i*m.d+j]
		s += v
		ss += v * v
	}
	pop := ss/n - (s/n)*(s/n)
	a := 1 - eta*m.curvature()
	return eta * eta * n * n * pop / (float64(b) * m.sigma2 * m.sigma2) / (1 - a*a)
}

var _ langevin.Model = (*means)(nil)

// meanSD returns the mean of xs and the standard error of that mean.
func meanSD(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

func fmtf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
