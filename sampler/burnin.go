package sampler

import "github.com/langevin-go/langevin"

// withBurnIn returns a with an unset (zero) warm-up length replaced by the
// burn-in.
func (a Adapt) withBurnIn(burnIn int) Adapt {
	if a.Warmup == 0 {
		a.Warmup = burnIn
	}
	return a
}

// WithBurnIn implements langevin.BurnInSetter: an unset Adapt.Warmup becomes
// the run's burn-in.
func (s MALA) WithBurnIn(burnIn int) langevin.Sampler { s.Adapt = s.Adapt.withBurnIn(burnIn); return s }

// WithBurnIn implements langevin.BurnInSetter: an unset Adapt.Warmup becomes
// the run's burn-in.
func (s NUTS) WithBurnIn(burnIn int) langevin.Sampler { s.Adapt = s.Adapt.withBurnIn(burnIn); return s }

// WithBurnIn implements langevin.BurnInSetter: an unset Adapt.Warmup becomes
// the run's burn-in.
func (s RWM) WithBurnIn(burnIn int) langevin.Sampler { s.Adapt = s.Adapt.withBurnIn(burnIn); return s }
