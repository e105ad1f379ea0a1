package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// dimRow is one dimension of stepsByDimension: the steps RWM and MALA keep
// after dual averaging to their optimal acceptance on N(0, I_d), the
// acceptance they then reach, and MALA's acceptance at the step kept in the
// smallest d (a step that does not shrink).
type dimRow struct {
	d                  int
	rwmStep, malaStep  float64
	rwmAcc, malaAcc    float64
	malaAccAtFirstStep float64
}

// stepsByDimension tunes RWM (to acceptance 0.234) and MALA (0.574) by dual
// averaging on the standard normal in each dimension of ds, warm iterations
// of warm-up and n after it, and runs MALA at the step of ds[0] too. The
// optimal-scaling results (Roberts, Gelman & Gilks 1997; Roberts &
// Rosenthal 1998) say the steps must shrink as d grows: RWM's proposal sd
// as d^(−1/2), MALA's step as d^(−1/3).
func stepsByDimension(ctx context.Context, ds []int, warm, n int, seed uint64) ([]dimRow, error) {
	var rows []dimRow
	var first float64
	for i, d := range ds {
		m := model.StdNormal{D: d}
		rng := rand.New(rand.NewPCG(seed, uint64(d)))
		theta0 := make([]float64, d)
		for j := range theta0 {
			theta0[j] = rng.NormFloat64()
		}
		r := dimRow{d: d}
		var err error
		if r.rwmStep, r.rwmAcc, _, err = runTuned(ctx, m, sampler.RWM{Step: 2.38 / math.Sqrt(float64(d)), Adapt: sampler.Adapt{Warmup: warm}}, theta0, warm, n, seed+1); err != nil {
			return nil, fmt.Errorf("RWM, d = %d: %w", d, err)
		}
		if r.malaStep, r.malaAcc, _, err = runTuned(ctx, m, sampler.MALA{Step: 0.5, Adapt: sampler.Adapt{Warmup: warm}}, theta0, warm, n, seed+2); err != nil {
			return nil, fmt.Errorf("MALA, d = %d: %w", d, err)
		}
		if i == 0 {
			first = r.malaStep
		}
		if _, r.malaAccAtFirstStep, _, err = runTuned(ctx, m, sampler.MALA{Step: first, Adapt: sampler.Adapt{Tune: sampler.TuneNone}}, theta0, 200, n, seed+3); err != nil {
			return nil, fmt.Errorf("MALA at a fixed step, d = %d: %w", d, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// logSlope returns the least-squares slope of log y against log x.
func logSlope(x []int, y []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i := range x {
		lx, ly := math.Log(float64(x[i])), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	k := float64(len(x))
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

// checkStepExponent returns an error unless the steps' log-log slope
// against d is within tol of want.
func checkStepExponent(name string, ds []int, steps []float64, want, tol float64) (float64, error) {
	s := logSlope(ds, steps)
	if math.Abs(s-want) > tol {
		return s, fmt.Errorf("%s: the kept step scales as d^%.3f, want d^%.3f ± %.2f", name, s, want, tol)
	}
	return s, nil
}
