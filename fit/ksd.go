package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// KSDOptions controls [TraceKSD] and [SelectStepKSD]. A zero field means its
// documented default.
type KSDOptions struct {
	// Draws is the number of draws whose KSD is computed (the run's, thinned
	// evenly over the pooled chains, and as many reference draws); 0 means
	// 300.
	Draws int
	// Batch is the number of observations behind each score: 0 means all of
	// them when N ≤ 10,000 and otherwise a fixed random batch of 10,000
	// used through the control-variate estimator around the reference mean
	// θ̂ ([Scores]; in Laplace-sd units its error is about √(λmax(CM)) of
	// the step rule at that batch size, a few hundredths).
	Batch int
	// Scale is the scale of each coordinate in which the kernel is
	// evaluated; nil means the reference's marginal sds.
	Scale []float64
	// Seed seeds the reference draws and the batch.
	Seed uint64
}

func (o KSDOptions) defaults(n int) KSDOptions {
	if o.Draws <= 0 {
		o.Draws = 300
	}
	if o.Batch <= 0 || o.Batch > n {
		o.Batch = n
		if n > 10000 {
			o.Batch = 10000
		}
	}
	return o
}

// Scores returns the full-data scores s(θ) = ∇log p(θ|D) at the given points
// (the first m.Dim() values of each row). With 0 < batch < N they are the
// control-variate estimates around centre θ̂ on one fixed batch B drawn
// from rng,
//
//	s(θ) ≈ ∇log p(θ) + Σᵢ ∇log p(zᵢ|θ̂) + (N/|B|) Σ_{i∈B} [∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂)],
//
// whose error shrinks with ‖θ − θ̂‖ (a fixed batch scaled by N/|B| without
// the control variate would be the score of a different posterior, shifted
// by about √(N/|B|) posterior sds). centre may be nil only when batch is 0
// or N.
func Scores(m langevin.Model, rows [][]float64, centre []float64, batch int, rng *rand.Rand) ([][]float64, error) {
	d, n := m.Dim(), m.Len()
	out := make([][]float64, len(rows))
	slab := make([]float64, len(rows)*d)
	for i := range out {
		out[i] = slab[i*d : (i+1)*d]
	}
	if batch <= 0 || batch >= n {
		forRows(len(rows), func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				langevin.LogPosterior(m, rows[i][:d], out[i])
			}
			return nil
		})
		return out, nil
	}
	if centre == nil {
		return nil, fmt.Errorf("sampler: scores from a batch of %d of %d observations need a control-variate centre", batch, n)
	}
	// Above sampler.FloydAbove observations the batch is drawn without the
	// Batcher's permutation of all n indices.
	large := n > sampler.FloydAbove
	b, err := langevin.NewBatcher(n, batch, large, rng)
	if err != nil {
		return nil, err
	}
	var fixed []int
	if large {
		fixed = sampler.FloydSample(n, batch, rng)
	} else {
		fixed = append([]int(nil), b.Next()...)
	}
	if sm, ok := m.(subsetter); ok && sm.Streamed() {
		// A model that reads its rows from a file: read the batch once.
		return subsetScores(m, sm, rows, centre, fixed, out)
	}
	err = forRows(len(rows), func(lo, hi int) error {
		est := langevin.NewEstimator(m, b) // its own scratch
		if err := est.SetControlVariate(centre); err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			est.EvalBatch(rows[i][:d], fixed, out[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// subsetter is a model that reads its rows as it needs them (a logistic
// regression streamed from a data store, model.NewLogisticRows) and can
// hold a subset of them in memory.
type subsetter interface {
	Streamed() bool
	Subset(idx []int) (langevin.Model, error)
}

// subsetScores is Scores' control-variate branch for a subsetter: one full
// pass for the centre's gradient, and the batch read into memory once,
// rather than a full pass per block and the batch twice for each point.
func subsetScores(m langevin.Model, sm subsetter, rows [][]float64, centre []float64, fixed []int, out [][]float64) ([][]float64, error) {
	d, n := m.Dim(), m.Len()
	for j, v := range centre {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sampler: scores: control-variate centre %d = %v: expected a finite number", j, v)
		}
	}
	sub, err := sm.Subset(fixed)
	if err != nil {
		return nil, err
	}
	full := make([]float64, d) // Σᵢ ∇log p(zᵢ|θ̂) over all rows
	m.LogLik(centre, nil, full)
	atCentre := make([]float64, d) // Σ_{i∈B} ∇log p(zᵢ|θ̂)
	sub.LogLik(centre, nil, atCentre)
	scale := float64(n) / float64(len(fixed))
	err = forRows(len(rows), func(lo, hi int) error {
		lik := make([]float64, d)
		for i := lo; i < hi; i++ {
			g := out[i]
			clear(g)
			m.LogPrior(rows[i][:d], g)
			clear(lik)
			sub.LogLik(rows[i][:d], nil, lik)
			for j := range g {
				g[j] += full[j] + scale*(lik[j]-atCentre[j])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forRows calls fn on at most GOMAXPROCS contiguous blocks [lo, hi)
// covering 0…n−1 at once and returns the first error. Models are safe for
// concurrent use (as the chains of Run use them); each point's score is
// computed alone, so the result does not depend on the number of blocks.
func forRows(n int, fn func(lo, hi int) error) error {
	w := max(1, min(runtime.GOMAXPROCS(0), n/16))
	errs := make([]error, w)
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = fn(k*n/w, (k+1)*n/w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TraceKSD returns the kernel Stein discrepancy ([diag.KSD]) of tr's draws
// (opt.Draws of them, evenly thinned over the pooled chains) next to that of
// as many independent draws from the Gaussian reference N(refMean, refCov)
// (the Laplace approximation; for an exact small problem, pass a short
// exact run through [diag.KSD] instead), in coordinates scaled by opt.Scale
// (default: the reference's sds), with the verdict of
// [diag.KSDWorseFactor]. Scores are full-data or, for large N, the
// control-variate estimates of [Scores] around refMean on one batch.
func TraceKSD(m langevin.Model, tr *langevin.Trace, refMean []float64, refCov *mat.SymDense, opt KSDOptions) (diag.KSDCheck, error) {
	d := m.Dim()
	var pooled [][]float64
	for _, c := range tr.Draws {
		for _, r := range c {
			pooled = append(pooled, r[:d])
		}
	}
	if len(pooled) < 2 {
		return diag.KSDCheck{}, fmt.Errorf("sampler: KSD of %d draws: need at least 2", len(pooled))
	}
	opt = opt.defaults(m.Len())
	idx := diag.ThinIndex(len(pooled), opt.Draws)
	x := make([][]float64, len(idx))
	for i, k := range idx {
		x[i] = pooled[k]
	}
	ref, err := gaussianDraws(refMean, refCov, len(x), rand.New(rand.NewPCG(opt.Seed, 0x6b7364)))
	if err != nil {
		return diag.KSDCheck{}, err
	}
	scale := opt.Scale
	if scale == nil {
		scale = make([]float64, d)
		for j := range scale {
			scale[j] = math.Sqrt(refCov.At(j, j))
		}
	}
	sx, err := Scores(m, x, refMean, opt.Batch, rand.New(rand.NewPCG(opt.Seed, 0x62)))
	if err != nil {
		return diag.KSDCheck{}, err
	}
	sr, err := Scores(m, ref, refMean, opt.Batch, rand.New(rand.NewPCG(opt.Seed, 0x62)))
	if err != nil {
		return diag.KSDCheck{}, err
	}
	return diag.NewKSDCheck(len(x), diag.KSD(x, sx, scale), diag.KSD(ref, sr, scale)), nil
}

// gaussianDraws returns n draws from N(mean, cov).
func gaussianDraws(mean []float64, cov *mat.SymDense, n int, rng *rand.Rand) ([][]float64, error) {
	d := len(mean)
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return nil, fmt.Errorf("sampler: reference covariance is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	out := make([][]float64, n)
	z := make([]float64, d)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for a := 0; a < d; a++ {
			v := mean[a]
			for b := 0; b <= a; b++ {
				v += l.At(a, b) * z[b]
			}
			out[i][a] = v
		}
	}
	return out, nil
}

// StepKSD is one candidate of [SelectStepKSD].
type StepKSD struct {
	Eta float64
	KSD float64 // KSD of the pilot's draws (NaN when the pilot failed)
	Err error   // the pilot's error (a divergence), if any
}

// SelectStepKSD chooses among candidate steps the one whose short pilot run
// has the smallest kernel Stein discrepancy (Coullon, South & Nemeth 2023,
// "Efficient and generalizable tuning strategies for stochastic gradient
// MCMC"): KSD measures both the bias a large step brings and the poor
// exploration of a small one over a fixed budget. For every candidate η it
// calls run(ctx, η) for the pilot's trace (the same seed for all, so that
// they differ only in the step), thins its draws to opt.Draws and computes
// their KSD from the scores of [Scores] around centre (the MAP), in the
// coordinates of opt.Scale (nil: the pilot draws' sds of the smallest
// candidate). Pilots that diverge lose. It returns the best step and every
// candidate's KSD.
func SelectStepKSD(ctx context.Context, m langevin.Model, candidates []float64, centre []float64, run func(ctx context.Context, eta float64) (*langevin.Trace, error), opt KSDOptions) (float64, []StepKSD, error) {
	if len(candidates) == 0 {
		return 0, nil, fmt.Errorf("sampler: KSD step selection: no candidate steps")
	}
	opt = opt.defaults(m.Len())
	d := m.Dim()
	res := make([]StepKSD, len(candidates))
	best := -1
	scale := opt.Scale
	for i, eta := range candidates {
		res[i] = StepKSD{Eta: eta, KSD: math.NaN()}
		tr, err := run(ctx, eta)
		if ctx.Err() != nil {
			return 0, res, ctx.Err()
		}
		if err != nil {
			res[i].Err = err
			continue
		}
		var pooled [][]float64
		for _, c := range tr.Draws {
			for _, r := range c {
				pooled = append(pooled, r[:d])
			}
		}
		if len(pooled) < 2 {
			res[i].Err = fmt.Errorf("pilot kept %d draws", len(pooled))
			continue
		}
		idx := diag.ThinIndex(len(pooled), opt.Draws)
		x := make([][]float64, len(idx))
		for k, p := range idx {
			x[k] = pooled[p]
		}
		if scale == nil {
			scale = make([]float64, d)
			for j := range scale {
				var s, ss float64
				for _, r := range x {
					s += r[j]
					ss += r[j] * r[j]
				}
				nf := float64(len(x))
				scale[j] = math.Sqrt(math.Max(ss/nf-(s/nf)*(s/nf), 0))
				if !(scale[j] > 0) {
					scale[j] = 1
				}
			}
		}
		sx, err := Scores(m, x, centre, opt.Batch, rand.New(rand.NewPCG(opt.Seed, 0x62)))
		if err != nil {
			return 0, res, err
		}
		res[i].KSD = diag.KSD(x, sx, scale)
		if !math.IsNaN(res[i].KSD) && (best < 0 || res[i].KSD < res[best].KSD) {
			best = i
		}
	}
	if best < 0 {
		return 0, res, fmt.Errorf("sampler: KSD step selection: every pilot failed (first: %v)", res[0].Err)
	}
	return candidates[best], res, nil
}
