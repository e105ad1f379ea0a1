package sampler

import (
	"fmt"
	"math"
)

// explorer is implemented by schedules with exploration phases
// (schedule.Cyclical): in them the Langevin samplers inject no noise and
// their draws are not kept.
type explorer interface {
	Exploring(t int) bool
}

// exploring reports whether the current iteration is in an exploration phase.
func (c *gradChain) exploring() bool {
	return c.explore != nil && c.explore.Exploring(c.t)
}

// Keep implements langevin.Keeper: the position after a step is a draw unless
// the step was in an exploration phase of the schedule (cyclical SG-MCMC).
func (c *gradChain) Keep() bool { return !c.exploring() }

// anneal is the tempering schedule shared by the stochastic-gradient
// samplers: the temperature of iteration t = 1, 2, … is
//
//	τₜ = τ₀^(1 − t/T) · τ^(t/T)  for t < T,  τₜ = τ  for t ≥ T,
//
// geometric interpolation from τ₀ = TemperatureStart to the sampler's
// Temperature τ over the first T = BurnIn iterations (each step multiplies
// the temperature by the same factor (τ/τ₀)^(1/T)). The noise injected at
// iteration t is √(2ηₜτₜ) ξ. Exploring hot, then sampling at τ = 1 at the end
// of burn-in, is the advice of the lecture notes; draws kept after burn-in are
// all at τ.
type anneal struct {
	tau, tau0 float64
	burn      int
}

func newAnneal(tau, tau0 float64, burn int) (anneal, error) {
	if tau0 == 0 {
		return anneal{tau: tau, tau0: tau}, nil
	}
	if !(tau0 > 0) || math.IsInf(tau0, 0) {
		return anneal{}, fmt.Errorf("sampler: start temperature %v: expected τ₀ > 0 (0: no annealing)", tau0)
	}
	if burn <= 0 {
		return anneal{}, fmt.Errorf("sampler: start temperature %v needs the annealing length BurnIn > 0, got %d", tau0, burn)
	}
	return anneal{tau: tau, tau0: tau0, burn: burn}, nil
}

func (a anneal) at(t int) float64 {
	if t >= a.burn || a.tau0 == a.tau {
		return a.tau
	}
	f := float64(t) / float64(a.burn)
	return math.Pow(a.tau0, 1-f) * math.Pow(a.tau, f)
}

// temperature validates a sampler's Temperature field (0 means 1).
func temperature(t float64) (float64, error) {
	if t == 0 {
		return 1, nil
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("sampler: temperature %v: expected τ > 0", t)
	}
	return t, nil
}
