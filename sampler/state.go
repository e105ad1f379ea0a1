package sampler

import (
	"fmt"

	"github.com/langevin-go/langevin"
)

// The chains' states, for checkpoints (langevin.Resumable): each State
// visits what its Step and Stats read and change, in a fixed order; the
// settings, what NewChain derives from them (preconditioners, a control
// variate's full-data gradient at its fixed centre, schedules, which are
// functions of the iteration counter) and scratch buffers that every step
// overwrites before reading are left out. TestResumeExact checks each one:
// a chain restored into another, started elsewhere with another stream,
// steps as the original bit for bit. The shared parts (gradChain,
// exactState) have an unexported state method, so that a chain that embeds
// them and holds more is not Resumable until it says so.

// state visits the shared state of the stochastic-gradient chains: position,
// last gradient estimate, iteration counter (the schedule's position: a
// cyclical schedule and its exploration phases are functions of it), the
// last step's size and log-density estimate, the clipping count and the
// batcher's epoch.
func (c *gradChain) state(s *langevin.StateCoder) {
	s.Floats(c.theta)
	s.Floats(c.grad)
	s.Int(&c.t)
	s.Float(&c.eta)
	s.Float(&c.lp)
	s.Int(&c.clipped)
	c.est.Batcher().State(s)
}

// State implements langevin.Resumable.
func (c *sgldChain) State(s *langevin.StateCoder) {
	c.gradChain.state(s)
	s.Float(&c.tau)
	s.Float(&c.noiseGrad)
}

// State implements langevin.Resumable: with the velocity and the
// thermostat's friction.
func (c *sghmcChain) State(s *langevin.StateCoder) {
	c.gradChain.state(s)
	s.Float(&c.tau)
	s.Floats(c.v)
	s.Float(&c.inj)
	s.Float(&c.xi)
}

// state visits the state shared by the exact samplers: position, its log
// posterior and gradient, step sizes, the metric and the warm-up adapter.
func (e *exactState) state(s *langevin.StateCoder) {
	s.Floats(e.theta)
	if e.grad != nil {
		s.Floats(e.grad)
	}
	s.Float(&e.lp)
	s.Float(&e.step)
	s.Float(&e.used)
	s.Float(&e.stat)
	e.met.state(s)
	e.ad.state(s)
}

// state visits the metric: its diagonal or dense matrix and factor.
func (mt *metric) state(s *langevin.StateCoder) {
	dense := mt.dense
	s.Bool(&dense)
	if dense != mt.dense {
		s.Fail(fmt.Errorf("sampler: metric state: dense %t, the chain's %t (a state of other settings)", dense, mt.dense))
		return
	}
	s.Floats(mt.diag)
	s.Floats(mt.sqrt)
	if mt.dense {
		s.Floats(mt.m)
		s.Floats(mt.l)
	}
}

// state visits the warm-up adapter: dual averaging, the metric's windows and
// Welford sums, the grid's tallies.
func (a *adapter) state(s *langevin.StateCoder) {
	s.Bool(&a.on)
	s.Int(&a.t)
	d := &a.dual
	s.Float(&d.mu)
	s.Float(&d.counter)
	s.Float(&d.sBar)
	s.Float(&d.xBar)
	if a.metric {
		w := &a.win
		s.Int(&w.counter)
		s.Int(&w.size)
		s.Int(&w.next)
		s.Int(&w.n)
		s.Floats(w.mean)
		s.Floats(w.m2)
		s.Bool(&w.off)
	}
	s.Floats(a.grid) // from the initial step the chain found, unless given
	s.Floats(a.gridSum)
	s.Ints(a.gridN)
	s.Floats(a.prev)
}

// State implements langevin.Resumable: the exact state, the step found by
// the warm-up, and the last transition's statistics.
func (c *nutsChain) State(s *langevin.StateCoder) {
	c.exactState.state(s)
	s.Float(&c.energy)
	s.Int(&c.lastDepth)
	s.Int(&c.lastLeap)
	s.Bool(&c.lastDiv)
}

// State implements langevin.Resumable.
func (c *malaChain) State(s *langevin.StateCoder) { c.exactState.state(s) }

// State implements langevin.Resumable.
func (c *rwmChain) State(s *langevin.StateCoder) { c.exactState.state(s) }

// State implements langevin.Resumable: with the moving average V of the
// squared gradients and the preconditioner's mean.
func (c *psgldChain) State(s *langevin.StateCoder) {
	c.gradChain.state(s)
	s.Float(&c.tau)
	s.Floats(c.v)
	s.Floats(c.gdiag)
	s.Float(&c.gmean)
}

// State implements langevin.Resumable.
func (c *sgdChain) State(s *langevin.StateCoder) {
	c.gradChain.state(s)
	s.Float(&c.norm)
}

// State implements langevin.Resumable: with the momentum, the last step's
// h (the closing half kick) and injected variance.
func (c *baoabChain) State(s *langevin.StateCoder) {
	c.gradChain.state(s)
	s.Floats(c.p)
	s.Float(&c.hLast)
	s.Float(&c.inj)
}
