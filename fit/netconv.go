package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// FunctionConvergence is the convergence of a network's predictions at the
// plan's points: split R̂ and bulk-ESS of every predictive quantity over the
// chains.
type FunctionConvergence struct {
	Points              int
	MaxRHat, MedianRHat float64
	// WithinRHat is the median over the points of the largest split-R̂ of
	// one chain alone (its two halves): near 1 when every chain is
	// stationary where it is, so that a large R̂ across chains means chains
	// at different modes.
	WithinRHat              float64
	MinESS                  float64
	Draws                   int // per chain
	Converged               bool
	TargetESS, RHatMax, Med float64
	// Partial says the check stopped at the first quantity that misses the
	// ESS or the max R̂ target ([NetPlan.Until]): MaxRHat and MinESS are
	// that quantity's; the median and the within-chain R̂ are not computed.
	Partial bool
}

// String prints the verdict, and by how much it falls short.
func (c *FunctionConvergence) String() string {
	s := fmt.Sprintf("function space at %d points: median R̂ %.3f, max R̂ %.3f, min bulk-ESS %.0f (%d draws a chain)", c.Points, c.MedianRHat, c.MaxRHat, c.MinESS, c.Draws)
	if c.Partial {
		return fmt.Sprintf("function space at %d points: not converged (a predictive quantity has R̂ %.3f, bulk-ESS %.0f; %d draws a chain; the check stopped there)", c.Points, c.MaxRHat, c.MinESS, c.Draws)
	}
	if c.Converged {
		return s + fmt.Sprintf("; converged (median R̂ ≤ %g, max R̂ ≤ %g, ESS ≥ %g)", c.Med, c.RHatMax, c.TargetESS)
	}
	var short []string
	if c.MedianRHat > c.Med {
		short = append(short, fmt.Sprintf("median R̂ %.3f > %g", c.MedianRHat, c.Med))
	}
	if c.MaxRHat > c.RHatMax {
		short = append(short, fmt.Sprintf("max R̂ %.3f > %g", c.MaxRHat, c.RHatMax))
	}
	if c.MinESS < c.TargetESS {
		short = append(short, fmt.Sprintf("ESS %.0f < %g", c.MinESS, c.TargetESS))
	}
	return s + "; short of the target: " + strings.Join(short, ", ")
}

// withinStationary is the largest WithinRHat at which the chains count as
// stationary each at its own mode.
const withinStationary = 1.05

// Modes reports whether the chains disagree because they sit at different
// modes: R̂ across chains above its targets while each chain alone is
// stationary (WithinRHat ≤ 1.05).
func (c *FunctionConvergence) Modes() bool {
	return (c.MaxRHat > c.RHatMax || c.MedianRHat > c.Med) && c.WithinRHat <= withinStationary
}

// Needs says what it would take to reach the targets from a run that kept
// draws from iteration burnin+1 to last: the bulk-ESS grows in proportion to
// the draws, so the ESS target needs about burnin + (last − burnin)·target/ESS
// iterations a chain; R̂ across chains at different modes does not fall
// with length (each chain samples its own mode; the predictive is the
// mixture over the modes), while R̂ of drifting chains does.
func (c *FunctionConvergence) Needs(burnin, last int) string {
	if c.Converged || math.IsNaN(c.MinESS) {
		return ""
	}
	var parts []string
	ran := max(1, last-burnin)
	grow := 1.0
	if c.MinESS < c.TargetESS && c.MinESS > 0 {
		grow = c.TargetESS / c.MinESS
	}
	rhatShort := c.MaxRHat > c.RHatMax || c.MedianRHat > c.Med
	switch {
	case rhatShort && c.Modes():
		parts = append(parts, fmt.Sprintf("R̂: the chains sit at different modes (each chain alone: median split-R̂ %.3f), so R̂ across them will not fall with length; the predictive is the mixture over the modes", c.WithinRHat))
	case rhatShort:
		// A drifting chain: R̂ − 1 falls about as 1/√draws.
		r := (max(c.MaxRHat-1, 0) / (c.RHatMax - 1)) * (max(c.MaxRHat-1, 0) / (c.RHatMax - 1))
		grow = max(grow, r)
		parts = append(parts, fmt.Sprintf("R̂: the chains still drift (each chain alone: median split-R̂ %.3f); R̂ − 1 falls about as 1/√length", c.WithinRHat))
	}
	if grow > 1 {
		need := burnin + int(math.Ceil(float64(ran)*grow))
		parts = append(parts, fmt.Sprintf("about %d iterations a chain ({iters} %d, %.1f× the %d sampled)", need, need, grow, ran))
	}
	return strings.Join(parts, "; ")
}

// Convergence returns the function-space convergence of the trace's chains
// at the plan's points against the targets: min bulk-ESS ≥ target, median
// R̂ ≤ 1.02 and max R̂ ≤ 1.1 (looser than 1.01 because chains at different
// modes of a network agree on predictions only up to the modes' own
// differences).
func (p *NetPlan) Convergence(m Network, tr *langevin.Trace, target float64) *FunctionConvergence {
	return p.convergence(m, tr, target, nil, false)
}

