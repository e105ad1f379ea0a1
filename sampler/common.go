package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// Clipping limits a gradient before it enters an update (lecture notes 33–37).
//
// Norm scaling replaces v by clip(v, c) = v · min(1, c/‖v‖₂); element-wise
// clipping replaces each vⱼ by max(−c, min(c, vⱼ)). Zero turns a rule off; norm
// scaling is applied first. Clipping changes the gradient and so biases the
// result when it fires often: chains count how often it fired.
type Clipping struct {
	Norm  float64 // c of the norm scaling; 0: off
	Value float64 // c of element-wise clipping; 0: off
}

func (c Clipping) validate() error {
	if c.Norm < 0 || math.IsNaN(c.Norm) {
		return fmt.Errorf("sampler: clip norm %v: expected c > 0 (0 turns clipping off)", c.Norm)
	}
	if c.Value < 0 || math.IsNaN(c.Value) {
		return fmt.Errorf("sampler: clip value %v: expected c > 0 (0 turns clipping off)", c.Value)
	}
	return nil
}

// apply clips v in place and reports whether either rule fired.
func (c Clipping) apply(v []float64) bool {
	fired := false
	if c.Norm > 0 {
		var ss float64
		for _, x := range v {
			ss += x * x
		}
		if n := math.Sqrt(ss); n > c.Norm {
			s := c.Norm / n
			for j := range v {
				v[j] *= s
			}
			fired = true
		}
	}
	if c.Value > 0 {
		for j, x := range v {
			if x > c.Value {
				v[j] = c.Value
				fired = true
			} else if x < -c.Value {
				v[j] = -c.Value
				fired = true
			}
		}
	}
	return fired
}

// Minibatch selects the observations of each step: Size observations (0 for
// the full data set), drawn with replacement or in shuffled epochs.
//
// CV, when not nil, is the centre θ̂ (normally the MAP) of the control-variate
// gradient estimator of Baker et al. (2019), see
// langevin.Estimator.SetControlVariate; every stochastic-gradient sampler
// accepts it. Each chain computes the full-data gradient at θ̂ once, when it
// starts.
//
// Taylor, with CV set, asks for the second-order control variate instead
// (langevin.Estimator.SetTaylorControlVariate): the model must be a
// langevin.TaylorModel with an expansion at CV. Its batch term is the
// remainder of a quadratic expansion of each observation's log-likelihood,
// far smaller than the first-order difference, so a much smaller batch
// suffices.
type Minibatch struct {
	Size    int
	Replace bool
	CV      []float64
	Taylor  bool
}

// gradChain is the state shared by the stochastic-gradient chains: position,
// gradient estimate, schedule and iteration counter.
type gradChain struct {
	est     *langevin.Estimator
	sched   schedule.Schedule
	clip    Clipping
	theta   []float64
	grad    []float64
	t       int     // iterations done
	eta     float64 // step size of the last step
	lp      float64 // log-posterior estimate at the start of the last step
	clipped int     // steps whose gradient was clipped

	explore explorer // the schedule's exploration phases (nil: none)
}

func newGradChain(m langevin.Model, theta0 []float64, mb Minibatch, sched schedule.Schedule, clip Clipping, rng *rand.Rand) (*gradChain, error) {
	if sched == nil {
		return nil, fmt.Errorf("sampler: no step-size schedule")
	}
	if err := sched.Validate(); err != nil {
		return nil, err
	}
	if err := clip.validate(); err != nil {
		return nil, err
	}
	if len(theta0) != m.Dim() {
		return nil, fmt.Errorf("sampler: initial point has %d values, model has %d parameters", len(theta0), m.Dim())
	}
	b, err := langevin.NewBatcher(m.Len(), mb.Size, mb.Replace, rng)
	if err != nil {
		return nil, err
	}
	est := langevin.NewEstimator(m, b)
	switch {
	case mb.CV != nil && mb.Taylor:
		if err := est.SetTaylorControlVariate(mb.CV); err != nil {
			return nil, err
		}
	case mb.CV != nil:
		if err := est.SetControlVariate(mb.CV); err != nil {
			return nil, err
		}
	}
	c := &gradChain{
		est:   est,
		sched: sched,
		clip:  clip,
		theta: append([]float64(nil), theta0...),
		grad:  make([]float64, m.Dim()),
	}
	c.explore, _ = sched.(explorer)
	return c, nil
}

// gradient advances the iteration counter, evaluates ĝ at θ, clips it, and
// returns the step size of this iteration.
func (c *gradChain) gradient() float64 {
	c.t++
	c.eta = c.sched.At(c.t)
	c.lp = c.est.Eval(c.theta, c.grad)
	if c.clip.apply(c.grad) {
		c.clipped++
	}
	return c.eta
}

// alias returns the value of a setting that has a deprecated old name: the
// new one, or the old one when only it is set; both set is an error.
func alias[T any](sampler, name string, v *T, oldName string, old *T) (*T, error) {
	if v != nil && old != nil {
		return nil, fmt.Errorf("sampler: %s: both %s and its deprecated old name %s are set: give %s", sampler, name, oldName, name)
	}
	if v == nil {
		return old, nil
	}
	return v, nil
}

// aliasSlice is alias for a diagonal ([]float64) setting.
func aliasSlice(sampler, name string, v []float64, oldName string, old []float64) ([]float64, error) {
	if v != nil && old != nil {
		return nil, fmt.Errorf("sampler: %s: both %s and its deprecated old name %s are set: give %s", sampler, name, oldName, name)
	}
	if v == nil {
		return old, nil
	}
	return v, nil
}

// diverged returns the error of an optimiser or chain whose position theta
// has a parameter that is not finite at iteration t, naming the method, the
// iteration and the first such parameter (hint, when not empty, in
// brackets: what to do); nil when every parameter is finite.
func diverged(method string, t int, theta []float64, hint string) error {
	for j, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if hint != "" {
				hint = " (" + hint + ")"
			}
			return fmt.Errorf("sampler: %s diverged at iteration %d: parameter %d is %v%s", method, t, j+1, v, hint)
		}
	}
	return nil
}
