package sampler

import (
	"fmt"
	"math"
)

// Tuning selects how an exact sampler (RWM, MALA, NUTS) tunes its step size
// during warm-up.
type Tuning int

const (
	// TuneDual is Nesterov dual averaging of log step size toward a target
	// mean acceptance statistic (Hoffman & Gelman 2014, §3.2, as in Stan):
	//
	//	s̄ₜ = (1 − 1/(t+t₀)) s̄ₜ₋₁ + (δ − αₜ)/(t+t₀),
	//	xₜ = μ − √t s̄ₜ/γ,  x̄ₜ = t^(−κ) xₜ + (1 − t^(−κ)) x̄ₜ₋₁,
	//
	// with γ = 0.05, t₀ = 10, κ = 0.75 and μ = log(10 ε₀); the step of
	// iteration t+1 is e^(xₜ), and e^(x̄) after warm-up. It is the default.
	TuneDual Tuning = iota
	// TuneNone keeps the given step size.
	TuneNone
	// TuneGrid is the seed report's procedure: the warm-up is split into
	// equal segments, one per step size of the grid; each segment runs at its
	// step size and is scored by its mean acceptance statistic, and the step
	// size whose score is closest to the target is kept after warm-up.
	TuneGrid
)

// String returns none, dual or grid.
func (t Tuning) String() string {
	switch t {
	case TuneNone:
		return "none"
	case TuneDual:
		return "dual"
	case TuneGrid:
		return "grid"
	}
	return fmt.Sprintf("Tuning(%d)", int(t))
}

// MetricAdapt selects whether an exact sampler adapts its diagonal metric
// (inverse mass matrix for NUTS, proposal scales for RWM and MALA).
type MetricAdapt int

const (
	// MetricDefault is MetricDiag for NUTS and MetricFixed for RWM and MALA.
	MetricDefault MetricAdapt = iota
	// MetricFixed keeps the given diagonal (the identity when none is given).
	MetricFixed
	// MetricDiag estimates the posterior variances in Stan's windowed
	// warm-up: an initial buffer of 75 iterations (step size only), slow
	// windows of 25, 50, 100, … iterations whose regularised sample variance
	//
	//	M⁻¹ⱼ = n/(n+5) · varⱼ + 10⁻³ · 5/(n+5)
	//
	// becomes the diagonal at each window's end (the step-size adaptation then
	// restarts), and a terminal buffer of 50 iterations (step size only). The
	// last slow window is stretched to the terminal buffer. With warm-ups
	// shorter than 150 iterations the buffers are 15% and 10% of the warm-up
	// as in Stan; below 20 iterations no metric is adapted. RWM and MALA,
	// whose single acceptances are noisy, use buffers of at least 10% and
	// 20% of the warm-up and a first window of at least 2.5%.
	MetricDiag
	// MetricDense is MetricDiag with the full covariance (Stan's dense_e
	// adaptation): M = n/(n+5) · Σ̂ + 10⁻³ · 5/(n+5) · I from each window's
	// sample covariance Σ̂. It costs O(d²) per leapfrog step or proposal and
	// pays off when the posterior is correlated and d is moderate.
	MetricDense
)

// Adapt is the warm-up setting shared by the exact samplers.
//
// The windowed metric schedule and the grid need the warm-up length, so it is
// a setting (Warmup) rather than inferred: a chain adapts during its first
// Warmup iterations, and stops adapting for good at the first of iteration
// Warmup or a call of EndWarmup (langevin.Run calls it after the last burn-in
// iteration). Under langevin.Run a zero Warmup means Options.BurnIn (the
// samplers implement langevin.BurnInSetter); outside Run, or with a burn-in
// of 0, Warmup = 0 dual-averages the step size until EndWarmup, without
// metric adaptation.
type Adapt struct {
	Warmup int         // warm-up iterations W
	Tune   Tuning      // step-size tuning (default dual averaging)
	Metric MetricAdapt // diagonal metric adaptation
	// TargetAccept is the target mean acceptance statistic δ of TuneDual and
	// TuneGrid; 0 means the sampler's default (0.234 RWM, 0.574 MALA, 0.8
	// NUTS).
	TargetAccept float64
	// Grid holds the step sizes of TuneGrid; nil means ε₀·2^k, k = −4, …, 4,
	// around the initial step ε₀, or with a Score other than GridAccept the
	// finer ε₀·2^(k/4), k = −8, …, 8 (17 steps over the same range).
	Grid []float64
	// Score is TuneGrid's criterion for a segment (default GridAccept).
	Score GridScore
	// Validate, for Score = GridValidation, returns the validation score of
	// a draw (larger is better: the log-likelihood of held-out data, say);
	// it must be safe for concurrent use by the chains.
	Validate func(theta []float64) float64
}

