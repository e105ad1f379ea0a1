package langevin

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Checkpoint is the state of a Run between two rounds, from which a new Run
// continues exactly (Options.Resume): the draws of the continued run equal
// those of a run that never stopped, bit for bit. Run makes one with every
// chain at the end of the same round (Iter), or stopped before it.
type Checkpoint struct {
	Iter   int // the round's last iteration (1-based, burn-in included)
	Chains []ChainCheckpoint
}

// ChainCheckpoint is the state of one chain of a Run at a checkpoint.
type ChainCheckpoint struct {
	Chain   int  // the chain's number in the analysis (0-based: FirstChain + index)
	Started bool // the chain was made (false only for a chain stopped before)
	Iter    int  // iterations done
	Kept    int  // post-burn-in iterations kept so far, before thinning
	Thin    int  // the current thinning of the post-burn-in draws
	// Warm is the number of warm-up draws stored (Options.SaveWarmup), the
	// first Warm that the sink received.
	Warm int
	// Post lists the iterations of the post-burn-in draws the chain holds
	// (those of the Trace), increasing: the sink received these and maybe
	// others that a growing thinning (Options.MaxKeep) dropped since.
	Post    []int
	Stopped bool   // the chain stopped early (an error)
	Err     string // the error that stopped it
	RNG     []byte // the chain's random stream (rand.PCG.MarshalBinary)
	State   []byte // the chain's state (Resumable)

	WarmupTime, SampleTime time.Duration
}

// Resume is where a Run continues from (Options.Resume).
type Resume struct {
	Checkpoint *Checkpoint
	// Warmup[c] and Draws[c] hold the draws chain c of the run (index in
	// this run) stored up to the checkpoint, as its sink received them
	// (the warm-up draws in order; Draws with their iterations in Iters):
	// for example read back from the run's chain files, which hold every
	// number exactly. Draws may hold more rows than the checkpoint's Post
	// (a sink that received draws a growing thinning dropped); Run keeps
	// those of Post.
	Warmup, Draws []Draws
}

const checkpointMagic = "langevin checkpoint 1\n"

// MarshalBinary encodes the checkpoint.
func (cp *Checkpoint) MarshalBinary() ([]byte, error) {
	s := NewStateEncoder([]byte(checkpointMagic))
	cp.code(s)
	return s.Bytes(), s.Err()
}

// UnmarshalBinary decodes a checkpoint that MarshalBinary encoded.
func (cp *Checkpoint) UnmarshalBinary(b []byte) error {
	if len(b) < len(checkpointMagic) || string(b[:len(checkpointMagic)]) != checkpointMagic {
		return errors.New("langevin: not a checkpoint of this version")
	}
	*cp = Checkpoint{}
	s := NewStateDecoder(b[len(checkpointMagic):])
	cp.code(s)
	return s.Err()
}

func (cp *Checkpoint) code(s *StateCoder) {
	s.Int(&cp.Iter)
	n := len(cp.Chains)
	s.Int(&n)
	if s.dec {
		if s.err != nil || n < 0 || n > len(s.buf) {
			s.Fail(errShortState)
			return
		}
		cp.Chains = make([]ChainCheckpoint, n)
	}
	for i := range cp.Chains {
		c := &cp.Chains[i]
		s.Int(&c.Chain)
		s.Bool(&c.Started)
		s.Int(&c.Iter)
		s.Int(&c.Kept)
		s.Int(&c.Thin)
		s.Int(&c.Warm)
		s.IntList(&c.Post)
		s.Bool(&c.Stopped)
		b := []byte(c.Err)
		s.ByteList(&b)
		c.Err = string(b)
		s.ByteList(&c.RNG)
		s.ByteList(&c.State)
		w, p := int(c.WarmupTime), int(c.SampleTime)
		s.Int(&w)
		s.Int(&p)
		c.WarmupTime, c.SampleTime = time.Duration(w), time.Duration(p)
	}
}

// IntList visits a list of integers of any length, stored as differences
// (short for an increasing list); a decoder allocates it.
func (s *StateCoder) IntList(p *[]int) {
	n := len(*p)
	s.Int(&n)
	if s.dec {
		if s.err != nil || n < 0 || n > len(s.buf)-s.off {
			s.Fail(errShortState)
			return
		}
		*p = make([]int, n)
	}
	prev := 0
	for i := range *p {
		d := (*p)[i] - prev
		s.Int(&d)
		if s.dec {
			(*p)[i] = prev + d
		}
		prev = (*p)[i]
	}
}

// ByteList visits a byte string of any length; a decoder allocates it.
func (s *StateCoder) ByteList(p *[]byte) {
	n := len(*p)
	s.Int(&n)
	if s.err != nil {
		return
	}
	if !s.dec {
		s.buf = append(s.buf, *p...)
		return
	}
	if n < 0 || n > len(s.buf)-s.off {
		s.Fail(errShortState)
		return
	}
	*p = append([]byte(nil), s.buf[s.off:s.off+n]...)
	s.off += n
}

