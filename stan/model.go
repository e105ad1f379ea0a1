package stan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/transform"
)

// Model is a Stan program with its data as a langevin.Model over package
// ad: θ is the unconstrained vector of the parameters block, in order of
// declaration, and LogPrior is Stan's target — the transformed parameters
// and model blocks with the log Jacobians of the constraint transforms (Stan
// Reference Manual, "Constraint transforms"). Statements y ~ dist(…) leave
// out the terms of constants only, target += dist_lpdf(y | …) keeps them: the
// posterior is the same. The whole target is in LogPrior and Len is 0 (no
// rows to subsample yet).
//
// The draws' derived quantities (langevin.Deriver) are the constrained
// parameters, the transformed parameters and the generated quantities, named
// as CmdStan names them (theta.1, Omega.2.1), containers in column-major
// order as CmdStan writes them.
//
// A Model is safe for concurrent use: each evaluation runs on a tape of
// its own, with the interpreter's buffers kept on the tape.
type Model struct {
	prog     *Program
	slots    []slotInfo
	consts   []val
	params   []param
	outs     []output
	free     []string
	outNames []string
	gq       bool
	ad       *ad.Model
	tapes    sync.Pool
	dry      bool
	funcs    map[string]*FuncDef
	stop     atomic.Bool           // Interrupt: evaluations reject at the next loop iteration
	fault    atomic.Pointer[Error] // the first internal error while sampling
	rejected *Error                // the dry run's last rejection
	onFault  func(error)           // OnFault
	rows     *rowPlan              // NewRows: the row columns and the model block's split
	n        int                   // NewRows: the number of rows
	// Notes says what was left out (generated quantities that draw random
	// numbers).
	Notes []string
}

type param struct {
	d         *Decl
	slot      int
	off, size int
	shape     val
}

type output struct {
	slot int
	perm []int // the row-major position of each column-major value
}

// New checks prog against its data and returns the model. Errors name the
// file, line and column of the construct (or the data's variable) and what
// was expected.
func New(prog *Program, data *Data) (m *Model, err error) { return newModel(prog, data, "") }

// NewRows is New for a program whose likelihood is a sum over the rows of
// its data, rows naming the data block's int that counts them (Stan's N):
// every variable of the data and transformed data blocks whose first
// dimension is written so is a row column. The model block must separate
// into terms that read no row column (LogPrior, with the log Jacobians) and
// terms that read the rows one by one (LogLik(θ, B) = Σ_{i∈B} of them; Len is
// the number of rows), so that stochastic-gradient samplers scale the
// likelihood of a minibatch by N/|B|: vectorised statements whose row
// columns enter element by element (y ~ bernoulli_logit(X * beta)), sums of
// them added to the target, and loops for (n in 1:N) whose body reads row
// n only. Any other statement that reads a row column is refused with its
// file, line and column and what mixes the rows.
func NewRows(prog *Program, data *Data, rows string) (*Model, error) {
	if rows == "" {
		return nil, &Error{File: prog.File, Msg: "NewRows: no row count named"}
	}
	return newModel(prog, data, rows)
}

