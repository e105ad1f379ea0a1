package langevin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// Initializer chooses the initial point of each chain.
type Initializer interface {
	// Init writes the initial point of chain number chain (0-based) into dst,
	// drawing any randomness from rng, the chain's own stream.
	Init(ctx context.Context, m Model, chain int, rng *rand.Rand, dst []float64) error
}

// InitZero starts every chain at θ = 0.
type InitZero struct{}

// Init implements Initializer.
func (InitZero) Init(_ context.Context, _ Model, _ int, _ *rand.Rand, dst []float64) error {
	clear(dst)
	return nil
}

// InitPrior starts each chain at an independent draw from the prior; the model
// must implement PriorSampler.
type InitPrior struct{}

// Init implements Initializer.
func (InitPrior) Init(_ context.Context, m Model, _ int, rng *rand.Rand, dst []float64) error {
	ps, ok := m.(PriorSampler)
	if !ok {
		return fmt.Errorf("langevin: init from the prior: model %T cannot draw from its prior", m)
	}
	ps.SamplePrior(dst, rng)
	return nil
}

// InitUniform starts each chain at an independent draw of every coordinate
// of θ from uniform(−R, R) on the unconstrained scale, Stan's default
// initialisation (R = 2 when Radius is 0). It needs no prior sampler, so it
// serves improper priors too; with the transforms of package transform,
// θ = 0 is the centre of every constrained space (1 for a positive
// parameter, the uniform simplex, the identity correlation matrix).
type InitUniform struct {
	Radius float64
}

// Init implements Initializer.
func (in InitUniform) Init(_ context.Context, _ Model, _ int, rng *rand.Rand, dst []float64) error {
	r := in.Radius
	if r == 0 {
		r = 2
	}
	if !(r > 0) || math.IsInf(r, 1) {
		return fmt.Errorf("langevin: InitUniform: Radius = %v: expected a positive finite number (0 for 2)", in.Radius)
	}
	for j := range dst {
		dst[j] = r * (2*rng.Float64() - 1)
	}
	return nil
}

// InitAt starts chain c at Points[c mod len(Points)].
type InitAt struct {
	Points [][]float64
}

// Init implements Initializer.
func (in InitAt) Init(_ context.Context, m Model, chain int, _ *rand.Rand, dst []float64) error {
	if len(in.Points) == 0 {
		return errors.New("langevin: InitAt: no initial points")
	}
	p := in.Points[chain%len(in.Points)]
	if len(p) != m.Dim() {
		return fmt.Errorf("langevin: initial point has %d values, model has %d parameters", len(p), m.Dim())
	}
	copy(dst, p)
	return nil
}