// Until returns a langevin.Options.Until rule: stop when the predictions at
// the plan's points have converged ([NetPlan.Convergence]); the last verdict
// is left in *last. Its verdict is Convergence's, at less cost: the
// predictions of a draw are computed once in the run (kept by chain,
// iteration and a hash of the draw, so that a later round and the thinning
// reuse them), and a round's check stops at the first predictive quantity
// that misses the ESS or the max R̂ target, since the run then goes on
// whatever the others say (such a verdict is Partial).
func (p *NetPlan) Until(m Network, target float64, last **FunctionConvergence) func(tr *langevin.Trace) bool {
	cache := &funcCache{}
	return func(tr *langevin.Trace) bool {
		c := p.convergence(m, tr, target, cache, true)
		if last != nil {
			*last = c
		}
		return c.Converged
	}
}

// funcCache holds the predictions at the plan's points of the draws of a
// run's last check, by chain and iteration; the hash (funcHash of the draw)
// tells a draw from another at the same place (another trace).
type funcCache struct {
	m       map[[2]int]funcEntry
	width   int
	network Network
}

type funcEntry struct {
	hash uint64
	vals []float64
}

// funcHash is FNV-1a over the bits of theta.
func funcHash(theta []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range theta {
		h ^= math.Float64bits(v)
		h *= 1099511628211
	}
	return h
}

// convergence is Convergence; with a cache the predictions of draws seen
// before are reused, and quick stops at the first quantity that fails the
// ESS or the max R̂ target and skips the within-chain R̂ (Converged is
// Convergence's either way).
func (p *NetPlan) convergence(m Network, tr *langevin.Trace, target float64, cache *funcCache, quick bool) *FunctionConvergence {
	c := &FunctionConvergence{TargetESS: target, RHatMax: 1.1, Med: 1.02, MaxRHat: math.NaN(), MedianRHat: math.NaN(), MinESS: math.NaN(), WithinRHat: math.NaN()}
	short := math.MaxInt
	for _, ch := range tr.Draws {
		short = min(short, len(ch))
	}
	if len(tr.Draws) == 0 || short < 8 {
		return c
	}
	np, _ := p.Points.Dims()
	w := m.FunctionWidth()
	k := np * w
	c.Points, c.Draws = np, short
	vals := make([][]float64, len(tr.Draws)) // chain → draws × k
	d := m.Dim()
	var next map[[2]int]funcEntry
	if cache != nil {
		if cache.network != m || cache.width != k {
			cache.m, cache.network, cache.width = nil, m, k
		}
		next = make(map[[2]int]funcEntry, len(tr.Draws)*short)
	}
	for ci, ch := range tr.Draws {
		vals[ci] = make([]float64, short*k)
		for i := 0; i < short; i++ {
			dst := vals[ci][i*k : (i+1)*k]
			if cache == nil || ci >= len(tr.Iters) || i >= len(tr.Iters[ci]) {
				m.FunctionValues(ch[i][:d], p.Points, dst)
				continue
			}
			key, h := [2]int{ci, tr.Iters[ci][i]}, funcHash(ch[i][:d])
			if e, ok := cache.m[key]; ok && e.hash == h {
				copy(dst, e.vals)
			} else {
				m.FunctionValues(ch[i][:d], p.Points, dst)
			}
			next[key] = funcEntry{h, dst}
		}
	}
	if cache != nil {
		cache.m = next
	}
	col := make([][]float64, len(tr.Draws))
	for ci := range col {
		col[ci] = make([]float64, short)
	}
	var rh, within []float64
	one := make([][]float64, 1)
	c.MinESS = math.Inf(1)
	c.MaxRHat = 0
	for q := 0; q < k; q++ {
		constant := true
		for ci := range col {
			for i := 0; i < short; i++ {
				col[ci][i] = vals[ci][i*k+q]
				if col[ci][i] != col[0][0] {
					constant = false
				}
			}
		}
		if constant {
			continue
		}
		r := diag.RHat(col)
		e := diag.ESSBulk(col)
		if math.IsNaN(r) || math.IsNaN(e) {
			continue
		}
		if quick && (e < target || r > c.RHatMax) {
			c.MaxRHat, c.MinESS, c.Partial = r, e, true
			return c
		}
		rh = append(rh, r)
		c.MaxRHat = max(c.MaxRHat, r)
		c.MinESS = min(c.MinESS, e)
		if quick {
			continue
		}
		wr := 0.0
		for ci := range col {
			one[0] = col[ci]
			if v := diag.RHat(one); v > wr {
				wr = v
			}
		}
		within = append(within, wr)
	}
	if len(rh) == 0 {
		return c
	}
	sort.Float64s(rh)
	c.MedianRHat = rh[len(rh)/2]
	if len(within) > 0 {
		sort.Float64s(within)
		c.WithinRHat = within[len(within)/2]
	}
	c.Converged = c.MinESS >= target && c.MaxRHat <= c.RHatMax && c.MedianRHat <= c.Med
	return c
}