func newModel(prog *Program, data *Data, rows string) (m *Model, err error) {
	c, err := check(prog)
	if err != nil {
		return nil, err
	}
	m = &Model{prog: prog, slots: c.slots, consts: make([]val, len(c.slots)), funcs: c.funcs}
	if rows != "" {
		if m.rows, err = planRows(prog, c.slots, rows); err != nil {
			return nil, err
		}
	}
	m.gq = prog.Generated != nil && !c.hasRng
	if m.rows != nil && m.rows.note != "" && m.gq {
		m.Notes = append(m.Notes, m.rows.note)
	}
	if c.hasRng {
		m.Notes = append(m.Notes, fmt.Sprintf("%s:%d:%d: the generated quantities block draws random numbers from a distribution without an _rng function here: it is left out of the draws", prog.File, c.rng.Line, c.rng.Col))
	}
	ev := &evaluator{m: m}
	t := &ad.Tape{}
	t.Reset(nil)
	ev.t = t
	ev.env = m.consts
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case runtimeErr:
				m, err = nil, e.Error
			case rejectErr:
				m, err = nil, e.Error
			default: // a bug of the evaluator: an error, not a crash
				m, err = nil, &Error{File: prog.File, Msg: fmt.Sprintf("internal error evaluating the program (please report it): %v", r)}
			}
		}
	}()
	// data
	if prog.Data != nil {
		for _, s := range prog.Data.Stmts {
			d := s.(*Decl)
			x := ev.newVar(d)
			dims := append(append([]int(nil), x.dims...), x.matDims()...)
			ints, reals, err := data.read(d.Name, dims, d.Type == tyInt)
			if err != nil {
				return nil, err
			}
			if x.b == bInt {
				if len(x.dims) == 0 {
					x.i = ints[0]
				} else {
					x.ints = ints
				}
			} else {
				x.es = nil
				if len(reals) > 0 {
					x.v = constVec(reals)
				}
			}
			if err := m.dataCheck(ev, d, x, data); err != nil {
				return nil, err
			}
			m.consts[d.slot] = x
		}
	}
	// transformed data
	if prog.TData != nil {
		for _, s := range prog.TData.Stmts {
			ev.exec(s)
		}
		for _, s := range prog.TData.Stmts {
			if d, ok := s.(*Decl); ok {
				x := materialize(ev, m.consts[d.slot])
				ev.checkConstraint(d, x)
				m.consts[d.slot] = x
			}
		}
	}
	// parameters
	dim := 0
	if prog.Params != nil {
		for _, s := range prog.Params.Stmts {
			d := s.(*Decl)
			x := ev.newVar(d)
			x.es = nil
			p := param{d: d, slot: d.slot, off: dim, shape: x}
			count := 1
			for _, k := range x.dims {
				count *= k
			}
			switch d.Type {
			case tySimplex:
				p.size = count * max(x.r-1, 0)
			case tyCholCorr:
				p.size = count * x.r * (x.r - 1) / 2
			default:
				p.size = x.n()
			}
			dim += p.size
			m.params = append(m.params, p)
			m.free = append(m.free, freeNames(d.Name, p.size)...)
			m.addOutput(d, x)
		}
	}
	// transformed parameters and generated quantities: their shapes
	for _, b := range []*Block{prog.TParams, prog.Generated} {
		if b == nil || b == prog.Generated && !m.gq {
			continue
		}
		for _, s := range b.Stmts {
			if d, ok := s.(*Decl); ok {
				m.addOutput(d, ev.newVar(d))
			}
		}
	}
	if m.rows != nil {
		m.n = m.consts[m.rows.nSlot].i
		m.ad = ad.NewPlain(dim, m.n, m.prior, m.lik)
	} else {
		m.ad = ad.NewPlain(dim, 0, m.prior, func(t *ad.Tape, _ []int) ad.Vec { return t.Const(0) })
	}
	m.tapes.New = func() any { return &ad.Tape{} }
	// a first evaluation finds the errors the checker cannot see
	m.dry = true
	theta := make([]float64, dim)
	lp := m.ad.LogPrior(theta, make([]float64, dim))
	// A program that rejects θ = 0 may accept other points; one that
	// rejects 100 uniform(−2, 2) points (CmdStan's initialisation) too is
	// refused with its rejection.
	rng := rand.New(rand.NewPCG(1, 1))
	for try := 0; math.IsInf(lp, -1) && m.rejected != nil && try < 100; try++ {
		for k := range theta {
			theta[k] = 4*rng.Float64() - 2
		}
		lp = m.ad.LogPrior(theta, nil)
	}
	if math.IsInf(lp, -1) && m.rejected != nil {
		return nil, &Error{File: m.rejected.File, Pos: m.rejected.Pos, Msg: "the log density is −∞ at θ = 0 and at 100 random points in (−2, 2): " + m.rejected.Msg}
	}
	if m.rows != nil && m.n > 0 {
		// the row terms on one row: sizes that do not follow the batch fail here
		m.rejected = nil
		m.ad.LogLik(theta, []int{0}, make([]float64, dim))
	}
	m.rejected = nil
	if len(m.outNames) > 0 {
		m.Derive(theta, make([]float64, len(m.outNames)))
	}
	m.dry = false
	return m, nil
}

// Interrupt makes every evaluation still running, and every later one,
// stop at its next loop iteration with a rejection (log density −∞): a
// program whose loop never ends returns, so that a run stopped by a signal
// or a time limit can end. It is safe to call from any goroutine.
func (m *Model) Interrupt() { m.stop.Store(true) }

// Fault returns the first internal error met while sampling (an error of
// the evaluator, not of the program; its point was given log density −∞),
// or nil.
func (m *Model) Fault() error {
	if e := m.fault.Load(); e != nil {
		return e
	}
	return nil
}

// OnFault sets f to be called once, from the evaluating goroutine, at the
// first internal error (see Fault). Set it before sampling.
func (m *Model) OnFault(f func(error)) { m.onFault = f }

