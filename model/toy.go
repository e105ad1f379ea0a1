package model

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// NewGauss2 returns the correlated two-dimensional Gaussian toy target
// N(0, Σ), Σ = [[1, ρ], [ρ, 1]], |ρ| < 1 (the CLI's gauss2 uses ρ = 0.9).
func NewGauss2(rho float64) (*Gaussian, error) {
	if !(math.Abs(rho) < 1) {
		return nil, fmt.Errorf("model: gauss2: correlation %v: expected −1 < ρ < 1", rho)
	}
	return NewGaussian([]float64{0, 0}, mat.NewSymDense(2, []float64{1, rho, rho, 1}))
}

// Mixture is an equal-weight mixture of K isotropic Gaussians in ℝᵈ,
//
//	p(θ) = (1/K) Σₖ N(θ; cₖ, s² I),
//
// written, like [Gaussian], as a model with a flat prior and one observation:
// LogLik(θ, B) = |B| log p(θ) (once for a nil batch), with gradient
//
//	∇ = |B| Σₖ rₖ(θ) (cₖ − θ)/s²,  rₖ = N(θ; cₖ, s²I) / Σₗ N(θ; cₗ, s²I),
//
// computed with log-sum-exp so that points far from every mode keep a finite
// gradient. Len is 1. The model holds no mutable state.
type Mixture struct {
	d       int
	centers []float64 // K×d row-major
	s2      float64
	c       float64 // −log K − (d/2) log(2π s²)
}

// NewMixture returns the mixture of Gaussians with the given centres (each of
// the same dimension) and common variance s2.
func NewMixture(centers [][]float64, s2 float64) (*Mixture, error) {
	if len(centers) == 0 || len(centers[0]) == 0 {
		return nil, fmt.Errorf("model: mixture: no centres")
	}
	if !(s2 > 0) || math.IsInf(s2, 0) {
		return nil, fmt.Errorf("model: mixture: variance %v: expected a positive number", s2)
	}
	d := len(centers[0])
	m := &Mixture{d: d, s2: s2}
	for k, c := range centers {
		if len(c) != d {
			return nil, fmt.Errorf("model: mixture: centre %d has %d coordinates, centre 1 has %d", k+1, len(c), d)
		}
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("model: mixture: centre %d has a non-finite coordinate", k+1)
			}
		}
		m.centers = append(m.centers, c...)
	}
	m.c = -math.Log(float64(len(centers))) - float64(d)/2*math.Log(2*math.Pi*s2)
	return m, nil
}

// NewMixture25 returns the mixture of 25 Gaussians of Zhang et al. (2020):
// centres (2i, 2j), i, j ∈ {−2, …, 2}, covariance 0.03·I, ordered with j
// fastest.
func NewMixture25() *Mixture {
	var cs [][]float64
	for i := -2; i <= 2; i++ {
		for j := -2; j <= 2; j++ {
			cs = append(cs, []float64{float64(2 * i), float64(2 * j)})
		}
	}
	m, err := NewMixture(cs, 0.03)
	if err != nil {
		panic(err) // constant arguments
	}
	return m
}

// Dim returns d.
func (m *Mixture) Dim() int { return m.d }

// Len returns 1.
func (m *Mixture) Len() int { return 1 }

// K returns the number of components.
func (m *Mixture) K() int { return len(m.centers) / m.d }

// Center returns a copy of centre k (0-based).
func (m *Mixture) Center(k int) []float64 {
	return append([]float64(nil), m.centers[k*m.d:(k+1)*m.d]...)
}

// Var returns the common variance s² of the components.
func (m *Mixture) Var() float64 { return m.s2 }

// ParamNames returns theta.1, …, theta.d.
func (m *Mixture) ParamNames() []string {
	names := make([]string, m.d)
	for i := range names {
		names[i] = "theta." + strconv.Itoa(i+1)
	}
	return names
}

// LogPrior returns 0 and leaves grad untouched.
func (m *Mixture) LogPrior(theta, grad []float64) float64 { return 0 }

// logw returns −‖θ − cₖ‖²/(2s²).
func (m *Mixture) logw(theta []float64, k int) float64 {
	c := m.centers[k*m.d : (k+1)*m.d]
	var q float64
	for j, v := range c {
		r := theta[j] - v
		q += r * r
	}
	return -q / (2 * m.s2)
}

// LogLik returns |batch| log p(θ) (once for a nil batch) and adds its gradient
// into grad.
func (m *Mixture) LogLik(theta []float64, batch []int, grad []float64) float64 {
	n := 1.0
	if batch != nil {
		n = float64(len(batch))
	}
	K := m.K()
	top := math.Inf(-1)
	for k := 0; k < K; k++ {
		top = math.Max(top, m.logw(theta, k))
	}
	var sum float64
	for k := 0; k < K; k++ {
		sum += math.Exp(m.logw(theta, k) - top)
	}
	if grad != nil {
		for k := 0; k < K; k++ {
			r := math.Exp(m.logw(theta, k)-top) / sum
			c := m.centers[k*m.d : (k+1)*m.d]
			for j, v := range c {
				grad[j] += n * r * (v - theta[j]) / m.s2
			}
		}
	}
	return n * (m.c + top + math.Log(sum))
}

// StdNormal is the D-dimensional standard normal target N(0, I), written as
// a model with a flat prior and one observation: LogLik(θ, ·) = −½‖θ‖²
// (whatever the batch), gradient −θ added. It is the product target of the
// optimal-scaling results (Roberts, Gelman & Gilks 1997; Roberts & Rosenthal
// 1998), on which the acceptance rate that maximises the expected squared
// jump tends to 0.234 for RWM and 0.574 for MALA as D grows.
type StdNormal struct{ D int }

func (m StdNormal) Dim() int                        { return m.D }
func (m StdNormal) Len() int                        { return 1 }
func (m StdNormal) LogPrior(_, _ []float64) float64 { return 0 }

func (m StdNormal) LogLik(theta []float64, _ []int, grad []float64) float64 {
	var s float64
	for j, v := range theta {
		s += v * v
		if grad != nil {
			grad[j] -= v
		}
	}
	return -s / 2
}