// Options controls a Run.
type Options struct {
	Chains  int         // number of chains K (default 4)
	Iters   int         // iterations per chain, burn-in included (required)
	BurnIn  int         // iterations discarded at the start of each chain, < Iters
	Thin    int         // keep every Thin-th draw after burn-in (default 1)
	Seed    uint64      // seed of the run; chain c uses ChainRNG(Seed, c)
	Init    Initializer // initial points (default InitZero)
	Workers int         // goroutines (default GOMAXPROCS); never changes the draws

	// FirstChain is the 0-based number of the first chain: chain c of this
	// run is chain FirstChain+c of the analysis (RNG stream
	// ChainRNG(Seed, FirstChain+c), initial point Init(…, FirstChain+c, …)).
	// A run with FirstChain = k and Chains = 1 gives bit for bit chain k of a
	// run with more chains and the same seed, so chains can run in separate
	// processes or machines and be combined. Default 0.
	FirstChain int

	// SaveWarmup keeps the burn-in draws too, thinned alike, in
	// Trace.Warmup (as CmdStan's save_warmup).
	SaveWarmup bool

	// Progress, if not nil, is called with the chain's index in this run
	// (from 0, whatever FirstChain) and the number of iterations done, every ProgressEvery iterations (default Iters/100, at most CheckEvery with Until) and
	// at the end of the chain. It is called from the workers' goroutines.
	Progress      func(chain, done int)
	ProgressEvery int

	// Until, if not nil, makes Iters a maximum and the run length a target:
	// the chains run in rounds of CheckEvery iterations (default
	// max(1, Iters/100)); after each round past the burn-in, with every chain
	// at the same iteration, Until is called with the trace so far, and the
	// run stops when it returns true (for example when the smallest bulk-ESS
	// reaches a target). The rounds do not change the draws, and a rule that
	// looks only at the draws stops at the same iteration whatever the number
	// of workers: the result is the same for the same seed. A rule that also
	// reads a clock (a time budget) is not reproducible, by nature.
	Until      func(tr *Trace) bool
	CheckEvery int

	// MaxKeep, if positive, bounds the draws kept per chain: after a round
	// in which a chain holds more than MaxKeep draws, every chain drops every
	// other draw and the thinning doubles (Trace.Thin says the final one;
	// the rounds are those of Until, with or without it), so
	// a run of unknown length keeps between MaxKeep/2 and MaxKeep draws per
	// chain (plus one round's worth). The draws kept are those of a run with
	// the final Thin from the start. A Sink receives the draws as they are
	// kept, before any later halving (keep every Thin-th of them, Thin the
	// Trace's, to match the Trace).
	MaxKeep int

	// Sink, if not nil, is called once per chain, with its index in this run
	// (from 0, whatever FirstChain), before the chain starts; a non-nil DrawSink it returns receives that chain's draws as
	// they are taken, so that they can reach a file while the run goes on.
	// The draws are stored in the Trace as well. A sink never changes the
	// draws.
	Sink func(chain int) DrawSink

	// Checkpoint, if not nil, is called between rounds (those of Until and
	// MaxKeep, every CheckEvery iterations; with Checkpoint a run has rounds
	// even without them), at most once every CheckpointEvery (0: after
	// every round), with the state of every chain at the round's end: a
	// Run given it in Resume continues exactly. It is called after the
	// round's Until and thinning decisions, with no chain running and every
	// draw of the round passed to the sinks. An error stops the run. Every
	// chain must be Resumable; if one is not, Run makes no checkpoint and
	// says why in Trace.NoCheckpoint.
	Checkpoint      func(cp *Checkpoint) error
	CheckpointEvery time.Duration

	// Resume, if not nil, makes Run continue from a checkpoint that a run
	// with the same model, sampler and options made (Checkpoint): the chains
	// are made as at the start, then set to the checkpoint's state, and hold
	// the draws stored up to it; the sinks receive the draws after it only.
	Resume *Resume
}

// DrawSink receives the draws of one chain as they are taken, from the
// chain's goroutine, in order: the saved warm-up draws (warmup true; only with
// Options.SaveWarmup), then the kept draws. iter is the 1-based iteration,
// burn-in included; row holds the parameters and derived quantities (as a row
// of Trace.Draws) and stats the sampler's statistics (as Trace.StatNames). The
// slices must not be kept or changed. An error stops the chain with a
// *ChainError; the draws stored before it stay in the Trace.
type DrawSink interface {
	Draw(warmup bool, iter int, row, stats []float64) error
}

// DivergenceError reports a chain whose position became non-finite.
type DivergenceError struct {
	Chain int // 1-based chain number
	Iter  int // 1-based iteration, burn-in included
	Param string
	Value float64
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("chain %d diverged at iteration %d: parameter %s = %v (try a smaller step size)", e.Chain, e.Iter, e.Param, e.Value)
}

// ChainError wraps an error of one chain with its 1-based chain number and
// iteration.
type ChainError struct {
	Chain int
	Iter  int
	Err   error
}

func (e *ChainError) Error() string {
	if e.Iter == 0 {
		return fmt.Sprintf("chain %d: %v", e.Chain, e.Err)
	}
	return fmt.Sprintf("chain %d: iteration %d: %v", e.Chain, e.Iter, e.Err)
}

func (e *ChainError) Unwrap() error { return e.Err }

