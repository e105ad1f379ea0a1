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

// Warning returns a one-line warning when γ is outside (0.5, 1], and "" when
// it is inside. With γ ≤ 0.5 the steps do not shrink fast enough for
// Σηₜ² < ∞: the bias of the discretisation and the minibatch noise do not
// vanish (a constant step, γ = 0, is the extreme case, which may be what is
// wanted). With γ > 1 the total Σηₜ is finite: the chain travels a bounded
// distance in the limiting diffusion's time and stops before it has mixed.
func (p Polynomial) Warning() string {
	switch {
	case p.Gamma > 1:
		return fmt.Sprintf("polynomial step decay γ = %g > 1: Σηₜ < ∞, so the chain stops moving after a finite time (Robbins–Monro needs 0.5 < γ ≤ 1)", p.Gamma)
	case p.Gamma <= 0.5:
		return fmt.Sprintf("polynomial step decay γ = %g ≤ 0.5: Σηₜ² = ∞, so the discretisation and minibatch-noise bias do not vanish (Robbins–Monro needs 0.5 < γ ≤ 1)", p.Gamma)
	}
	return ""
}

// Floored keeps a schedule's step from falling below Floor:
//
//	ηₜ = max(S.At(t), Floor),
//
// the lecture notes' practice of decaying the step until it reaches a level
// and holding it constant from there: the decay removes the early transient's
// large steps, and the floor keeps the chain moving at a known, bounded
// discretisation bias instead of stalling as ηₜ → 0 (Vollmer, Zygalakis &
// Teh 2016 show the bias of a constant step is O(η)). From the first t with
// S.At(t) ≤ Floor on (for a decreasing S) the sampler is a constant-step
// sampler.
type Floored struct {
	S     Schedule
	Floor float64
}

// At implements Schedule.
func (f Floored) At(t int) float64 { return math.Max(f.S.At(t), f.Floor) }

// Validate implements Schedule.
func (f Floored) Validate() error {
	if f.S == nil {
		return fmt.Errorf("schedule: floored schedule without a schedule to floor")
	}
	if !(f.Floor > 0) || math.IsInf(f.Floor, 0) {
		return fmt.Errorf("schedule: floor %v: expected a positive finite step", f.Floor)
	}
	return f.S.Validate()
}

// FloorFrom returns the first iteration t ≥ 1 at which a decreasing schedule
// s reaches floor (s.At(t) ≤ floor), searching up to maxT; ok is false if it
// does not within maxT.
func FloorFrom(s Schedule, floor float64, maxT int) (t int, ok bool) {
	lo, hi := 1, maxT
	if s.At(hi) > floor {
		return 0, false
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s.At(mid) <= floor {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

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