// checkpoint returns the state of the run's chains at the end of round to.
func checkpoint(runs []*chainRun, to int) (*Checkpoint, error) {
	cp := &Checkpoint{Iter: to, Chains: make([]ChainCheckpoint, len(runs))}
	for c, r := range runs {
		cc := &cp.Chains[c]
		*cc = ChainCheckpoint{Chain: r.g, Started: r.ch != nil, Iter: r.it, Kept: r.kept, Thin: r.thin,
			Warm: len(r.warm.Theta), Post: append([]int(nil), r.post.Iters...), Stopped: r.stopped,
			WarmupTime: r.warmupTime, SampleTime: r.sampleTime}
		if r.err != nil {
			cc.Err = r.err.Error()
		}
		if r.ch == nil {
			continue
		}
		var err error
		if cc.RNG, err = r.src.MarshalBinary(); err != nil {
			return nil, err
		}
		if cc.State, err = SaveState(r.ch); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// resumable reports why the chains of runs cannot be checkpointed, or nil.
func resumable(runs []*chainRun) error {
	for _, r := range runs {
		if r.ch == nil {
			continue
		}
		if _, ok := r.ch.(Resumable); !ok {
			return fmt.Errorf("langevin: checkpoint: a chain of type %T cannot save its state", r.ch)
		}
	}
	return nil
}

// restore sets the chains of runs to the checkpoint of res, and returns the
// iteration the run continues after.
func restore(ctx context.Context, runs []*chainRun, res *Resume, m Model, s Sampler, opts *Options) (int, error) {
	cp := res.Checkpoint
	if len(cp.Chains) != len(runs) {
		return 0, fmt.Errorf("langevin: resume: the checkpoint holds %d chains, the run has %d", len(cp.Chains), len(runs))
	}
	if cp.Iter < 0 || cp.Iter > opts.Iters {
		return 0, fmt.Errorf("langevin: resume: the checkpoint is at iteration %d of a run of %d", cp.Iter, opts.Iters)
	}
	for c, r := range runs {
		cc := &cp.Chains[c]
		if cc.Chain != r.g {
			return 0, fmt.Errorf("langevin: resume: the checkpoint's chain %d is chain %d of the analysis, the run's is %d", c+1, cc.Chain+1, r.g+1)
		}
		if cc.Iter > cp.Iter || (!cc.Stopped && cc.Iter != cp.Iter) || cc.Thin < 1 {
			return 0, fmt.Errorf("langevin: resume: chain %d of the checkpoint is at iteration %d (thinning %d), the checkpoint at %d", r.g+1, cc.Iter, cc.Thin, cp.Iter)
		}
		r.it, r.kept, r.thin = cc.Iter, cc.Kept, cc.Thin
		r.stopped = cc.Stopped
		if cc.Err != "" {
			r.err = errors.New(cc.Err)
		}
		r.warmupTime, r.sampleTime = cc.WarmupTime, cc.SampleTime
		if c < len(res.Warmup) {
			w := res.Warmup[c]
			if len(w.Theta) < cc.Warm || len(w.Stats) < cc.Warm {
				return 0, fmt.Errorf("langevin: resume: chain %d: %d warm-up draws stored, the checkpoint counts %d", r.g+1, len(w.Theta), cc.Warm)
			}
			for i := 0; i < cc.Warm; i++ {
				if len(w.Theta[i]) != r.warm.width || len(w.Stats[i]) != r.warm.nst {
					return 0, fmt.Errorf("langevin: resume: chain %d: a stored warm-up draw has %d values and %d statistics, the run %d and %d", r.g+1, len(w.Theta[i]), len(w.Stats[i]), r.warm.width, r.warm.nst)
				}
				r.warm.put(w.Theta[i], w.Stats[i], 1+i*opts.Thin) // as stored: (it−1) mod Thin = 0
			}
		} else if cc.Warm > 0 {
			return 0, fmt.Errorf("langevin: resume: chain %d: no warm-up draws given, the checkpoint counts %d", r.g+1, cc.Warm)
		}
		var d Draws
		if c < len(res.Draws) {
			d = res.Draws[c]
		}
		k := 0
		for _, it := range cc.Post {
			for k < len(d.Iters) && d.Iters[k] < it {
				k++
			}
			if k == len(d.Iters) || d.Iters[k] != it || k >= len(d.Theta) || k >= len(d.Stats) {
				return 0, fmt.Errorf("langevin: resume: chain %d: the draw of iteration %d is not among those stored", r.g+1, it)
			}
			if len(d.Theta[k]) != r.post.width || len(d.Stats[k]) != r.post.nst {
				return 0, fmt.Errorf("langevin: resume: chain %d: a stored draw has %d values and %d statistics, the run %d and %d", r.g+1, len(d.Theta[k]), len(d.Stats[k]), r.post.width, r.post.nst)
			}
			r.post.put(d.Theta[k], d.Stats[k], it)
		}
		if !cc.Started {
			if !cc.Stopped {
				return 0, fmt.Errorf("langevin: resume: chain %d of the checkpoint never started", r.g+1)
			}
			continue
		}
		if opts.Sink != nil {
			r.sink = opts.Sink(r.c)
		}
		theta0 := make([]float64, m.Dim())
		r.src = rand.NewPCG(opts.Seed, uint64(r.g)+1)
		rng := rand.New(r.src)
		if err := opts.Init.Init(ctx, m, r.g, rng, theta0); err != nil {
			return 0, &ChainError{Chain: r.g + 1, Err: err}
		}
		ch, err := s.NewChain(m, theta0, rng)
		if err != nil {
			return 0, &ChainError{Chain: r.g + 1, Err: err}
		}
		// The state first: restoring it may remake parts of the chain
		// (drawing from the stream), then the stream as it was.
		if err := RestoreState(ch, cc.State); err != nil {
			return 0, fmt.Errorf("chain %d: %w", r.g+1, err)
		}
		if err := r.src.UnmarshalBinary(cc.RNG); err != nil {
			return 0, fmt.Errorf("langevin: resume: chain %d: random stream: %v", r.g+1, err)
		}
		r.ch = ch
		r.keeper, _ = ch.(Keeper)
	}
	return cp.Iter, nil
}
