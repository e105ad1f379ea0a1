package model

import (
	"math"

	"github.com/langevin-go/langevin"
)

// NoisyGradient wraps a model and adds injected Gaussian noise to the
// gradient of its log likelihood: every LogLik call with a non-nil grad adds
//
//	SD · ξ(θ),  ξ(θ) ~ N(0, I),
//
// to grad, while the returned value is that of the wrapped model (the noisy
// gradient is therefore not the gradient of the value; CheckGradient applies
// to the wrapped model, or to SD = 0). It mimics the stochastic-gradient noise
// of a minibatch estimate on the toy targets of Zhang et al. (2020), whose
// gradient is ∇U(θ) + N(0, I). For a model with Len 1 (the toy targets) the
// estimator's N/|B| scale is 1, so the noise enters ĝ with covariance SD²·I.
//
// The noise is a deterministic function of the bits of θ and of Seed: ξ is
// computed by Box–Muller from a SplitMix64 hash of (Seed, θ, coordinate).
// NoisyGradient therefore holds no mutable state, may be shared by concurrent
// chains, and gives the same draws for the same seed whatever GOMAXPROCS.
// Because a chain's position changes at every step, successive ξ behave as
// independent N(0, I) draws; at a repeated θ they repeat.
type NoisyGradient struct {
	langevin.Model
	SD   float64
	Seed uint64
}

// ParamNames returns the wrapped model's parameter names.
func (m NoisyGradient) ParamNames() []string { return langevin.ParamNames(m.Model) }

// LogLik returns the wrapped model's log likelihood and adds its gradient plus
// SD·ξ(θ) into grad.
func (m NoisyGradient) LogLik(theta []float64, batch []int, grad []float64) float64 {
	v := m.Model.LogLik(theta, batch, grad)
	if grad != nil && m.SD != 0 {
		h := splitmix(m.Seed ^ 0x6a09e667f3bcc908)
		for _, x := range theta {
			h = splitmix(h ^ math.Float64bits(x))
		}
		for j := range grad {
			grad[j] += m.SD * hashNormal(h, uint64(j))
		}
	}
	return v
}

// splitmix is the SplitMix64 finaliser (Steele, Lea & Flood 2014).
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hashNormal returns a standard normal derived from the hash h and index j
// by Box–Muller on two 53-bit uniforms in (0, 1].
func hashNormal(h, j uint64) float64 {
	a := splitmix(h + 2*j + 1)
	b := splitmix(a ^ (h + 2*j + 2))
	u1 := (float64(a>>11) + 1) / (1 << 53)
	u2 := float64(b>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