// recovered handles a panic r of an evaluation: the program's errors and
// rejections give log density −∞ (in the dry run, New's errors); any other
// panic is a fault of the evaluator, kept by Fault, and also gives −∞
// instead of crashing the run.
func (m *Model) recovered(r any) {
	switch e := r.(type) {
	case runtimeErr:
		if m.dry {
			panic(r)
		}
	case rejectErr:
		if m.dry {
			m.rejected = e.Error
		}
	default:
		if m.dry {
			panic(r)
		}
		f := &Error{File: m.prog.File, Msg: fmt.Sprintf("internal error evaluating the program (please report it): %v", r)}
		if m.fault.CompareAndSwap(nil, f) && m.onFault != nil {
			m.onFault(f)
		}
	}
}

// evalError converts a panic of the evaluator to an error.
func evalError(r any) error {
	switch e := r.(type) {
	case runtimeErr:
		return e.Error
	case rejectErr:
		return e.Error
	}
	panic(r)
}

func (m *Model) dataCheck(ev *evaluator, d *Decl, x val, data *Data) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e := evalError(r).(*Error)
			err = &Error{File: data.File, Msg: "data " + e.Msg}
		}
	}()
	ev.checkConstraint(d, x)
	return nil
}

// materialize copies x's values out of the arenas into storage of its own.
func materialize(ev *evaluator, x val) val {
	if x.b == bInt {
		if x.ints != nil {
			x.ints = append([]int{}, x.ints...)
		}
		return x
	}
	vs := ev.values(x)
	x.es = nil
	x.v = ad.Vec{}
	if len(vs) > 0 {
		x.v = constVec(append([]float64(nil), vs...))
	}
	return x
}

func freeNames(name string, n int) []string {
	if n == 1 {
		return []string{name + "__free"}
	}
	out := make([]string, n)
	for k := range out {
		out[k] = name + "__free." + strconv.Itoa(k+1)
	}
	return out
}

// addOutput names x's values as CmdStan does: indices 1-based, joined by
// dots, in column-major order.
func (m *Model) addOutput(d *Decl, x val) {
	full := append(append([]int(nil), x.dims...), x.matDims()...)
	n := 1
	for _, k := range full {
		n *= k
	}
	o := output{slot: d.slot, perm: make([]int, n)}
	idx := make([]int, len(full))
	for k := 0; k < n; k++ { // idx counts column-major: the first index fastest
		pos, name := 0, d.Name
		for j := range full {
			pos = pos*full[j] + idx[j]
			name += "." + strconv.Itoa(idx[j]+1)
		}
		o.perm[k] = pos
		m.outNames = append(m.outNames, name)
		for j := 0; j < len(full); j++ {
			idx[j]++
			if idx[j] < full[j] {
				break
			}
			idx[j] = 0
		}
	}
	m.outs = append(m.outs, o)
}

// Dim returns the number of unconstrained parameters.
func (m *Model) Dim() int { return m.ad.Dim() }

// Len returns the number of rows (NewRows), or 0: the whole target is in
// LogPrior.
func (m *Model) Len() int { return m.n }

// LogPrior returns Stan's target at θ and adds its gradient into grad: all
// of it, or (NewRows) its terms that read no row and the log Jacobians.
// Where the program rejects θ (reject, a constraint of a transformed
// parameter, an argument outside a density's support) it is −∞.
func (m *Model) LogPrior(theta, grad []float64) float64 { return m.ad.LogPrior(theta, grad) }

// LogLik returns the terms of Stan's target that read the rows, summed over
// the rows batch (0-based; nil: all), and adds their gradient into grad
// (NewRows); otherwise 0.
func (m *Model) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if m.rows == nil {
		return 0
	}
	return m.ad.LogLik(theta, batch, grad)
}

// LogLikPair returns LogLik at a and at b on one batch (langevin.PairLogLik).
func (m *Model) LogLikPair(a, b []float64, batch []int, ga, gb []float64) (la, lb float64) {
	if m.rows == nil {
		return 0, 0
	}
	return m.ad.LogLikPair(a, b, batch, ga, gb)
}

// ParamNames returns the names of θ: a parameter's name with __free, and
// the 1-based position in its unconstrained vector.
func (m *Model) ParamNames() []string { return m.free }

// DerivedNames returns CmdStan's names of the parameters, transformed
// parameters and generated quantities.
func (m *Model) DerivedNames() []string { return m.outNames }

