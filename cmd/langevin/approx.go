package main

import (
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// checkClassLabels reports the first label that is not an integer class
// 0, 1, … (naming the file and line) and raises f.classes to cover it.
func checkClassLabels(f *runFlags, d *data.Dataset, headerLines int) error {
	for i, y := range d.Y {
		if _, err := model.CheckClassLabels([]float64{y}, 0); err != nil {
			return inputErrorf("%s:%d: label %v in column %q: softmax regression expects integer class labels 0, 1, …, K−1", d.Source, i+1+headerLines, y, d.Target)
		}
		f.classes = max(f.classes, int(y)+1)
	}
	return nil
}

// approxStep sets the default --step of SWAG: the optimal constant SGD rate
// η* = 2|B|D/(N² Tr C) (Mandt et al. eq. 15 in our convention) at the MAP.
func approxStep(f *runFlags, m langevin.Model, mapTheta []float64) error {
	if f.sampler != "swag" || f.set["step"] {
		return nil
	}
	at := mapTheta
	if at == nil {
		at = make([]float64, m.Dim())
	}
	b := f.batch
	if b == 0 {
		return inputErrorf("--batch 0: SWAG needs minibatches (constant SGD with gradient noise)")
	}
	eta, err := approx.OptimalStep(m, at, b, 1000, langevin.ChainRNG(f.seed, 1<<20))
	if err != nil {
		return fmt.Errorf("SWAG default step: %w (give --step)", err)
	}
	f.step = eta
	f.set["step"] = true
	return nil
}

// buildApprox returns SWAG (constant SGD at --step, a snapshot per epoch) or
// mean-field VI (natural-gradient BBVI; --step and --schedule set ρₜ when
// given, averaged over the second half of the burn-in).
func buildApprox(f *runFlags, sched schedule.Schedule, mb sampler.Minibatch) (langevin.Sampler, error) {
	if f.sampler == "swag" {
		if f.schedule != "const" {
			return nil, inputErrorf("--schedule %s: SWAG runs SGD at a constant step: expected const", f.schedule)
		}
		return approx.SWAG{Step: f.step, Batch: mb}, nil
	}
	v := approx.VI{Batch: mb, AverageFrom: f.burnin / 2}
	if f.set["step"] {
		v.Step = sched
	}
	return v, nil
}
