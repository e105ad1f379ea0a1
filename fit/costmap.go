package fit

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
)

// costMAPRestarts is how many times costMAP starts L-BFGS afresh from
// where its line search failed.
const costMAPRestarts = 10

// costMAP finds the MAP of a model on the cost plan (CostPlanned) by
// L-BFGS as approx.FindMAP does, but where the line search fails short of
// the mode it starts L-BFGS again from that point with its curvature
// memory cleared, up to 10 times. A hierarchical model's posterior in
// natural units mixes scales (a group's intercept and its slope of x ≈ 40
// ± 12 are nearly collinear), and the memory built far from the mode
// then misleads the search: on 3,000 bernoulli rows in 10 levels with
// varying slopes of such an x, one L-BFGS run stopped with a gradient
// norm of 149 and the run exited at the MAP. The mode is accepted when the
// largest gradient entry is below 10⁻⁴·max(1, |log p(θ₀)|), FindMAP's
// test.
func costMAP(ctx context.Context, m langevin.Model) ([]float64, error) {
	if BlockMAPApplies(m) {
		return BlockMAP(ctx, m)
	}
	d := m.Dim()
	x := make([]float64, d)
	p := approx.MAPProblem(ctx, func(x, grad []float64) float64 { return langevin.LogPosterior(m, x, grad) })
	f0 := math.Abs(p.Func(x))
	g := make([]float64, d)
	var err error
	for k := 0; k <= costMAPRestarts; k++ {
		settings := &optimize.Settings{
			GradientThreshold: 1e-8 * math.Max(1, f0),
			MajorIterations:   10000,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-14, Iterations: 50},
		}
		var res *optimize.Result
		res, err = optimize.Minimize(p, x, settings, &optimize.LBFGS{})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if res == nil {
			return nil, fmt.Errorf("approx: finding the MAP: %w", err)
		}
		for _, v := range res.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("approx: finding the MAP: optimiser diverged (is the posterior proper?)")
			}
		}
		if err == nil {
			return res.X, nil
		}
		clear(g)
		langevin.LogPosterior(m, res.X, g)
		var gmax float64
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		if gmax <= 1e-4*math.Max(1, f0) {
			return res.X, nil
		}
		copy(x, res.X)
		err = fmt.Errorf("approx: finding the MAP: %v (gradient norm %g, after %d restarts of L-BFGS)", err, gmax, k)
	}
	return nil, err
}
