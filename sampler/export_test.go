package sampler

// WithoutCorrection returns s with the proposal-density ratio dropped from the
// acceptance probability (α = π(θ')/π(θ)): a wrong sampler the tests must catch.
func WithoutCorrection(s MALA) MALA {
	s.noCorrection = true
	return s
}

// WithInnerBoundary returns s with the pre-fix extra U-turn checks of a
// trajectory extension, which took the inner end of the previous subtree for
// the old trajectory's outer end: a wrong sampler the tests must catch.
func WithInnerBoundary(s NUTS) NUTS {
	s.innerBoundary = true
	return s
}

// WithBlockNoise returns s with the dense blocks' injected noise scaled by
// f (√2: twice the variance): a wrong sampler the tests must catch.
func WithBlockNoise(s SGHMC, f float64) SGHMC {
	s.blockNoise = f
	return s
}