// GridScore selects how TuneGrid scores the segment of each step size.
type GridScore int

const (
	// GridAccept keeps the step whose mean acceptance statistic is closest
	// to TargetAccept (the seed report's procedure). On a grid of factor 2
	// the closest can be far: acceptance moves by 0.1–0.2 per factor 2 near
	// the targets.
	GridAccept GridScore = iota
	// GridESJD keeps the step with the largest expected squared jump
	// distance E‖θₜ − θₜ₋₁‖² over its segment (Pasarica & Gelman 2010): one
	// gradient per iteration for MALA, none for RWM, so it is also the jump
	// per gradient. On a d-dimensional product target it is maximised, as
	// d → ∞, at acceptance 0.234 for RWM (Roberts, Gelman & Gilks 1997) and
	// 0.574 for MALA (Roberts & Rosenthal 1998) — the targets follow from
	// the criterion instead of being given.
	GridESJD
	// GridValidation keeps the step whose segment has the largest mean
	// Validate(θ) (the seed report's §3.4: hyperparameters chosen on a
	// validation split).
	GridValidation
)

// String returns accept, esjd or validation.
func (g GridScore) String() string {
	switch g {
	case GridAccept:
		return "accept"
	case GridESJD:
		return "esjd"
	case GridValidation:
		return "validation"
	}
	return fmt.Sprintf("GridScore(%d)", int(g))
}

func (a *Adapt) validate(defTarget float64, defMetric MetricAdapt) (Adapt, error) {
	out := *a
	if out.TargetAccept == 0 {
		out.TargetAccept = defTarget
	}
	if out.Metric == MetricDefault {
		out.Metric = defMetric
	}
	switch {
	case out.Warmup < 0:
		return out, fmt.Errorf("sampler: warm-up %d: expected ≥ 0", a.Warmup)
	case !(out.TargetAccept > 0 && out.TargetAccept < 1):
		return out, fmt.Errorf("sampler: target acceptance %v: expected a number in (0, 1)", a.TargetAccept)
	case out.Tune < TuneDual || out.Tune > TuneGrid:
		return out, fmt.Errorf("sampler: unknown tuning %v", a.Tune)
	case out.Metric < MetricDefault || out.Metric > MetricDense:
		return out, fmt.Errorf("sampler: unknown metric adaptation %d", int(a.Metric))
	}
	if out.Tune == TuneGrid {
		switch {
		case out.Score < GridAccept || out.Score > GridValidation:
			return out, fmt.Errorf("sampler: unknown grid score %d", int(a.Score))
		case out.Score == GridValidation && out.Validate == nil:
			return out, fmt.Errorf("sampler: grid score validation needs a Validate function")
		}
		if len(out.Grid) == 0 {
			out.Grid = nil
		}
		for i, e := range out.Grid {
			if !(e > 0) || math.IsInf(e, 0) {
				return out, fmt.Errorf("sampler: grid step %d is %v: expected a positive number", i+1, e)
			}
		}
		n := len(out.Grid)
		if n == 0 {
			n = 9
			if out.Score != GridAccept {
				n = 17
			}
		}
		if out.Warmup < n {
			return out, fmt.Errorf("sampler: grid tuning over %d step sizes needs a warm-up of at least %d iterations, have %d", n, n, out.Warmup)
		}
	}
	return out, nil
}

