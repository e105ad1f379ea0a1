package sampler

import "github.com/langevin-go/langevin/schedule"

// Cyclical SG-MCMC (Zhang, Li, Zhang, Chen & Wilson 2020) runs a
// stochastic-gradient sampler on the cyclical cosine schedule
// (schedule.Cyclical). SGLD, PSGLD and SGHMC recognise the schedule's
// exploration phases: in the first Explore fraction of each cycle they take
// optimisation steps only (no injected noise; SGHMC keeps its momentum, as
// SGD with momentum), and their chains implement langevin.Keeper so that Run
// keeps draws only from the sampling phase (the rest of each cycle, where the
// step size has decayed from η₀ towards 0). For one draw per cycle, as in
// Zhang et al.'s Bayesian neural networks, choose Explore = 1 − 1/L with L the
// cycle length, or thin by the number of kept steps per cycle.
//
// The schedule's η is langevin's step (θ ← θ + η ĝ + √(2ητ) ξ). Zhang et
// al.'s cSGLD update θ ← θ − α∇U + √(2α) ξ has α = η; their cSGHMC update
// (lr, momentum decay) is SGHMC's (η, α).

// CSGLD returns cyclical SGLD: SGLD on schedule.Cyclical{Eta0: eta0, Iters:
// iters, Cycles: cycles, Explore: explore} with minibatch mb.
func CSGLD(eta0 float64, iters, cycles int, explore float64, mb Minibatch) SGLD {
	return SGLD{Step: schedule.Cyclical{Eta0: eta0, Iters: iters, Cycles: cycles, Explore: explore}, Batch: mb}
}

// CSGHMC returns cyclical SGHMC with friction alpha: SGHMC on
// schedule.Cyclical{Eta0: eta0, Iters: iters, Cycles: cycles, Explore:
// explore} with minibatch mb.
func CSGHMC(eta0 float64, iters, cycles int, explore, alpha float64, mb Minibatch) SGHMC {
	return SGHMC{Step: schedule.Cyclical{Eta0: eta0, Iters: iters, Cycles: cycles, Explore: explore}, Batch: mb, Friction: alpha}
}
