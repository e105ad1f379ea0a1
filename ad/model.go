package ad

import (
	"strconv"
	"sync"

	"github.com/langevin-go/langevin/transform"
)

// Model is a langevin.Model whose log prior and log likelihood are written
// once, as functions on a Tape, and differentiated automatically.
//
// θ is the unconstrained vector of the layout (transform.Layout), or a plain
// vector of Dim reals without one. Prior returns the log prior of the
// constrained parameters (read with Tape.Param); LogPrior adds the log
// Jacobian of every block of the layout, so that the sampler sees the density
// of θ.
// Lik returns Σ_{i∈batch} log p(yᵢ | θ) for the rows batch (all rows for a
// nil batch): it must read only those rows (Tape.Rows, Tape.MatVec, the GLM
// nodes take the batch), because stochastic-gradient samplers scale it by
// N/|B|. The Jacobian never enters LogLik, whichever function calls Param.
//
// Each call takes a Tape from a pool and returns it, so one Model serves
// concurrent chains, and after the first calls (which size the tapes) a call
// allocates nothing. Prior and Lik must not retain the tape or its vectors.
type Model struct {
	layout *transform.Layout
	dim, n int
	prior  func(t *Tape) Vec
	lik    func(t *Tape, batch []int) Vec
	pool   sync.Pool
	gen    *Generated
	nder   int // constrained values of the layout's non-identity blocks
}

// New returns the model with parameter layout l (read-only from now on), n
// observations, and the log prior and log likelihood functions. A nil prior
// is flat.
func New(l *transform.Layout, n int, prior func(t *Tape) Vec, lik func(t *Tape, batch []int) Vec) *Model {
	m := &Model{layout: l, dim: l.Dim(), n: n, prior: prior, lik: lik, nder: len(l.DerivedNames())}
	m.pool.New = func() any { return &Tape{layout: l} }
	return m
}

// NewPlain returns the model on a plain vector θ of dim reals (Tape.Theta),
// without a layout.
func NewPlain(dim, n int, prior func(t *Tape) Vec, lik func(t *Tape, batch []int) Vec) *Model {
	m := &Model{dim: dim, n: n, prior: prior, lik: lik}
	m.pool.New = func() any { return &Tape{} }
	return m
}

// Dim returns the length of θ.
func (m *Model) Dim() int { return m.dim }

// Len returns the number of observations.
func (m *Model) Len() int { return m.n }

// Layout returns the model's layout (nil for NewPlain).
func (m *Model) Layout() *transform.Layout { return m.layout }

// ParamNames returns the layout's names of θ, or theta.1, … without one.
func (m *Model) ParamNames() []string {
	if m.layout != nil {
		return m.layout.Names()
	}
	out := make([]string, m.dim)
	for i := range out {
		out[i] = "theta." + strconv.Itoa(i+1)
	}
	return out
}

// DerivedNames returns the names of the constrained values of the
// non-identity blocks followed by those of the generated quantities
// (WithGenerated), stored after θ in every draw.
func (m *Model) DerivedNames() []string {
	var out []string
	if m.layout != nil {
		out = m.layout.DerivedNames()
	}
	if m.gen != nil {
		out = append(out, m.gen.Names()...)
	}
	return out
}

// Derive writes the constrained values of the non-identity blocks, then the
// generated quantities, into dst.
func (m *Model) Derive(theta, dst []float64) {
	if m.layout != nil {
		m.layout.Derive(theta, dst)
	}
	if m.gen != nil {
		m.Generate(theta, dst[m.nder:m.nder+m.gen.Len()])
	}
}

// LogPrior returns the log prior of θ plus the log Jacobian of its
// transforms — of every block of the layout, whether or not Prior reads it —
// and adds its gradient into grad.
func (m *Model) LogPrior(theta, grad []float64) float64 {
	if m.prior == nil && m.layout == nil {
		return 0
	}
	t := m.pool.Get().(*Tape)
	t.reset(theta[:m.dim], grad != nil)
	t.jacAdj = 1
	var v Vec
	if m.prior != nil {
		v = m.prior(t)
	} else {
		v = t.Const(0)
	}
	if m.layout != nil {
		for _, b := range m.layout.Blocks() {
			t.Param(b)
		}
	}
	lp := t.scalar(v, "log prior") + t.jac
	if grad != nil {
		t.backward(v, grad[:m.dim])
	}
	m.pool.Put(t)
	return lp
}

// LogLik returns Σ_{i∈batch} log p(yᵢ | θ) and adds its gradient into grad.
func (m *Model) LogLik(theta []float64, batch []int, grad []float64) float64 {
	t := m.pool.Get().(*Tape)
	lp := m.logLik(t, theta, batch, grad)
	m.pool.Put(t)
	return lp
}

func (m *Model) logLik(t *Tape, theta []float64, batch []int, grad []float64) float64 {
	t.reset(theta[:m.dim], grad != nil)
	t.jacAdj = 0
	v := m.lik(t, batch)
	lp := t.scalar(v, "log likelihood")
	if grad != nil {
		t.backward(v, grad[:m.dim])
	}
	return lp
}

// LogLikPair returns LogLik(a, batch, ga) and LogLik(b, batch, gb), the
// same values bit for bit (langevin.PairLogLik, the control variate's two
// evaluations on one batch), on one tape: a batch's rows gathered from a
// Packed by the first are used again by the second (Tape.Gather).
func (m *Model) LogLikPair(a, b []float64, batch []int, ga, gb []float64) (la, lb float64) {
	t := m.pool.Get().(*Tape)
	t.pair++
	la = m.logLik(t, a, batch, ga)
	t.regather = true
	lb = m.logLik(t, b, batch, gb)
	t.regather = false
	t.pair++
	m.pool.Put(t)
	return la, lb
}