// dualAveraging is Stan's stepsize_adaptation.
type dualAveraging struct {
	delta, gamma, t0, kappa float64
	mu                      float64
	counter, sBar, xBar     float64
}

func newDualAveraging(delta, eps0 float64) dualAveraging {
	return dualAveraging{delta: delta, gamma: 0.05, t0: 10, kappa: 0.75, mu: math.Log(10 * eps0)}
}

func (d *dualAveraging) restart(eps0 float64) {
	d.mu = math.Log(10 * eps0)
	d.counter, d.sBar, d.xBar = 0, 0, 0
}

// learn records the acceptance statistic of the last iteration and returns
// the step of the next.
func (d *dualAveraging) learn(stat float64) float64 {
	d.counter++
	stat = min(stat, 1)
	if math.IsNaN(stat) {
		stat = 0
	}
	eta := 1 / (d.counter + d.t0)
	d.sBar = (1-eta)*d.sBar + eta*(d.delta-stat)
	x := d.mu - d.sBar*math.Sqrt(d.counter)/d.gamma
	xEta := math.Pow(d.counter, -d.kappa)
	d.xBar = (1-xEta)*d.xBar + xEta*x
	return math.Exp(x)
}

// final returns the step after warm-up, e^(x̄).
func (d *dualAveraging) final() float64 { return math.Exp(d.xBar) }

// windows is Stan's windowed_adaptation schedule with a Welford variance
// estimator (var_adaptation).
type windows struct {
	warmup                    int
	initBuf, termBuf, baseWin int
	counter, size, next       int
	n                         int
	dense                     bool
	mean, m2, dx              []float64
	off                       bool
}

func newWindows(warmup, d, initBuf, termBuf, baseWin int, dense bool) windows {
	w := windows{warmup: warmup, initBuf: initBuf, termBuf: termBuf, baseWin: baseWin, dense: dense,
		mean: make([]float64, d), m2: make([]float64, d), dx: make([]float64, d)}
	if dense {
		w.m2 = make([]float64, d*d)
	}
	if warmup < 20 {
		w.off = true
		return w
	}
	if w.initBuf+w.baseWin+w.termBuf > warmup {
		w.initBuf = int(0.15 * float64(warmup))
		w.termBuf = int(0.1 * float64(warmup))
		w.baseWin = warmup - (w.initBuf + w.termBuf)
	}
	w.size = w.baseWin
	w.next = w.initBuf + w.size - 1
	return w
}

func (w *windows) inWindow() bool {
	return w.counter >= w.initBuf && w.counter < w.warmup-w.termBuf && w.counter != w.warmup
}

func (w *windows) endOfWindow() bool {
	return w.counter == w.next && w.counter != w.warmup
}

func (w *windows) computeNext() {
	if w.next == w.warmup-w.termBuf-1 {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next != w.warmup-w.termBuf-1 {
		if w.next+2*w.size >= w.warmup-w.termBuf {
			w.next = w.warmup - w.termBuf - 1
		}
	}
}

// learn adds q to the current window and, at a window's end, writes the
// regularised variance (or covariance) into the metric and reports true.
func (w *windows) learn(q []float64, mt *metric) bool {
	if w.off {
		return false
	}
	d := len(q)
	if w.inWindow() {
		w.n++
		for j, x := range q {
			w.dx[j] = x - w.mean[j]
			w.mean[j] += w.dx[j] / float64(w.n)
		}
		if w.dense {
			for i := 0; i < d; i++ {
				row := w.m2[i*d : i*d+d]
				for j := range row {
					row[j] += w.dx[i] * (q[j] - w.mean[j])
				}
			}
		} else {
			for j, x := range q {
				w.m2[j] += w.dx[j] * (x - w.mean[j])
			}
		}
	}
	if w.endOfWindow() {
		w.computeNext()
		n := float64(w.n)
		a, b := n/(n+5), 1e-3*(5/(n+5))
		if w.dense {
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					v := a * w.m2[i*d+j] / (n - 1)
					if i == j {
						v += b
					}
					mt.m[i*d+j] = v
				}
			}
		} else {
			for j := range mt.diag {
				mt.diag[j] = a*w.m2[j]/(n-1) + b
			}
		}
		mt.sync()
		w.n = 0
		clear(w.mean)
		clear(w.m2)
		w.counter++
		return true
	}
	w.counter++
	return false
}