func (o *Options) defaults() error {
	if o.Chains == 0 {
		o.Chains = 4
	}
	if o.Thin == 0 {
		o.Thin = 1
	}
	if o.Init == nil {
		o.Init = InitZero{}
	}
	switch {
	case o.Chains < 0:
		return fmt.Errorf("langevin: Chains = %d: expected a positive number", o.Chains)
	case o.FirstChain < 0:
		return fmt.Errorf("langevin: FirstChain = %d: expected a chain number ≥ 0", o.FirstChain)
	case o.Iters <= 0:
		return fmt.Errorf("langevin: Iters = %d: expected a positive number", o.Iters)
	case o.BurnIn < 0 || o.BurnIn >= o.Iters:
		return fmt.Errorf("langevin: BurnIn = %d: expected 0 ≤ BurnIn < Iters = %d", o.BurnIn, o.Iters)
	case o.Thin < 0:
		return fmt.Errorf("langevin: Thin = %d: expected a positive number", o.Thin)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Workers > o.Chains {
		o.Workers = o.Chains
	}
	if o.CheckEvery <= 0 {
		o.CheckEvery = max(1, o.Iters/100)
	}
	if o.MaxKeep < 0 {
		return fmt.Errorf("langevin: MaxKeep = %d: expected ≥ 0", o.MaxKeep)
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = max(1, o.Iters/100)
		if o.Until != nil {
			// Iters is then a maximum, often far beyond the stop (10⁷ for
			// --sampler auto): report at least every round.
			o.ProgressEvery = min(o.ProgressEvery, o.CheckEvery)
		}
	}
	return nil
}

// Run runs opts.Chains chains of sampler s on model m, in parallel on
// opts.Workers goroutines, and returns their draws after burn-in and thinning.
//
// Every chain runs to the end unless it fails or ctx is cancelled, or
// opts.Until stops the run. A chain whose position becomes non-finite stops
// with a *DivergenceError and keeps the draws it had. Run always returns the
// trace of what was drawn, together with the errors of all chains joined
// (errors.Join), or ctx.Err() when cancelled.
func Run(ctx context.Context, m Model, s Sampler, opts Options) (*Trace, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	d := m.Dim()
	names := ParamNames(m)
	if len(names) != d {
		return nil, fmt.Errorf("langevin: model has %d parameters but %d names", d, len(names))
	}
	deriver, _ := m.(Deriver)
	if deriver != nil {
		names = append(append([]string(nil), names...), deriver.DerivedNames()...)
	}
	if b, ok := s.(BurnInSetter); ok {
		s = b.WithBurnIn(opts.BurnIn)
	}
	statNames := s.StatNames()
	// As CmdStan: the first iteration after burn-in is kept, then every Thin-th.
	warmRows, postRows := opts.KeptRows()
	keep := int(min(postRows, 1<<12)) // grown as needed (a run may be cut short)
	tr := &Trace{
		Names:     names,
		Dim:       d,
		StatNames: statNames,
		Draws:     make([][][]float64, opts.Chains),
		Stats:     make([][][]float64, opts.Chains),
		Iters:     make([][]int, opts.Chains),
		Warmup:    make([]Draws, opts.Chains),
		BurnIn:    opts.BurnIn,

		WarmupTime: make([]time.Duration, opts.Chains),
		SampleTime: make([]time.Duration, opts.Chains),
		Thin:       opts.Thin,
	}
	tr.FirstChain = opts.FirstChain
	runs := make([]*chainRun, opts.Chains)
	for c := range runs {
		runs[c] = &chainRun{c: c, g: opts.FirstChain + c, thin: opts.Thin}
		runs[c].post.alloc(keep, len(names), len(statNames))
		if opts.SaveWarmup {
			runs[c].warm.alloc(int(min(warmRows, 1<<12)), len(names), len(statNames))
		}
	}
	every := opts.Iters
	if opts.Until != nil || opts.MaxKeep > 0 || opts.Checkpoint != nil {
		every = opts.CheckEvery
	}
	from := 0 // the iteration the run starts after
	if opts.Resume != nil && opts.Resume.Checkpoint != nil {
		var err error
		if from, err = restore(ctx, runs, opts.Resume, m, s, &opts); err != nil {
			return nil, err
		}
		if from%every != 0 && from != opts.Iters {
			return nil, fmt.Errorf("langevin: resume: the checkpoint at iteration %d is not at the end of a round of %d iterations (other options than the run's)", from, every)
		}
	}
	lastCP := time.Now()
	for to := min(from+min(every, opts.Iters-from), opts.Iters); ; to += min(every, opts.Iters-to) { // no overflow near math.MaxInt
		jobs := make(chan *chainRun)
		var wg sync.WaitGroup
		for w := 0; w < opts.Workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range jobs {
					r.advance(ctx, m, s, deriver, &opts, to, tr.Names)
				}
			}()
		}
		for _, r := range runs {
			if !r.stopped {
				jobs <- r
			}
		}
		close(jobs)
		wg.Wait()
		if ctx.Err() != nil || to == opts.Iters {
			break
		}
		if opts.MaxKeep > 0 {
			over := false
			for _, r := range runs {
				over = over || len(r.post.Theta) > opts.MaxKeep
			}
			if over { // double the thinning in every chain alike
				for _, r := range runs {
					r.post.halve()
					r.thin *= 2
				}
			}
		}
		if opts.Until != nil && to > opts.BurnIn {
			publish(tr, runs)
			if opts.Until(tr) {
				break
			}
		}
		if opts.Checkpoint != nil && tr.NoCheckpoint == "" && time.Since(lastCP) >= opts.CheckpointEvery {
			if err := resumable(runs); err != nil {
				tr.NoCheckpoint = err.Error()
				continue
			}
			cp, err := checkpoint(runs, to)
			if err != nil { // a chain that cannot save its state: no checkpoints
				tr.NoCheckpoint = err.Error()
				continue
			}
			if err := opts.Checkpoint(cp); err != nil {
				publish(tr, runs)
				return tr, fmt.Errorf("langevin: checkpoint at iteration %d: %w", to, err)
			}
			lastCP = time.Now()
		}
	}
	publish(tr, runs)
	if err := ctx.Err(); err != nil {
		return tr, err
	}
	errs := make([]error, len(runs))
	for c, r := range runs {
		errs[c] = r.err
	}
	return tr, errors.Join(errs...)
}

