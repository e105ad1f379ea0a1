package sampler

import "math/rand/v2"

// langevinStep is the one Langevin step of the package: SGLD's move (every
// form of its preconditioner), pSGLD's and MALA's proposal are this step,
//
//	θ' = θ + η (M g + Γ) + σ R ξ,  ξ ~ N(0, I),  R Rᵀ = M,
//
// with g the (estimated) gradient of the log posterior, σ = √(2ητ) (0 in
// a cyclical schedule's exploration), M the metric mt (a diagonal, a dense
// matrix with its Cholesky factor R = L, or an operator with its root R)
// and Γ (nil: 0) the correction of a position-dependent diagonal M (pSGLD's
// Γⱼ = ∂Mⱼⱼ/∂θⱼ). It draws the d normals ξ in coordinate order, one per
// coordinate, and keeps them in xi (MALA's proposal density needs them).
// Its buffers are the chain's; it allocates nothing.
//
// The order of the floating-point operations is part of every chain's
// draws (TestGolden pins them bit for bit), so it is fixed here once per
// form:
//
//   - a move (dst is theta) with a diagonal M: θⱼ + ((η Mⱼ) gⱼ + (σ √Mⱼ) ξⱼ),
//     and with a drift d = M g + Γ given (pSGLD): θⱼ + (η dⱼ + (σ √Mⱼ) ξⱼ);
//   - a move with a dense M or an operator: θⱼ + (η (Mg)ⱼ + σ (Rξ)ⱼ);
//   - a proposal (dst is not theta; MALA): (θⱼ + η (Mg)ⱼ) + σ (Rξ)ⱼ, the
//     diagonal M applied as an operator, (Mg)ⱼ = Mⱼgⱼ, (Rξ)ⱼ = √Mⱼ ξⱼ.
type langevinStep struct {
	mt         *metric
	mg, xi, rx []float64 // scratch: M g (or the drift), ξ, R ξ
}

// newLangevinStep returns the step over mt with its buffers.
func newLangevinStep(mt *metric) *langevinStep {
	return &langevinStep{mt: mt, mg: make([]float64, mt.d), xi: make([]float64, mt.d), rx: make([]float64, mt.d)}
}

// move takes the step in place: θ ← θ + η M g + σ R ξ.
func (s *langevinStep) move(theta, g []float64, eta, sd float64, rng *rand.Rand) {
	mt := s.mt
	if !mt.dense && mt.op == nil {
		for j, gj := range g {
			theta[j] += eta*mt.diag[j]*gj + sd*mt.sqrt[j]*rng.NormFloat64()
		}
		return
	}
	mt.mul(s.mg, g)
	s.draw(rng)
	for j := range theta {
		theta[j] += eta*s.mg[j] + sd*s.rx[j]
	}
}

// moveDrift takes the step in place with the drift d = M g + Γ given (a
// diagonal M): θ ← θ + η d + σ √M ξ.
func (s *langevinStep) moveDrift(theta, drift []float64, eta, sd float64, rng *rand.Rand) {
	sq := s.mt.sqrt
	for j, dj := range drift {
		theta[j] += eta*dj + sd*sq[j]*rng.NormFloat64()
	}
}

// propose writes the step from theta into dst (not theta) and keeps ξ in
// s.xi: dst = θ + η M g + σ R ξ.
func (s *langevinStep) propose(dst, theta, g []float64, eta, sd float64, rng *rand.Rand) {
	s.mt.mul(s.mg, g)
	s.draw(rng)
	for j, x := range theta {
		dst[j] = x + eta*s.mg[j] + sd*s.rx[j]
	}
}

// draw sets ξ ~ N(0, I) and R ξ.
func (s *langevinStep) draw(rng *rand.Rand) {
	for j := range s.xi {
		s.xi[j] = rng.NormFloat64()
	}
	s.mt.mulL(s.rx, s.xi)
}