// Derive writes the parameters, transformed parameters and generated
// quantities at θ into dst, NaN where the program rejects θ.
func (m *Model) Derive(theta, dst []float64) {
	t := m.tapes.Get().(*ad.Tape)
	defer m.tapes.Put(t)
	t.Reset(theta[:m.Dim()])
	ev := m.evaluatorOf(t)
	ev.seedFrom(theta[:m.Dim()])
	for k := range dst[:len(m.outNames)] {
		dst[k] = math.NaN()
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				m.recovered(r)
			}
		}()
		m.setParams(ev, t.Theta(), false)
		ev.execBlock(m.prog.TParams)
		if m.gq {
			ev.execBlock(m.prog.Generated)
		}
	}()
	off := 0
	for _, o := range m.outs {
		x := ev.env[o.slot]
		if len(o.perm) == 0 {
			continue
		}
		if x.b != bInt && x.v.Len() == 0 && x.es == nil {
			off += len(o.perm)
			continue
		}
		vs := ev.values(x)
		for k, p := range o.perm {
			dst[off+k] = vs[p]
		}
		off += len(o.perm)
	}
}

func (m *Model) evaluatorOf(t *ad.Tape) *evaluator {
	ev, _ := t.Scratch().(*evaluator)
	if ev == nil {
		ev = &evaluator{m: m}
		t.SetScratch(ev)
	}
	ev.reset(t)
	return ev
}

// prior evaluates the target on t.
func (m *Model) prior(t *ad.Tape) (out ad.Vec) {
	ev := m.evaluatorOf(t)
	defer func() {
		if r := recover(); r != nil {
			m.recovered(r)
			out = t.Const(math.Inf(-1))
		}
	}()
	m.setParams(ev, t.Theta(), true)
	if m.rows != nil {
		ev.mode = modePrior
		defer func() { ev.mode = modeAll }()
	}
	if b := m.prog.TParams; b != nil {
		ev.execBlock(b)
		for _, s := range b.Stmts {
			if d, ok := s.(*Decl); ok {
				ev.checkConstraint(d, ev.env[d.slot])
			}
		}
	}
	ev.execBlock(m.prog.Model)
	return ev.total()
}

// setParams constrains θ into the parameters' variables, adding the log
// Jacobians to the target when jac is set.
func (m *Model) setParams(ev *evaluator, theta ad.Vec, jac bool) {
	t := ev.t
	for _, p := range m.params {
		x := p.shape
		if p.size == 0 {
			ev.env[p.slot] = x
			continue
		}
		u := theta.Slice(p.off, p.off+p.size)
		d := p.d
		n := p.size
		count := 1
		for _, k := range x.dims {
			count *= k
		}
		switch d.Type {
		case tySimplex, tyOrdered, tyCholCorr:
			var tr transform.Transform
			switch d.Type {
			case tySimplex:
				tr = transform.Simplex(x.r)
			case tyOrdered:
				tr = transform.Ordered(x.r)
			default:
				tr = transform.CholeskyCorr(x.r)
			}
			if count == 1 {
				x.v = t.Constrain(tr, u)
				break
			}
			es := ev.vecs(x.n())
			for k := 0; k < count; k++ {
				y := t.Constrain(tr, u.Slice(k*tr.Size(), (k+1)*tr.Size()))
				for j := 0; j < tr.Len(); j++ {
					es[k*tr.Len()+j] = y.At(j)
				}
			}
			x.es = es
		case tyPositiveOrdered:
			e := t.Exp(u)
			if count == 1 {
				x.v = t.CumSum(e)
			} else {
				es := ev.vecs(n)
				for k := 0; k < count; k++ {
					y := t.CumSum(e.Slice(k*x.r, (k+1)*x.r))
					for j := 0; j < x.r; j++ {
						es[k*x.r+j] = y.At(j)
					}
				}
				x.es = es
			}
			if jac {
				ev.addTerm(t.Sum(u))
			}
		default:
			x.v = ev.bounded(p, u, jac)
		}
		ev.env[p.slot] = x
	}
}

// bound evaluates a bound or an affine setting: nil when absent or
// infinite.
func (ev *evaluator) bound(e Expr, n int, name string) (ad.Vec, bool) {
	if e == nil {
		return ad.Vec{}, false
	}
	b := ev.eval(e)
	v := ev.flat(b)
	if v.Len() != 1 && v.Len() != n {
		ev.fail(e.pos(), "the bound of %s has %d values, want 1 or %d", name, v.Len(), n)
	}
	if v.Len() == 1 && math.IsInf(ev.t.Values(v)[0], 0) {
		return ad.Vec{}, false
	}
	return v, true
}

