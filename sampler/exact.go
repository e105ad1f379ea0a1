package sampler

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// exactState is the state shared by the full-data samplers RWM, MALA and
// NUTS: position, its log posterior and gradient, the step size, the
// diagonal metric and the warm-up adapter.
type exactState struct {
	m     langevin.Model
	theta []float64
	grad  []float64 // ∇log p(θ|D); nil for RWM
	lp    float64
	step  float64 // step of the next iteration
	used  float64 // step of the last iteration
	met   *metric // M (NUTS's inverse metric, MALA's preconditioner, RWM's shape)
	ad    *adapter
	stat  float64 // acceptance statistic of the last iteration
	// logAccept proposes with a given step and returns log α (the
	// Metropolis chains': MALA's, RWM's), for findStep.
	logAccept func(step float64) float64
}

func newExactState(m langevin.Model, theta0 []float64, withGrad bool, diag []float64, dense *mat.SymDense, metric MetricAdapt, what string) (*exactState, error) {
	d := m.Dim()
	if len(theta0) != d {
		return nil, fmt.Errorf("sampler: initial point has %d values, model has %d parameters", len(theta0), d)
	}
	met, err := newMetric(d, diag, dense, what)
	if err != nil {
		return nil, err
	}
	if metric == MetricDense {
		met.makeDense()
	}
	s := &exactState{
		m:     m,
		theta: append([]float64(nil), theta0...),
		met:   met,
	}
	if withGrad {
		s.grad = make([]float64, d)
	}
	s.lp = langevin.LogPosterior(m, s.theta, s.grad)
	if math.IsNaN(s.lp) || math.IsInf(s.lp, 0) {
		return nil, fmt.Errorf("sampler: log posterior at the initial point is %v: expected a finite number", s.lp)
	}
	for j, g := range s.grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("sampler: gradient of the log posterior at the initial point is %v (parameter %d): expected a finite number", g, j+1)
		}
	}
	return s, nil
}

// startMetropolis begins the warm-up of a Metropolis chain (MALA, RWM)
// whose s.logAccept is set: from the given step, or when step is 0 from
// Stan's heuristic (findStep from 1 towards the target acceptance).
func (s *exactState) startMetropolis(cfg Adapt, step float64) error {
	if step == 0 {
		var err error
		if step, err = findStep(1, cfg.TargetAccept, s.logAccept); err != nil {
			return err
		}
	}
	s.ad = newAdapter(cfg, step, len(s.theta), true)
	s.step = s.ad.startStep(step)
	return nil
}

func (s *exactState) Position() []float64 { return s.theta }

// EndWarmup implements langevin.WarmupEnder.
func (s *exactState) EndWarmup() { s.ad.end(&s.step) }

// accept is the Metropolis–Hastings decision of the one accept-and-adapt of
// MALA and RWM: it records the acceptance statistic min(1, α) of the
// proposal with log α = logA and reports whether to move to it (drawing a
// uniform only when logA < 0).
func (s *exactState) accept(logA float64, rng interface{ Float64() float64 }) bool {
	s.stat = math.Exp(min(logA, 0))
	return logA >= 0 || math.Log(rng.Float64()) < logA
}

// adapt is the warm-up's adaptation after an accept: the step size by dual
// averaging (or the grid) and the metric in Stan's windows; at the end of a
// window under dual averaging a new initial step is found by Stan's
// heuristic from s.logAccept, and the averaging restarts from it.
func (s *exactState) adapt() error {
	if !s.ad.on || !s.ad.update(&s.step, s.stat, s.theta, s.met) || s.ad.cfg.Tune != TuneDual {
		return nil
	}
	eps, err := findStep(s.step, s.ad.cfg.TargetAccept, s.logAccept)
	if err != nil {
		return err
	}
	s.step = eps
	s.ad.restart(eps)
	return nil
}

// Adapting reports whether the chain is still in its warm-up adaptation.
func (s *exactState) adapting() bool { return s.ad.on }

// checkStep validates a user-given initial step (0 means "find one").
func checkStep(name string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("sampler: %s %v: expected a positive number (0 to find one)", name, v)
	}
	return nil
}

var errStepSearch = errors.New("sampler: no acceptable step size found (the posterior may be improper or the initial point is not in its support)")

// findStep is Stan's init_stepsize heuristic: starting from eps it doubles
// (or halves) the step until the log acceptance ratio logAccept(eps) of one
// proposal crosses log(thr).
func findStep(eps, thr float64, logAccept func(eps float64) float64) (float64, error) {
	lt := math.Log(thr)
	a := logAccept(eps)
	dir := -1.0
	if a > lt {
		dir = 1
	}
	for range 200 {
		a = logAccept(eps)
		if dir == 1 && !(a > lt) {
			break
		}
		if dir == -1 && !(a < lt) {
			break
		}
		if dir == 1 {
			eps *= 2
		} else {
			eps /= 2
		}
		if eps > 1e7 || eps == 0 {
			return 0, errStepSearch
		}
	}
	return eps, nil
}
