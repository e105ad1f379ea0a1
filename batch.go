package langevin

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Batcher draws minibatches of observation indices from {0, …, N−1}.
//
// With replacement, each index of a batch is drawn uniformly and independently.
// Without replacement, batches are consecutive blocks of a random permutation
// (shuffled epochs); when fewer than Size indices remain in the current epoch
// they are dropped and a new permutation is drawn, so every batch has exactly
// Size distinct indices and the scale N/|B| is the same at every step.
// A batch of size N without replacement, or size 0, is the full data set: Next
// then returns nil, which models read as "all observations".
type Batcher struct {
	n, size int
	replace bool
	rng     *rand.Rand
	perm    []int32 // n < 2³¹ (NewBatcher); half the memory an epoch's shuffle walks
	pos     int
	idx     []int
}

// NewBatcher returns a Batcher over n observations. size must be in [0, n];
// size 0 means full batch.
func NewBatcher(n, size int, replace bool, rng *rand.Rand) (*Batcher, error) {
	if n <= 0 {
		return nil, fmt.Errorf("langevin: minibatch over %d observations: need at least one", n)
	}
	if size < 0 || size > n {
		return nil, fmt.Errorf("langevin: batch size %d: expected 1 ≤ batch ≤ N = %d (0 for full batch)", size, n)
	}
	b := &Batcher{n: n, size: size, replace: replace, rng: rng}
	if size == 0 || (size == n && !replace) {
		b.size = 0
		return b, nil
	}
	b.idx = make([]int, size)
	if !replace {
		if n > math.MaxInt32 {
			return nil, fmt.Errorf("langevin: minibatches without replacement over %d observations: at most 2³¹ − 1", n)
		}
		b.perm = make([]int32, n)
		for i := range b.perm {
			b.perm[i] = int32(i)
		}
		b.pos = n // shuffle on first call
	}
	return b, nil
}

// Full reports whether every batch is the whole data set.
func (b *Batcher) Full() bool { return b.size == 0 }

// Size returns |B|, the number of observations in each batch (N when full).
func (b *Batcher) Size() int {
	if b.size == 0 {
		return b.n
	}
	return b.size
}

// Scale returns N/|B|, the factor that makes a batch sum unbiased for the sum
// over all data.
func (b *Batcher) Scale() float64 { return float64(b.n) / float64(b.Size()) }

// Next returns the next batch. The slice is owned by the Batcher and is
// overwritten by the following call. It returns nil for a full batch.
func (b *Batcher) Next() []int {
	if b.size == 0 {
		return nil
	}
	if b.replace {
		for i := range b.idx {
			b.idx[i] = b.rng.IntN(b.n)
		}
		return b.idx
	}
	if b.pos+b.size > b.n {
		// rand.Shuffle's Fisher–Yates, the same draws and swaps, without a
		// call per swap.
		p := b.perm
		for i := len(p) - 1; i > 0; i-- {
			j := b.rng.Uint64N(uint64(i + 1))
			p[i], p[j] = p[j], p[i]
		}
		b.pos = 0
	}
	for k, v := range b.perm[b.pos : b.pos+b.size] {
		b.idx[k] = int(v)
	}
	b.pos += b.size
	return b.idx
}

// Estimator is the minibatch estimator of the log posterior and its gradient,
//
//	ĝ(θ) = ∇log p(θ) + (N/|B|) Σ_{i∈B} ∇log p(zᵢ | θ),
//
// the one place where the N/|B| scale is applied. It owns its buffers, so Eval
// does not allocate.
type Estimator struct {
	model     Model
	batcher   *Batcher
	lik       []float64
	batch     []int
	cv        *controlVariate // nil: plain estimator
	taylor    Taylor          // nil: no second-order control variate
	taylorHat []float64       // its centre
}

// NewEstimator returns an estimator drawing its batches from b.
func NewEstimator(m Model, b *Batcher) *Estimator {
	return &Estimator{model: m, batcher: b, lik: make([]float64, m.Dim())}
}

// Model returns the model.
func (e *Estimator) Model() Model { return e.model }

// Batcher returns the batcher.
func (e *Estimator) Batcher() *Batcher { return e.batcher }

// Batch returns the batch used by the last call to Eval (nil: all data).
func (e *Estimator) Batch() []int { return e.batch }

// Eval draws a new batch, overwrites grad with ĝ(θ) when grad is not nil, and
// returns the matching unbiased estimate of log p(θ) + Σᵢ log p(zᵢ|θ).
func (e *Estimator) Eval(theta, grad []float64) float64 {
	e.batch = e.batcher.Next()
	return e.EvalBatch(theta, e.batch, grad)
}

// EvalBatch is Eval on a given batch (nil: all data), scaled by N/|batch|.
func (e *Estimator) EvalBatch(theta []float64, batch []int, grad []float64) float64 {
	scale := 1.0
	if batch != nil {
		scale = float64(e.model.Len()) / float64(len(batch))
	}
	if e.cv != nil && batch != nil {
		return e.evalCV(theta, batch, scale, grad)
	}
	if e.taylor != nil && batch != nil {
		return e.evalTaylor(theta, batch, scale, grad)
	}
	if grad == nil {
		return e.model.LogPrior(theta, nil) + scale*e.model.LogLik(theta, batch, nil)
	}
	clear(grad)
	lp := e.model.LogPrior(theta, grad)
	lik := e.lik
	clear(lik)
	ll := e.model.LogLik(theta, batch, lik)
	for i, v := range lik {
		lik[i] = scale * v
		grad[i] += lik[i]
	}
	return lp + scale*ll
}

// LikGrad returns the likelihood part of the last gradient estimate,
// (N/|B|) Σ_{i∈B} ∇log p(zᵢ|θ) (with the control variate when set), as
// computed by the last Eval or EvalBatch with a non-nil grad. The slice is
// owned by the estimator.
func (e *Estimator) LikGrad() []float64 { return e.lik }

// Replace reports whether batches are drawn with replacement.
func (b *Batcher) Replace() bool { return b.replace }