// bounded applies the lower, upper, lower-and-upper or affine transform.
func (ev *evaluator) bounded(p param, u ad.Vec, jac bool) ad.Vec {
	t := ev.t
	d := p.d
	n := u.Len()
	lo, hasLo := ev.bound(d.Lower, n, d.Name)
	hi, hasHi := ev.bound(d.Upper, n, d.Name)
	times := func(v ad.Vec) ad.Vec { // Σ over n elements of a broadcast v
		if v.Len() == 1 && n > 1 {
			return t.Mul(ev.cnst(float64(n)), v)
		}
		return t.Sum(v)
	}
	switch {
	case hasLo && hasHi:
		w := t.Sub(hi, lo)
		for i, v := range t.Values(w) {
			if !(v > 0) {
				ev.reject(d.Pos, "%s: upper bound not above the lower bound (element %d: width %v)", d.Name, i+1, v)
			}
		}
		s := t.Sigmoid(u)
		y := t.Add(lo, t.Mul(w, s))
		if jac {
			ev.addTerm(times(t.Log(w)))
			ev.addTerm(t.Neg(t.Sum(t.Add(t.Softplus(u), t.Softplus(t.Neg(u))))))
		}
		return y
	case hasLo:
		if jac {
			ev.addTerm(t.Sum(u))
		}
		return t.Add(lo, t.Exp(u))
	case hasHi:
		if jac {
			ev.addTerm(t.Sum(u))
		}
		return t.Sub(hi, t.Exp(u))
	}
	off, hasOff := ev.bound(d.Offset, n, d.Name)
	mul, hasMul := ev.bound(d.Multiplier, n, d.Name)
	y := u
	if hasMul {
		for i, v := range t.Values(mul) {
			if !(v > 0) {
				ev.reject(d.Pos, "%s: multiplier (element %d) is %v, must be positive", d.Name, i+1, v)
			}
		}
		y = t.Mul(mul, y)
		if jac {
			ev.addTerm(times(t.Log(mul)))
		}
	}
	if hasOff {
		y = t.Add(off, y)
	}
	return y
}

// userDist returns the user-defined density dist_lpdf or dist_lpmf, nil
// if there is none.
func (m *Model) userDist(dist string) *FuncDef {
	if len(m.funcs) == 0 {
		return nil
	}
	if f := m.funcs[dist+"_lpdf"]; f != nil {
		return f
	}
	return m.funcs[dist+"_lpmf"]
}

// lik evaluates the row terms of the target on the rows batch (NewRows):
// the row columns gathered to |B| rows, the row count reading |B| where it
// sizes a row-wise local or bounds the loop over the rows.
func (m *Model) lik(t *ad.Tape, batch []int) (out ad.Vec) {
	ev := m.evaluatorOf(t)
	defer func() {
		if r := recover(); r != nil {
			m.recovered(r)
			out = t.Const(math.Inf(-1))
		}
	}()
	m.setParams(ev, t.Theta(), false)
	if b := m.prog.TParams; b != nil {
		ev.execBlock(b)
	}
	ev.terms = ev.terms[:0]
	ev.mode = modeRows
	ev.rowN = m.n
	if batch != nil {
		ev.rowN = len(batch)
		for _, s := range m.rows.cols {
			ev.env[s] = ev.gather(m.consts[s], batch)
		}
	}
	ev.execBlock(m.prog.Model)
	return ev.total()
}

// gather returns the rows batch of the row column x: its first dimension
// |B|, storage from the arenas.
func (ev *evaluator) gather(x val, batch []int) val {
	n := len(batch)
	y := x
	var rows int
	switch {
	case len(x.dims) > 0:
		rows = x.dims[0]
		y.dims = ev.ints(len(x.dims))
		copy(y.dims, x.dims)
		y.dims[0] = n
	case x.b == bRow:
		rows, y.c = x.c, n
	default:
		rows, y.r = x.r, n
	}
	stride := 0
	if rows > 0 {
		stride = x.n() / rows
	}
	if x.b == bInt {
		y.ints = ev.ints(n * stride)
		for j, i := range batch {
			copy(y.ints[j*stride:(j+1)*stride], x.ints[i*stride:(i+1)*stride])
		}
		return y
	}
	if n*stride == 0 {
		y.v = ad.Vec{}
		return y
	}
	src := ev.t.Values(x.v)
	dst := ev.floats(n * stride)
	if stride == 1 {
		for j, i := range batch {
			dst[j] = src[i]
		}
	} else {
		for j, i := range batch {
			copy(dst[j*stride:(j+1)*stride], src[i*stride:(i+1)*stride])
		}
	}
	y.es = nil
	y.v = constVec(dst)
	return y
}
