package langevin

import (
	"math"
	"time"
)

// Trace holds the draws of a run: Draws[c][t] is draw t of chain c, a row of
// len(Names) values — the model's parameters (the first Dim) followed by its
// derived quantities. Stats[c][t] holds the sampler's per-draw statistics named
// by StatNames. Iters[c][t] is the 1-based iteration the draw was taken at
// (burn-in included). Warmup[c] holds chain c's burn-in draws, thinned alike,
// when the run saved them.
type Trace struct {
	Names     []string
	Dim       int
	StatNames []string
	Draws     [][][]float64
	Stats     [][][]float64
	Iters     [][]int
	// Warmup holds each chain's burn-in draws when Options.SaveWarmup is set.
	Warmup []Draws
	BurnIn int
	Thin   int
	// FirstChain is the 0-based number, in the whole analysis, of chain 0 of
	// this trace (Options.FirstChain): Draws[c] is chain FirstChain+c.
	FirstChain int
	// WarmupTime[c] and SampleTime[c] are the wall-clock times chain c spent
	// in its burn-in iterations and in the iterations after them (as
	// CmdStan's "Elapsed Time" warm-up and sampling lines); initialisation
	// is in neither. ESS per second is ESS / SampleTime.Seconds().
	WarmupTime, SampleTime []time.Duration
	// NoCheckpoint says why a run given Options.Checkpoint made none (a
	// chain that cannot save its state); empty otherwise.
	NoCheckpoint string
}

// NumChains returns the number of chains.
func (t *Trace) NumChains() int { return len(t.Draws) }

// NumDraws returns the total number of draws over all chains.
func (t *Trace) NumDraws() int {
	n := 0
	for _, c := range t.Draws {
		n += len(c)
	}
	return n
}

// Param returns the draws of column j (a parameter or derived quantity), one
// slice per chain: the shape the diag package works on.
func (t *Trace) Param(j int) [][]float64 {
	out := make([][]float64, len(t.Draws))
	for c, rows := range t.Draws {
		out[c] = make([]float64, len(rows))
		for i, r := range rows {
			out[c][i] = r[j]
		}
	}
	return out
}

// Params returns Param(j) for every column j: params[j][chain][draw].
func (t *Trace) Params() [][][]float64 {
	out := make([][][]float64, len(t.Names))
	for j := range out {
		out[j] = t.Param(j)
	}
	return out
}

// Stat returns the per-draw statistic called name, one slice per chain, and
// whether the sampler reports it.
func (t *Trace) Stat(name string) ([][]float64, bool) {
	k := t.StatIndex(name)
	if k < 0 {
		return nil, false
	}
	out := make([][]float64, len(t.Stats))
	for c, rows := range t.Stats {
		out[c] = make([]float64, len(rows))
		for i, r := range rows {
			out[c][i] = r[k]
		}
	}
	return out, true
}

// StatIndex returns the position of the statistic called name in StatNames,
// or −1.
func (t *Trace) StatIndex(name string) int {
	for k, s := range t.StatNames {
		if s == name {
			return k
		}
	}
	return -1
}

// Mean returns the plain posterior mean estimate over all chains and draws,
// θ̄ = (1/T) Σₜ θₜ (lecture notes eq. 3.7), for every column. dst may be nil.
func (t *Trace) Mean(dst []float64) []float64 {
	return t.weightedMean(dst, -1)
}

// WeightedMean returns the step-size weighted posterior mean,
// θ̄ = Σₜ ηₜ θₜ / Σₜ ηₜ (lecture notes eq. 3.8), the consistent estimator for
// SGLD with decreasing steps; ηₜ is the "stepsize__" statistic. Without that
// statistic it returns the plain mean. dst may be nil.
func (t *Trace) WeightedMean(dst []float64) []float64 {
	return t.weightedMean(dst, t.StatIndex("stepsize__"))
}

func (t *Trace) weightedMean(dst []float64, k int) []float64 {
	if dst == nil {
		dst = make([]float64, len(t.Names))
	}
	clear(dst)
	var wsum float64
	for c, rows := range t.Draws {
		for i, r := range rows {
			w := 1.0
			if k >= 0 {
				w = t.Stats[c][i][k]
			}
			wsum += w
			for j, v := range r {
				dst[j] += w * v
			}
		}
	}
	for j := range dst {
		if wsum > 0 {
			dst[j] /= wsum
		} else {
			dst[j] = math.NaN()
		}
	}
	return dst
}

// Rows returns the draws of all chains as one slice of rows, chain by chain
// (the rows are shared, not copied): the form posterior predictive functions
// take.
func (t *Trace) Rows() [][]float64 {
	rows := make([][]float64, 0, t.NumDraws())
	for _, c := range t.Draws {
		rows = append(rows, c...)
	}
	return rows
}

// DropEmpty returns a trace without the chains that hold no kept draw (a
// run stopped before they began), sharing t's draws, and how many were
// dropped; t itself when none was. The chains kept keep their order;
// FirstChain is that of the first chain kept when the chains before it
// were dropped.
func (t *Trace) DropEmpty() (*Trace, int) {
	var keep []int
	for c, d := range t.Draws {
		if len(d) > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == len(t.Draws) {
		return t, 0
	}
	out := *t
	out.Draws, out.Stats, out.Iters, out.Warmup = nil, nil, nil, nil
	out.WarmupTime, out.SampleTime = nil, nil
	for _, c := range keep {
		out.Draws = append(out.Draws, t.Draws[c])
		if c < len(t.Stats) {
			out.Stats = append(out.Stats, t.Stats[c])
		}
		if c < len(t.Iters) {
			out.Iters = append(out.Iters, t.Iters[c])
		}
		if c < len(t.Warmup) {
			out.Warmup = append(out.Warmup, t.Warmup[c])
		}
		if c < len(t.WarmupTime) {
			out.WarmupTime = append(out.WarmupTime, t.WarmupTime[c])
		}
		if c < len(t.SampleTime) {
			out.SampleTime = append(out.SampleTime, t.SampleTime[c])
		}
	}
	if len(keep) > 0 {
		out.FirstChain = t.FirstChain + keep[0]
	}
	return &out, len(t.Draws) - len(keep)
}
