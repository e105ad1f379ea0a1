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
	// (from 0, whatever FirstChain) and the number of iterations done, every ProgressEvery iterations (default Iters/100) and
	// at the end of the chain. It is called from the workers' goroutines.
	Progress      func(chain, done int)
	ProgressEvery int

	// Sink, if not nil, is called once per chain, with its index in this run
	// (from 0, whatever FirstChain), before the chain starts; a non-nil DrawSink it returns receives that chain's draws as
	// they are taken, so that they can reach a file while the run goes on.
	// The draws are stored in the Trace as well. A sink never changes the
	// draws.
	Sink func(chain int) DrawSink
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
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = max(1, o.Iters/100)
	}
	return nil
}

// Run runs opts.Chains chains of sampler s on model m, in parallel on
// opts.Workers goroutines, and returns their draws after burn-in and thinning.
//
// Every chain runs to the end unless it fails or ctx is cancelled. A chain whose
// position becomes non-finite stops with a *DivergenceError and keeps the draws it had. Run always returns the trace of what
// was drawn, together with the errors of all chains joined (errors.Join), or
// ctx.Err() when cancelled.
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
	keep := (opts.Iters - opts.BurnIn + opts.Thin - 1) / opts.Thin
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
	errs := make([]error, opts.Chains)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				errs[c] = runChain(ctx, m, s, deriver, &opts, c, keep, tr)
			}
		}()
	}
	for c := 0; c < opts.Chains; c++ {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return tr, err
	}
	return tr, errors.Join(errs...)
}

func runChain(ctx context.Context, m Model, s Sampler, deriver Deriver, opts *Options, c, keep int, tr *Trace) error {
	d := m.Dim()
	var warm, post Draws
	var start, warmEnd time.Time // wall clock at the first iteration and after burn-in
	post.alloc(keep, len(tr.Names), len(tr.StatNames))
	if opts.SaveWarmup {
		warm.alloc((opts.BurnIn+opts.Thin-1)/opts.Thin, len(tr.Names), len(tr.StatNames))
	}
	defer func() {
		tr.Draws[c], tr.Stats[c], tr.Iters[c] = post.Theta, post.Stats, post.Iters
		tr.Warmup[c] = warm
		if !start.IsZero() {
			now := time.Now()
			if warmEnd.IsZero() {
				tr.WarmupTime[c] = now.Sub(start)
			} else {
				tr.WarmupTime[c] = warmEnd.Sub(start)
				tr.SampleTime[c] = now.Sub(warmEnd)
			}
		}
	}()
	done := ctx.Done()
	if ctx.Err() != nil {
		return nil
	}
	var sink DrawSink
	if opts.Sink != nil {
		sink = opts.Sink(c)
	}
	store := func(w *Draws, warmup bool, ch Chain, it int) error {
		w.add(ch, deriver, d, it)
		if sink == nil {
			return nil
		}
		k := len(w.Theta) - 1
		if err := sink.Draw(warmup, it, w.Theta[k], w.Stats[k]); err != nil {
			return &ChainError{Chain: opts.FirstChain + c + 1, Iter: it, Err: err}
		}
		return nil
	}

	g := opts.FirstChain + c // the chain's number in the analysis
	rng := ChainRNG(opts.Seed, g)
	theta0 := make([]float64, d)
	if err := opts.Init.Init(ctx, m, g, rng, theta0); err != nil {
		return &ChainError{Chain: g + 1, Err: err}
	}
	for j, v := range theta0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &ChainError{Chain: g + 1, Err: fmt.Errorf("initial value of %s is %v", ParamNames(m)[j], v)}
		}
	}
	ch, err := s.NewChain(m, theta0, rng)
	if err != nil {
		return &ChainError{Chain: g + 1, Err: err}
	}
	names := tr.Names
	keeper, _ := ch.(Keeper)
	kept := 0 // post-burn-in iterations kept so far (before thinning)
	start = time.Now()
	if opts.BurnIn == 0 {
		warmEnd = start
	}
	for it := 1; it <= opts.Iters; it++ {
		select {
		case <-done:
			return nil
		default:
		}
		if err := ch.Step(); err != nil {
			return &ChainError{Chain: g + 1, Iter: it, Err: err}
		}
		pos := ch.Position()
		for j, v := range pos {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &DivergenceError{Chain: g + 1, Iter: it, Param: names[j], Value: v}
			}
		}
		if it == opts.BurnIn {
			if we, ok := ch.(WarmupEnder); ok {
				we.EndWarmup()
			}
			warmEnd = time.Now()
		}
		if it > opts.BurnIn {
			if keeper == nil || keeper.Keep() {
				if kept%opts.Thin == 0 {
					if err := store(&post, false, ch, it); err != nil {
						return err
					}
				}
				kept++
			}
		} else if opts.SaveWarmup && (it-1)%opts.Thin == 0 {
			if err := store(&warm, true, ch, it); err != nil {
				return err
			}
		}
		if opts.Progress != nil && (it%opts.ProgressEvery == 0 || it == opts.Iters) {
			opts.Progress(c, it)
		}
	}
	return nil
}

// Draws holds the draws of one chain: Theta[t] is a row of parameters and
// derived quantities, Stats[t] the sampler's statistics, Iters[t] the 1-based
// iteration.
type Draws struct {
	Theta [][]float64
	Stats [][]float64
	Iters []int

	slab, sslab []float64 // unused rest of the current slabs
	width, nst  int
	left        int // rows still expected
}

// alloc prepares w for at most n rows. The rows live in slabs allocated as
// the draws come (the first small, each next one twice as large), so that a
// run stopped early holds only what it drew and a long run does not reserve
// its whole trace before the first step.
func (w *Draws) alloc(n, width, nstat int) {
	w.width, w.nst, w.left = width, nstat, n
	c := min(n, firstSlabRows)
	w.Theta = make([][]float64, 0, c)
	w.Stats = make([][]float64, 0, c)
	w.Iters = make([]int, 0, c)
}

// firstSlabRows is the number of rows of a chain's first slab.
const firstSlabRows = 256

func (w *Draws) add(ch Chain, deriver Deriver, d, it int) {
	if len(w.slab) < w.width || len(w.sslab) < w.nst {
		rows := min(max(w.left, 1), max(firstSlabRows, len(w.Theta)))
		w.slab = make([]float64, rows*w.width)
		w.sslab = make([]float64, rows*w.nst)
	}
	row := w.slab[:w.width:w.width]
	w.slab = w.slab[w.width:]
	pos := ch.Position()
	copy(row, pos)
	if deriver != nil {
		deriver.Derive(pos, row[d:])
	}
	srow := w.sslab[:w.nst:w.nst]
	w.sslab = w.sslab[w.nst:]
	ch.Stats(srow)
	w.Theta = append(w.Theta, row)
	w.Stats = append(w.Stats, srow)
	w.Iters = append(w.Iters, it)
	w.left--
}
