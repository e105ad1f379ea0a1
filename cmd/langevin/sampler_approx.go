package main

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
)

// The approximations that fit during the burn-in and then draw independently
// from their Gaussian: SWAG and mean-field VI.

func init() {
	registerSampler(&samplerDef{name: "swag", family: "approximations", kind: samplerKind{minibatch: true, needsBurnin: true},
		build: buildSWAG, summary: "SWAG (Maddox et al. 2019): constant SGD at Mandt's η*, a snapshot per epoch, Gaussian fit",
		check: func(c *runConfig) error {
			switch {
			case c.schedule != "const":
				return inputErrorf("--schedule %s: SWAG runs SGD at a constant step: expected const", c.schedule)
			case c.batch == 0:
				return inputErrorf("--batch 0: SWAG needs minibatches (constant SGD with gradient noise)")
			}
			return nil
		}})
	registerSampler(&samplerDef{name: "vi", family: "approximations", kind: samplerKind{minibatch: true, needsBurnin: true},
		build: buildVI, summary: "mean-field Gaussian VI by natural-gradient BBVI, averaged over the burn-in's second half"})
}

// buildSWAG runs constant SGD at --step, by default at the optimal constant
// SGD rate η* = 2|B|D/(N² Tr C) (Mandt et al. eq. 15 in our convention) at
// the MAP.
func buildSWAG(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	c := b.c
	eta := c.step
	if !c.stepSet {
		at := b.mapTh
		if at == nil {
			at = make([]float64, b.m.Dim())
		}
		var err error
		if eta, err = approx.OptimalStep(b.m, at, c.batch, 1000, langevin.ChainRNG(c.seed, 1<<20)); err != nil {
			return nil, fmt.Errorf("SWAG default step: %w (give --step)", err)
		}
	}
	b.recordStep(eta)
	return approx.SWAG{Step: eta, Batch: b.minibatch()}, nil
}

// buildVI returns mean-field VI; --step and --schedule set its ρₜ when given.
func buildVI(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	v := approx.VI{Batch: b.minibatch(), AverageFrom: b.c.burnin / 2}
	if b.c.stepSet {
		sched, err := b.schedule(0)
		if err != nil {
			return nil, err
		}
		v.Step = sched
	}
	return v, nil
}
