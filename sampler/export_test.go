package sampler

// WithoutCorrection returns s with the proposal-density ratio dropped from the
// acceptance probability (α = π(θ')/π(θ)): a wrong sampler the tests must catch.
func WithoutCorrection(s MALA) MALA {
	s.noCorrection = true
	return s
}