// adapter runs a chain's warm-up: step-size tuning and metric adaptation.
type adapter struct {
	cfg    Adapt
	on     bool // still adapting
	t      int  // adapting iterations done
	dual   dualAveraging
	win    windows
	metric bool
	// grid
	grid    []float64
	gridSum []float64 // per step: the sum of the segment's scores (acceptance, squared jump or validation score)
	gridN   []int
	prev    []float64 // GridESJD: the position before the iteration (NaN: none yet)
}

// newAdapter returns the adapter of a chain with initial step eps0 in d
// dimensions; mh is true for the Metropolis–Hastings samplers RWM and MALA.
func newAdapter(cfg Adapt, eps0 float64, d int, mh bool) *adapter {
	a := &adapter{cfg: cfg, on: cfg.Tune != TuneNone || cfg.Metric == MetricDiag || cfg.Metric == MetricDense}
	a.dual = newDualAveraging(cfg.TargetAccept, eps0)
	a.metric = (cfg.Metric == MetricDiag || cfg.Metric == MetricDense) && cfg.Warmup > 0
	dense := cfg.Metric == MetricDense
	if a.metric {
		a.win = newWindows(cfg.Warmup, d, 75, 50, 25, dense)
		if mh {
			// One Metropolis–Hastings acceptance says less about the step than
			// a NUTS trajectory's mean over its leapfrog states: give the
			// step-size-only buffers and the first window a fixed share of
			// long warm-ups.
			w := cfg.Warmup
			a.win = newWindows(w, d, max(75, w/10), max(50, w/5), max(25, w/40), dense)
		}
	}
	if cfg.Tune == TuneGrid {
		a.grid = append([]float64(nil), cfg.Grid...) // its own: a checkpoint restores it
		if a.grid == nil && cfg.Score != GridAccept {
			for k := -8; k <= 8; k++ {
				a.grid = append(a.grid, eps0*math.Pow(2, float64(k)/4))
			}
		}
		if a.grid == nil {
			for k := -4; k <= 4; k++ {
				a.grid = append(a.grid, eps0*math.Pow(2, float64(k)))
			}
		}
		a.gridSum = make([]float64, len(a.grid))
		a.gridN = make([]int, len(a.grid))
		if cfg.Score == GridESJD {
			a.prev = make([]float64, d)
			a.prev[0] = math.NaN()
		}
	}
	if cfg.Warmup == 0 && cfg.Tune != TuneDual {
		a.on = false
	}
	return a
}

// startStep returns the step of the first iteration.
func (a *adapter) startStep(eps0 float64) float64 {
	if a.on && a.grid != nil {
		return a.grid[0]
	}
	return eps0
}

// gridSegment returns the grid index of adapting iteration t (0-based).
func (a *adapter) gridSegment(t int) int {
	return min(t*len(a.grid)/a.cfg.Warmup, len(a.grid)-1)
}

// update records an adapting iteration with acceptance statistic stat at
// position q, sets the step of the next iteration, and may update the
// metric mt, in which case it returns true (the caller then re-initialises
// the step and calls restart). It ends the warm-up after Warmup iterations.
func (a *adapter) update(step *float64, stat float64, q []float64, mt *metric) bool {
	if !a.on {
		return false
	}
	updated := false
	switch a.cfg.Tune {
	case TuneDual:
		*step = a.dual.learn(stat)
	case TuneGrid:
		k := a.gridSegment(a.t)
		switch a.cfg.Score {
		case GridESJD:
			if !math.IsNaN(a.prev[0]) {
				var j2 float64
				for i, v := range q {
					j2 += (v - a.prev[i]) * (v - a.prev[i])
				}
				a.gridSum[k] += j2
				a.gridN[k]++
			}
			copy(a.prev, q)
		case GridValidation:
			if v := a.cfg.Validate(q); !math.IsNaN(v) {
				a.gridSum[k] += v
				a.gridN[k]++
			}
		default:
			if !math.IsNaN(stat) {
				a.gridSum[k] += min(stat, 1)
			}
			a.gridN[k]++
		}
		if a.t+1 < a.cfg.Warmup {
			*step = a.grid[a.gridSegment(a.t+1)]
		}
	}
	if a.metric {
		updated = a.win.learn(q, mt)
	}
	a.t++
	if a.cfg.Warmup > 0 && a.t >= a.cfg.Warmup {
		a.end(step)
	}
	return updated
}