// publish copies the chains' draws so far into tr.
func publish(tr *Trace, runs []*chainRun) {
	for c, r := range runs {
		tr.Draws[c], tr.Stats[c], tr.Iters[c] = r.post.Theta, r.post.Stats, r.post.Iters
		tr.Warmup[c] = r.warm
		tr.Thin = r.thin
		tr.WarmupTime[c], tr.SampleTime[c] = r.warmupTime, r.sampleTime
	}
}

// chainRun is the state of one chain of a Run between rounds.
type chainRun struct {
	c, g       int // index in this run, number in the analysis
	ch         Chain
	src        *rand.PCG // the chain's random stream
	keeper     Keeper
	it         int // iterations done
	kept       int // post-burn-in iterations kept so far (before thinning)
	thin       int // current thinning of the post-burn-in draws
	warm, post Draws
	stopped    bool
	err        error
	sink       DrawSink

	warmupTime, sampleTime time.Duration
}

// store adds the chain's current draw to w and passes it to the sink.
func (r *chainRun) store(w *Draws, warmup bool, deriver Deriver, d, it int, first int) error {
	w.add(r.ch, deriver, d, it)
	if r.sink == nil {
		return nil
	}
	k := len(w.Theta) - 1
	if err := r.sink.Draw(warmup, it, w.Theta[k], w.Stats[k]); err != nil {
		return &ChainError{Chain: first + r.c + 1, Iter: it, Err: err}
	}
	return nil
}

// advance runs the chain up to iteration `to` (starting it if new).
func (r *chainRun) advance(ctx context.Context, m Model, s Sampler, deriver Deriver, opts *Options, to int, names []string) {
	d := m.Dim()
	g := r.g
	if r.ch == nil {
		if ctx.Err() != nil {
			r.stop(nil)
			return
		}
		if opts.Sink != nil {
			r.sink = opts.Sink(r.c)
		}
		r.src = rand.NewPCG(opts.Seed, uint64(g)+1) // ChainRNG's stream, saved by checkpoints
		rng := rand.New(r.src)
		theta0 := make([]float64, d)
		if err := opts.Init.Init(ctx, m, g, rng, theta0); err != nil {
			r.stop(&ChainError{Chain: g + 1, Err: err})
			return
		}
		for j, v := range theta0 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				r.stop(&ChainError{Chain: g + 1, Err: fmt.Errorf("initial value of %s is %v", ParamNames(m)[j], v)})
				return
			}
		}
		ch, err := s.NewChain(m, theta0, rng)
		if err != nil {
			r.stop(&ChainError{Chain: g + 1, Err: err})
			return
		}
		r.ch = ch
		r.keeper, _ = ch.(Keeper)
	}
	ch := r.ch
	done := ctx.Done()
	seg, inWarmup := time.Now(), r.it < opts.BurnIn
	defer func() {
		if inWarmup {
			r.warmupTime += time.Since(seg)
		} else {
			r.sampleTime += time.Since(seg)
		}
	}()
	for it := r.it + 1; it <= to; it++ {
		r.it = it
		select {
		case <-done:
			r.stop(nil)
			return
		default:
		}
		if err := ch.Step(); err != nil {
			r.stop(&ChainError{Chain: g + 1, Iter: it, Err: err})
			return
		}
		pos := ch.Position()
		for j, v := range pos {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				r.stop(&DivergenceError{Chain: g + 1, Iter: it, Param: names[j], Value: v})
				return
			}
		}
		if it == opts.BurnIn {
			if we, ok := ch.(WarmupEnder); ok {
				we.EndWarmup()
			}
			now := time.Now()
			r.warmupTime += now.Sub(seg)
			seg, inWarmup = now, false
		}
		if it > opts.BurnIn {
			if r.keeper == nil || r.keeper.Keep() {
				if r.kept%r.thin == 0 {
					if err := r.store(&r.post, false, deriver, d, it, opts.FirstChain); err != nil {
						r.stop(err)
						return
					}
				}
				r.kept++
			}
		} else if opts.SaveWarmup && (it-1)%opts.Thin == 0 {
			if err := r.store(&r.warm, true, deriver, d, it, opts.FirstChain); err != nil {
				r.stop(err)
				return
			}
		}
		if opts.Progress != nil && (it%opts.ProgressEvery == 0 || it == opts.Iters) {
			opts.Progress(r.c, it)
		}
	}
}

