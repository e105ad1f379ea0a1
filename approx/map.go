package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/langevin-go/langevin"
)

// FindMAP returns the maximum a posteriori point of m, the maximiser of
// log p(θ) + Σᵢ log p(zᵢ|θ) on all data, found by L-BFGS from theta0 (nil:
// zero). It is the reference optimum for SGD and the starting point of
// InitMAP. It stops when the gradient's infinity norm is below
// 1e-8·max(1, |log p|) or after 10,000 iterations.
func FindMAP(ctx context.Context, m langevin.Model, theta0 []float64) ([]float64, error) {
	d := m.Dim()
	x0 := make([]float64, d)
	if theta0 != nil {
		if len(theta0) != d {
			return nil, fmt.Errorf("approx: MAP start has %d values, model has %d parameters", len(theta0), d)
		}
		copy(x0, theta0)
	}
	p := MAPProblem(ctx, func(x, grad []float64) float64 { return langevin.LogPosterior(m, x, grad) })
	f0 := math.Abs(p.Func(x0))
	settings := &optimize.Settings{
		GradientThreshold: 1e-8 * math.Max(1, f0),
		MajorIterations:   10000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-14, Iterations: 50},
	}
	res, err := optimize.Minimize(p, x0, settings, &optimize.LBFGS{})
	if res == nil {
		return nil, fmt.Errorf("approx: finding the MAP: %w", err)
	}
	for _, v := range res.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("approx: finding the MAP: optimiser diverged (is the posterior proper?)")
		}
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// Other optimiser errors (line search failures at a flat optimum) leave a
	// usable point; accept it if its gradient is small relative to the start.
	if err != nil {
		g := make([]float64, d)
		langevin.LogPosterior(m, res.X, g)
		var gmax float64
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		if gmax > 1e-4*math.Max(1, f0) {
			return nil, fmt.Errorf("approx: finding the MAP: %v (gradient norm %g)", err, gmax)
		}
	}
	return res.X, nil
}

// MAPProblem is the search for a MAP as gonum's minimisation problem:
// Func(x) = −logPost(x), Grad = −∇logPost(x), with logPost(x, grad) the
// log posterior that writes its gradient into grad (overwritten) when grad
// is not nil; Status fails once ctx is done. FindMAP solves it by L-BFGS;
// a caller with its own evaluation (one split over cores) or settings
// builds on it.
//
// gonum asks for the value and the gradient at a point in two calls, Func
// then Grad: Func computes both in one pass and keeps the gradient, which
// Grad returns when asked at the same point (bit for bit), so a point
// costs one pass instead of a value pass and a gradient pass.
func MAPProblem(ctx context.Context, logPost func(x, grad []float64) float64) optimize.Problem {
	var atX, atG []float64 // the last point of Func and the gradient there
	return optimize.Problem{
		Func: func(x []float64) float64 {
			if atG == nil {
				atX, atG = make([]float64, len(x)), make([]float64, len(x))
			}
			copy(atX, x)
			return -logPost(x, atG)
		},
		Grad: func(grad, x []float64) {
			if atG != nil && slices.Equal(atX, x) {
				copy(grad, atG)
			} else {
				logPost(x, grad)
			}
			for j := range grad {
				grad[j] = -grad[j]
			}
		},
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
}

// InitMAP starts every chain at the MAP (found once, by FindMAP from zero),
// optionally perturbed by independent N(0, Jitter²) noise per coordinate from
// each chain's own stream. Use a pointer: the MAP is cached.
type InitMAP struct {
	Jitter float64

	once  sync.Once
	theta []float64
	err   error
}

// Init implements langevin.Initializer.
func (in *InitMAP) Init(ctx context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	in.once.Do(func() { in.theta, in.err = FindMAP(ctx, m, nil) })
	if in.err != nil {
		return in.err
	}
	copy(dst, in.theta)
	if in.Jitter > 0 {
		for j := range dst {
			dst[j] += in.Jitter * rng.NormFloat64()
		}
	}
	return nil
}

// MAP returns the cached MAP, or nil before the first Init.
func (in *InitMAP) MAP() []float64 { return in.theta }
