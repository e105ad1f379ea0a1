package fit

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
)

// The approximations that fit during the burn-in and then draw independently
// from their Gaussian: SWAG and mean-field VI.

func init() {
	RegisterSampler(&SamplerDef{name: "swag", family: "approximations", misfit: "SWAG's covariance is that of SGD iterates (Maddox et al. 2019), set by the learning rate and the minibatch noise, not by the posterior.", Kind: SamplerKind{Minibatch: true, needsBurnin: true},
		Build: buildSWAG, summary: "SWAG (Maddox et al. 2019): constant SGD at Mandt's η*, a snapshot per epoch, Gaussian fit",
		Check: func(c *Config) error {
			switch {
			case c.Schedule != "const":
				return InputErrorf("{schedule} %s: SWAG runs SGD at a constant step: expected const", c.Schedule)
			case c.Batch == 0:
				return InputErrorf("{batch} 0: SWAG needs minibatches (constant SGD with gradient noise)")
			}
			return nil
		}})
	RegisterSampler(&SamplerDef{name: "vi", family: "approximations", misfit: "Mean-field VI ignores the correlations and underestimates the marginal sds of correlated parameters.", Kind: SamplerKind{Minibatch: true, needsBurnin: true},
		Build: buildVI, summary: "mean-field Gaussian VI by natural-gradient BBVI, averaged over the burn-in's second half"})
}

// swagNetIters is SWAG's run length on a network unless {iters} is given:
// 20,000 iterations a chain, the second half's iterates (thin 10, 1,000 a
// chain) making the Gaussian. At the capped step (η·λmax(H) = 0.1) the
// moments settle well within that on the UCI sets (3–7 s of CPU a split),
// and predictions are then within a few percent of the MAP network's; the
// general default (500,000 iterations) took 15.7 s of CPU on moons for the
// same answer.
const swagNetIters = 20000

// swagNetLength sets SWAG's length on a network (swagNetIters) where the
// flags leave it.
func swagNetLength(c *Config) {
	if c.Set["iters"] {
		return
	}
	c.Iters = swagNetIters
	if !c.Set["burnin"] {
		c.Burnin = c.Iters / 2
	}
	if !c.Set["thin"] {
		c.Thin = 10
	}
}

// buildSWAG runs constant SGD at {step}, by default at the optimal constant
// SGD rate η* = 2|B|D/(N² Tr C) (Mandt et al. eq. 15 in our convention) at
// the MAP.
func buildSWAG(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c := b.C
	eta := c.Step
	if !c.StepSet {
		at := b.MapTh
		if at == nil {
			at = make([]float64, b.M.Dim())
		}
		var err error
		if eta, err = approx.OptimalStep(b.M, at, c.Batch, 1000, langevin.ChainRNG(c.Seed, 1<<20)); err != nil {
			return nil, fmt.Errorf("SWAG default step: %w (give {step})", err)
		}
		if _, isNet := b.M.(Network); isNet {
			// A network's curvature at the MAP can be far above what η* assumes
			// (moons: SGD at η* left the mode, BMA accuracy 0.46 against the
			// MAP's 1.00): cap the step at 0.1/λmax(H), λmax by power iteration
			// on Hessian-vector products, so that SGD stays in the mode's basin.
			lmax, err := LambdaMaxHVP(ctx, b.M, at, nil, langevin.ChainRNG(c.Seed, 1<<21))
			if err != nil {
				return nil, fmt.Errorf("SWAG step on a network: %w (give {step})", err)
			}
			if cap := 0.1 / lmax; eta > cap {
				b.StepNote = fmt.Sprintf("step:     SWAG's η* = %.3g capped at 0.1/λmax(H) = %.3g (λmax %.3g by power iteration at the MAP): on a network η* leaves the mode", eta, cap, lmax)
				eta = cap
			}
		}
	}
	if _, isNet := b.M.(Network); isNet && !c.Set["iters"] {
		if b.StepNote != "" {
			b.StepNote += "\n"
		}
		b.StepNote += fmt.Sprintf("length:   SWAG on a network: %d iterations a chain, the Gaussian from the second half (thin %d), unless {iters}", c.Iters, c.Thin)
	}
	b.recordStep(eta)
	return approx.SWAG{Step: eta, Batch: b.minibatch()}, nil
}

// buildVI returns mean-field VI; {step} and {schedule} set its ρₜ when given.
func buildVI(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	v := approx.VI{Batch: b.minibatch(), AverageFrom: b.C.Burnin / 2}
	if b.C.StepSet {
		sched, err := b.schedule(0)
		if err != nil {
			return nil, err
		}
		v.Step = sched
	}
	return v, nil
}
