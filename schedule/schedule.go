// Package schedule provides step-size schedules for stochastic-gradient
// samplers and optimisers.
//
// A schedule maps the 1-based iteration t to the step size ηₜ in langevin's
// convention θ ← θ + ηₜ ĝ(θ) + √(2ηₜτ) ξ (Welling & Teh's εₜ is 2ηₜ).
package schedule

import (
	"fmt"
	"math"
)

// Schedule is a step-size schedule.
type Schedule interface {
	// At returns the step size ηₜ of iteration t = 1, 2, …
	At(t int) float64
	// Validate reports settings that give a non-positive or non-finite step.
	Validate() error
}

// Constant is the constant step size η.
type Constant float64

// At implements Schedule.
func (c Constant) At(int) float64 { return float64(c) }

// Validate implements Schedule.
func (c Constant) Validate() error {
	if !(c > 0) || math.IsInf(float64(c), 0) {
		return fmt.Errorf("schedule: step size %v: expected a positive finite number", float64(c))
	}
	return nil
}

// Polynomial is the decaying schedule ηₜ = A (B + t)^(−Gamma).
// With Gamma ∈ (0.5, 1] it satisfies the Robbins–Monro conditions
// Σηₜ = ∞, Σηₜ² < ∞ under which SGLD converges to the posterior (Welling & Teh
// 2011); Gamma = 0.55 is common.
type Polynomial struct {
	A, B, Gamma float64
}

// At implements Schedule.
func (p Polynomial) At(t int) float64 { return p.A * math.Pow(p.B+float64(t), -p.Gamma) }

// Validate implements Schedule.
func (p Polynomial) Validate() error {
	switch {
	case !(p.A > 0) || math.IsInf(p.A, 0):
		return fmt.Errorf("schedule: polynomial step a = %v: expected a positive finite number", p.A)
	case !(p.B+1 > 0) || math.IsInf(p.B, 0):
		return fmt.Errorf("schedule: polynomial offset b = %v: expected b > −1", p.B)
	case !(p.Gamma >= 0) || math.IsInf(p.Gamma, 0):
		return fmt.Errorf("schedule: polynomial decay γ = %v: expected γ ≥ 0 (0.5 < γ ≤ 1 for Robbins–Monro)", p.Gamma)
	}
	return nil
}

// RobbinsMonro reports whether the schedule satisfies the Robbins–Monro
// conditions Σηₜ = ∞ and Σηₜ² < ∞, that is γ ∈ (0.5, 1].
func (p Polynomial) RobbinsMonro() bool { return p.Gamma > 0.5 && p.Gamma <= 1 }

// Cyclical is the cyclical cosine schedule of Zhang, Li, Zhang, Chen & Wilson
// (2020) over Iters iterations in Cycles cycles:
//
//	ηₖ = (Eta0/2) [cos(π · mod(k−1, L)/L) + 1],  L = ⌈Iters/Cycles⌉.
//
// Each cycle starts at Eta0 and decays to near 0. The first Explore fraction of
// each cycle is the exploration phase (optimisation, no injected noise in
// cyclical SG-MCMC); the rest is the sampling phase.
type Cyclical struct {
	Eta0    float64
	Iters   int
	Cycles  int
	Explore float64
}

// CycleLen returns the cycle length L = ⌈Iters/Cycles⌉.
func (c Cyclical) CycleLen() int { return (c.Iters + c.Cycles - 1) / c.Cycles }

// Phase returns r(k) = mod(k−1, L)/L ∈ [0, 1), the position of iteration k
// within its cycle.
func (c Cyclical) Phase(k int) float64 {
	l := c.CycleLen()
	return float64((k-1)%l) / float64(l)
}

// Exploring reports whether iteration k is in the exploration phase of its
// cycle, r(k) < Explore.
func (c Cyclical) Exploring(k int) bool { return c.Phase(k) < c.Explore }

// Cycle returns the 1-based cycle number of iteration k.
func (c Cyclical) Cycle(k int) int { return (k-1)/c.CycleLen() + 1 }

// At implements Schedule.
func (c Cyclical) At(k int) float64 {
	return c.Eta0 / 2 * (math.Cos(math.Pi*c.Phase(k)) + 1)
}

// Validate implements Schedule.
func (c Cyclical) Validate() error {
	switch {
	case !(c.Eta0 > 0) || math.IsInf(c.Eta0, 0):
		return fmt.Errorf("schedule: cyclical initial step %v: expected a positive finite number", c.Eta0)
	case c.Iters <= 0:
		return fmt.Errorf("schedule: cyclical schedule over %d iterations: expected a positive number", c.Iters)
	case c.Cycles <= 0 || c.Cycles > c.Iters:
		return fmt.Errorf("schedule: %d cycles: expected 1 ≤ cycles ≤ iterations = %d", c.Cycles, c.Iters)
	case !(c.Explore >= 0 && c.Explore < 1):
		return fmt.Errorf("schedule: exploration fraction %v: expected 0 ≤ f < 1", c.Explore)
	}
	return nil
}