// restart restarts the dual averaging at step eps after a metric update.
func (a *adapter) restart(eps float64) {
	a.dual.restart(eps)
}

// end stops the adaptation and sets the step of the sampling phase.
func (a *adapter) end(step *float64) {
	if !a.on {
		return
	}
	a.on = false
	switch a.cfg.Tune {
	case TuneDual:
		if a.dual.counter > 0 {
			*step = a.dual.final()
		}
	case TuneGrid:
		best, bestDist := -1, math.Inf(1)
		for k := range a.grid {
			if a.gridN[k] == 0 {
				continue
			}
			mean := a.gridSum[k] / float64(a.gridN[k])
			dist := math.Abs(mean - a.cfg.TargetAccept)
			if a.cfg.Score != GridAccept {
				dist = -mean // the largest jump or validation score
			}
			if dist < bestDist {
				best, bestDist = k, dist
			}
		}
		if best >= 0 {
			*step = a.grid[best]
			if a.cfg.Score != GridAccept {
				*step = a.vertex(best)
			}
		}
	}
}

// vertex refines the best grid step of a maximised score: a least-squares
// parabola in log step through the mean scores of the best step and up to
// gridVertexSpan neighbours on each side; its vertex, when the parabola is
// concave and the vertex lies within the fitted steps, else the best grid
// step. Near its maximum the ESJD is flat (1% below it one factor 2^(1/8)
// away for RWM, where the acceptance already differs by 0.04), so the
// noisy argmax of single segments wanders; the fit over several segments
// does not.
func (a *adapter) vertex(best int) float64 {
	lo, hi := max(0, best-gridVertexSpan), min(len(a.grid)-1, best+gridVertexSpan)
	var xs, ys []float64
	for k := lo; k <= hi; k++ {
		if a.gridN[k] > 0 {
			xs = append(xs, math.Log(a.grid[k]))
			ys = append(ys, a.gridSum[k]/float64(a.gridN[k]))
		}
	}
	if len(xs) < 3 {
		return a.grid[best]
	}
	// Normal equations of y = c0 + c1 x + c2 x² in x centred at the best step.
	x0 := math.Log(a.grid[best])
	var s [5]float64
	var t [3]float64
	for i, x := range xs {
		u := x - x0
		p := 1.0
		for j := 0; j < 5; j++ {
			s[j] += p
			if j < 3 {
				t[j] += p * ys[i]
			}
			p *= u
		}
	}
	m := mat3{{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}}
	c, ok := m.solve(t)
	if !ok || !(c[2] < 0) {
		return a.grid[best]
	}
	u := -c[1] / (2 * c[2])
	if !(x0+u >= xs[0] && x0+u <= xs[len(xs)-1]) {
		return a.grid[best]
	}
	return math.Exp(x0 + u)
}

// gridVertexSpan is the number of neighbours on each side of the best grid
// step that vertex fits.
const gridVertexSpan = 4

type mat3 [3][3]float64

// solve solves m c = t by Cramer's rule.
func (m mat3) solve(t [3]float64) ([3]float64, bool) {
	det := func(a mat3) float64 {
		return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	}
	d := det(m)
	var c [3]float64
	if !(math.Abs(d) > 0) {
		return c, false
	}
	for j := 0; j < 3; j++ {
		mj := m
		for i := 0; i < 3; i++ {
			mj[i][j] = t[i]
		}
		c[j] = det(mj) / d
	}
	return c, true
}