func (r *chainRun) stop(err error) { r.stopped, r.err = true, err }

// Draws holds the draws of one chain: Theta[t] is a row of parameters and
// derived quantities, Stats[t] the sampler's statistics, Iters[t] the 1-based
// iteration.
type Draws struct {
	Theta [][]float64
	Stats [][]float64
	Iters []int

	slab, sslab []float64
	width, nst  int
}

func (w *Draws) alloc(n, width, nstat int) {
	w.slab = make([]float64, n*width)
	w.sslab = make([]float64, n*nstat)
	w.Theta = make([][]float64, 0, n)
	w.Stats = make([][]float64, 0, n)
	w.Iters = make([]int, 0, n)
	w.width, w.nst = width, nstat
}

func (w *Draws) add(ch Chain, deriver Deriver, d, it int) {
	k := len(w.Theta)
	if (k+1)*w.width > len(w.slab) || (k+1)*w.nst > len(w.sslab) {
		w.grow(max(2*k, 16))
	}
	row := w.slab[k*w.width : (k+1)*w.width : (k+1)*w.width]
	pos := ch.Position()
	copy(row, pos)
	if deriver != nil {
		deriver.Derive(pos, row[d:])
	}
	srow := w.sslab[k*w.nst : (k+1)*w.nst : (k+1)*w.nst]
	ch.Stats(srow)
	w.Theta = append(w.Theta, row)
	w.Stats = append(w.Stats, srow)
	w.Iters = append(w.Iters, it)
}

// put adds a copy of a row of parameters and one of statistics, drawn at
// iteration it.
func (w *Draws) put(theta, stats []float64, it int) {
	k := len(w.Theta)
	if (k+1)*w.width > len(w.slab) || (k+1)*w.nst > len(w.sslab) {
		w.grow(max(2*k, 16))
	}
	row := w.slab[k*w.width : (k+1)*w.width : (k+1)*w.width]
	copy(row, theta)
	srow := w.sslab[k*w.nst : (k+1)*w.nst : (k+1)*w.nst]
	copy(srow, stats)
	w.Theta = append(w.Theta, row)
	w.Stats = append(w.Stats, srow)
	w.Iters = append(w.Iters, it)
}

// grow reallocates room for n rows, keeping the rows so far.
func (w *Draws) grow(n int) {
	theta, stats, iters := w.Theta, w.Stats, w.Iters
	w.alloc(n, w.width, w.nst)
	for k := range theta {
		row := w.slab[k*w.width : (k+1)*w.width : (k+1)*w.width]
		copy(row, theta[k])
		srow := w.sslab[k*w.nst : (k+1)*w.nst : (k+1)*w.nst]
		copy(srow, stats[k])
		w.Theta = append(w.Theta, row)
		w.Stats = append(w.Stats, srow)
	}
	w.Iters = append(w.Iters, iters...)
}

// halve keeps the draws 0, 2, 4, … (thinning doubled).
func (w *Draws) halve() {
	n := (len(w.Theta) + 1) / 2
	for i := 1; i < n; i++ {
		copy(w.Theta[i], w.Theta[2*i])
		copy(w.Stats[i], w.Stats[2*i])
		w.Iters[i] = w.Iters[2*i]
	}
	w.Theta, w.Stats, w.Iters = w.Theta[:n], w.Stats[:n], w.Iters[:n]
}
