package fit

import (
	"fmt"
	"math"
)

// netNoiseShare is the largest share of SGHMC's injected noise that the
// minibatch gradient noise may add (the plan's step rule uses the same tenth
// for SGLD).
const netNoiseShare = 0.1

// netFriction returns SGHMC's friction α for the plan's step η, and its
// reason. rho is the minibatch noise over the injected noise of SGLD at the
// same step, η·tr(MCM)/(2 tr M) (C the covariance of the minibatch
// gradient, M the preconditioner: [NetPlan.Ratio]).
//
// α = 2√η damps a direction of unit preconditioned curvature critically. But
// SGHMC's velocity receives the gradient noise η²MCM every step against the
// injected 2αηM, so its stationary temperature is about 1 + ρ/α, not 1: the
// friction is raised to ρ/0.1 (at most 1, SGLD), so that the gradient noise
// is at most a tenth of the injected noise. It binds when the data are many
// for the batch (the full Fashion-MNIST, N = 60,000 at batch 32: ρ = 0.019
// against 2√η = 0.0195, and the chains' kinetic temperature, SGHMC's
// momentum__, was 1.6 to 2.0: the draws predicted worse than the MAP
// network).
func netFriction(eta, rho float64) (alpha float64, why string) {
	crit := min(1, 2*math.Sqrt(eta))
	alpha = min(1, max(crit, rho/netNoiseShare))
	if alpha == crit {
		return alpha, fmt.Sprintf("α = 2√η = %.3g (critical damping of a direction of unit preconditioned curvature); the minibatch noise adds %.3g of the injected noise (ρ/α, ρ = %.3g the SGLD ratio of the step line)", alpha, rho/alpha, rho)
	}
	return alpha, fmt.Sprintf("α = %.3g, raised from 2√η = %.3g so that the minibatch noise adds %.2g of the injected noise (SGHMC's temperature is about 1 + ρ/α, ρ = %.3g the SGLD ratio of the step line: at 2√η the chains would run at about %.2f)", alpha, crit, rho/alpha, rho, 1+rho/crit)
}
