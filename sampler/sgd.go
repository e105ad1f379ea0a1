package sampler

import (
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// SGD is stochastic gradient ascent on the log posterior (lecture notes
// Algorithm 13), the minibatch optimiser for the MAP:
//
//	θ ← θ + ηₜ clip(ĝ(θ)),
//
// with ĝ the minibatch estimate of ∇log p(θ|D) (scaled by N/|B|). With
// Batch.Size 0 it is full-batch gradient descent on −log p(θ|D) (GD, notes eq.
// 2.2). Use a decaying schedule (schedule.Polynomial) for convergence to the
// MAP; with a constant step the iterates fluctuate around it.
//
// Per-draw statistics: lp__ (the minibatch estimate of log p(θ|D) before the
// step), stepsize__ (ηₜ), grad_norm__ (‖ĝ‖ after clipping), clipped__ (number
// of steps clipped so far).
type SGD struct {
	Step  schedule.Schedule
	Batch Minibatch
	Clip  Clipping
}

// GD returns full-batch gradient descent with the given schedule.
func GD(step schedule.Schedule) SGD { return SGD{Step: step} }

// StatNames implements langevin.Sampler.
func (s SGD) StatNames() []string {
	return []string{"lp__", "stepsize__", "grad_norm__", "clipped__"}
}

// NewChain implements langevin.Sampler.
func (s SGD) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	g, err := newGradChain(m, theta0, s.Batch, s.Step, s.Clip, rng)
	if err != nil {
		return nil, err
	}
	return &sgdChain{gradChain: g}, nil
}

// sgdStep moves θ by ηₜ∇log π̂(θ) (one minibatch gradient, no noise) and
// returns the gradient's Euclidean norm: the step of SGD and of
// Polyak-averaged SGD.
func (c *gradChain) sgdStep() float64 {
	eta := c.gradient()
	var ss float64
	for j, g := range c.grad {
		c.theta[j] += eta * g
		ss += g * g
	}
	return math.Sqrt(ss)
}

type sgdChain struct {
	*gradChain
	norm float64
}

func (c *sgdChain) Step() error {
	c.norm = c.sgdStep()
	return nil
}

func (c *sgdChain) Position() []float64 { return c.theta }

func (c *sgdChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2], dst[3] = c.lp, c.eta, c.norm, float64(c.clipped)
}
