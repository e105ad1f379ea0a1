package fit

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// RHatPopulation is the R̂ threshold of one quantity (Vehtari, Gelman,
// Simpson, Carpenter & Bürkner 2021; posterior's rhat < 1.01), applied to
// every parameter that is not a group-level effect.
const RHatPopulation = 1.01

// RHatFamilyAlpha is the probability with which chains of exact draws
// would fail the group effects' R̂ threshold (RHatGroupLimit) at the ESS
// target: a 5% false alarm for the family, not for each effect.
const RHatFamilyAlpha = 0.05

// GroupEffects is implemented by models whose parameters include
// exchangeable group-level effects (formula.Model: the 2,000 effects of
// 1,000 groups' intercepts and slopes): GroupEffect reports whether the
// named column (of θ or a derived quantity) is one.
type GroupEffects interface {
	GroupEffect(name string) bool
}

// RHatGroupLimit returns the R̂ threshold for a family of n exchangeable
// quantities (group effects) judged together on chains chains at bulk-ESS
// ess: the 1 − RHatFamilyAlpha quantile of the largest of their R̂s when
// the draws are exact and independent (Bonferroni over the n quantities
// and the two R̂s each, bulk and tail), and never below RHatPopulation.
//
// For exact draws, m chains split in 2m halves and bulk-ESS S, the split
// R̂ satisfies (R̂² − 1)·S/(2m) ≈ B/W − 1 with B/W, the variance of the
// halves' means over its expectation W/(S/2m), an F with 2m − 1 and
// S − 2m degrees of freedom, so
//
//	limit = √(1 + (q − 1)·2m/S),  q = F(2m−1, S−2m) quantile at 1 − α/(2n).
//
// With 4 chains, S = 400 and n = 2,000 it is 1.036; 1.01 holds for every
// one of 2,000 R̂s only at S ≈ 1,200-1,600 (docs/formulas.md measures it:
// max R̂ 1.028–1.034 over 2,005 columns of independent draws at S = 400),
// which would make the stop ask three times the ESS target of every
// effect. TestRHatGroupLimit checks the quantile on simulated draws.
func RHatGroupLimit(n, chains int, ess float64) float64 {
	if n < 1 || chains < 1 || !(ess > 0) {
		return RHatPopulation
	}
	return math.Max(RHatPopulation, math.Sqrt(1+(rhatQuantile(n, chains, ess)-1)*float64(2*chains)/ess))
}

// rhatQuantile returns the 1 − α/(2n) quantile of B/W for exact draws: F
// with 2m − 1 and S − 2m degrees of freedom (between the 2m halves' means,
// within the halves).
func rhatQuantile(n, chains int, ess float64) float64 {
	m2 := float64(2 * chains)
	return distuv.F{D1: m2 - 1, D2: math.Max(ess-m2, 1)}.Quantile(1 - RHatFamilyAlpha/float64(2*n))
}

// RHatRule is the R̂ half of the ESS stop and of the run's warnings:
// R̂ ≤ RHatPopulation for every population-level parameter and
// R̂ ≤ RHatGroupLimit(n, chains, Target) for the n group effects (none
// without Group).
type RHatRule struct {
	Group  func(name string) bool // the group effects; nil: none
	Target float64                // the ESS target the group limit assumes
}

// NewRHatRule returns the rule for m (group effects when m is a
// GroupEffects) at the ESS target.
func NewRHatRule(m langevin.Model, target float64) RHatRule {
	r := RHatRule{Target: target}
	if h, ok := m.(interface{ HasGroups() bool }); ok && !h.HasGroups() {
		return r
	}
	if g, ok := m.(GroupEffects); ok {
		r.Group = g.GroupEffect
	}
	return r
}

// ProgressText says what the stop waits for, for the progress line.
func (r RHatRule) ProgressText() string {
	if r.Group == nil {
		return fmt.Sprintf("min bulk-ESS ≥ %.0f and R̂ ≤ %g", r.Target, RHatPopulation)
	}
	return fmt.Sprintf("min bulk-ESS ≥ %.0f, R̂ ≤ %g on the population-level parameters and the family bound on the group effects", r.Target, RHatPopulation)
}

// counts returns the numbers of group effects and other parameters among
// the names.
func (r RHatRule) counts(names []string) (group, pop int) {
	for _, nm := range names {
		if r.Group != nil && r.Group(nm) {
			group++
		} else {
			pop++
		}
	}
	return group, pop
}

// Limits returns the limit of each named column for chains chains.
func (r RHatRule) Limits(names []string, chains int) func(name string) float64 {
	ng, _ := r.counts(names)
	gl := RHatGroupLimit(ng, chains, r.Target)
	return func(name string) float64 {
		if r.Group != nil && r.Group(name) {
			return gl
		}
		return RHatPopulation
	}
}

// Text states the rule for the auto: stop line.
func (r RHatRule) Text(names []string, chains int) string {
	ng, np := r.counts(names)
	if ng == 0 {
		return fmt.Sprintf("min bulk-ESS ≥ %.0f and R̂ ≤ %g over all %d parameters (Vehtari et al. 2021)", r.Target, RHatPopulation, np)
	}
	return fmt.Sprintf("min bulk-ESS ≥ %.0f over all %d parameters; R̂ ≤ %g (Vehtari et al. 2021) on the %d population-level ones; R̂ ≤ %.3f on the %d group effects: the bound that the largest of %d R̂s of exact, independent draws at bulk-ESS %.0f in %d chains exceeds with probability %g ((R̂² − 1)·ESS/%d ~ F(%d, ESS − %d) − 1, Bonferroni) — 1.01 on each of %d would ask an ESS near %.0f of every effect",
		r.Target, ng+np, RHatPopulation, np, RHatGroupLimit(ng, chains, r.Target), ng, ng, r.Target, chains, RHatFamilyAlpha,
		2*chains, 2*chains-1, 2*chains, ng, essFor(ng, chains))
}

// essFor returns the bulk-ESS at which RHatGroupLimit(n, chains, ·) falls
// to RHatPopulation.
func essFor(n, chains int) float64 {
	ess := 400.0
	for range 50 { // fixed point: the F quantile depends on S only through S − 2m
		ess = (rhatQuantile(n, chains, ess) - 1) * float64(2*chains) / (RHatPopulation*RHatPopulation - 1)
	}
	return ess
}

// check returns whether every column of the first dim columns of tr is
// within its limit (columns whose R̂ is undefined fail nothing, as in
// MaxRHat; all undefined fails), with the largest R̂ of each kind (NaN:
// none) and the group limit.
func (r RHatRule) check(tr *langevin.Trace, dim int) (ok bool, pop, grp, glim float64) {
	names := tr.Names[:dim]
	ng, _ := r.counts(names)
	glim = RHatGroupLimit(ng, len(tr.Draws), r.Target)
	pop, grp = math.Inf(-1), math.Inf(-1)
	defined := 0
	ok = true
	forColumns(tr, dim, func(j int, chains [][]float64) {
		v := diag.RHat(chains)
		if math.IsNaN(v) {
			return
		}
		defined++
		if r.Group != nil && r.Group(names[j]) {
			ok = ok && v <= glim
			grp = math.Max(grp, v)
			return
		}
		ok = ok && v <= RHatPopulation
		pop = math.Max(pop, v)
	})
	if defined == 0 {
		return false, math.NaN(), math.NaN(), glim
	}
	return ok, pop, grp, glim
}

// UntilRule is UntilESS with the R̂ rule r: stop when the smallest bulk-ESS
// over the first dim columns reaches target and every column's R̂ is within
// r's limit for it, or when maxTime (0: none) has passed since start.
//
// Each check first looks where it most likely fails — the 16 columns of
// the smallest bulk-ESS at the previous check, and with group effects the R̂
// of the few population-level columns — and stops there if it fails: the
// same decision as the whole check (the conditions are a conjunction), at
// the cost of a handful of columns instead of every one (on 2,005
// parameters the whole check took ~0.6 s of CPU, a third of the sampling
// time between checks).
func UntilRule(dim int, target float64, r RHatRule, start time.Time, maxTime time.Duration, why *string) func(tr *langevin.Trace) bool {
	var worst []int // the columns of the smallest bulk-ESS at the last whole check
	return func(tr *langevin.Trace) bool {
		if maxTime > 0 && time.Since(start) >= maxTime {
			if why != nil {
				*why = fmt.Sprintf("time budget %v reached", maxTime)
			}
			return true
		}
		if !r.quickPass(tr, dim, worst, target) {
			return false
		}
		var ess float64
		ess, worst = lowESS(tr, dim, target, worst[:0])
		if !(ess >= target) {
			return false
		}
		ok, pop, grp, glim := r.check(tr, dim)
		if ok && why != nil {
			if r.Group == nil {
				*why = fmt.Sprintf("min bulk-ESS %.0f ≥ target %.0f and max R̂ %.3f ≤ 1.01", ess, target, pop)
			} else {
				*why = fmt.Sprintf("min bulk-ESS %.0f ≥ target %.0f, max R̂ %.3f ≤ %g on the population-level parameters and %.3f ≤ %.3f on the group effects", ess, target, pop, RHatPopulation, grp, glim)
			}
		}
		return ok
	}
}

// quickWorst is the number of smallest-ESS columns the next check looks
// at first.
const quickWorst = 16

// lowESS returns MinESSBulk's smallest bulk-ESS (NaN when undefined) and
// the columns of the quickWorst smallest, appended to dst — or, as soon as
// quickWorst columns are below target, the smallest of those and their
// columns: the check fails either way, and they are where the next one
// looks first.
func lowESS(tr *langevin.Trace, dim int, target float64, dst []int) (float64, []int) {
	type ce struct {
		e float64
		j int
	}
	var low []ce // ascending, at most quickWorst
	column, ok := columnReader(tr)
	below := 0
	for j := 0; ok && j < dim && below < quickWorst; j++ {
		e := diag.ESSBulk(column(j))
		if e < target {
			below++
		}
		if !(len(low) < quickWorst || e < low[len(low)-1].e) { // NaN: skipped, as MinESSBulk
			continue
		}
		k := len(low)
		if k < quickWorst {
			low = append(low, ce{})
		} else {
			k--
		}
		for k > 0 && e < low[k-1].e {
			low[k] = low[k-1]
			k--
		}
		low[k] = ce{e, j}
	}
	if len(low) == 0 {
		return math.NaN(), dst
	}
	for _, c := range low {
		dst = append(dst, c.j)
	}
	return low[0].e, dst
}

// columnReader returns a function that gives column j of tr's chains, cut
// to the shortest (as forColumns; the slices are reused), and false when
// a chain holds fewer than 8 draws.
func columnReader(tr *langevin.Trace) (func(j int) [][]float64, bool) {
	short := math.MaxInt
	for _, c := range tr.Draws {
		short = min(short, len(c))
	}
	if short < 8 {
		return nil, false
	}
	chains := make([][]float64, len(tr.Draws))
	for c := range chains {
		chains[c] = make([]float64, short)
	}
	return func(j int) [][]float64 {
		for c, rows := range tr.Draws {
			for i := 0; i < short; i++ {
				chains[c][i] = rows[i][j]
			}
		}
		return chains
	}, true
}

// quickPass reports false when one of the columns worst has a bulk-ESS
// below target or, with group effects, a population-level column has an
// R̂ above RHatPopulation: then the whole check fails too. Otherwise true.
func (r RHatRule) quickPass(tr *langevin.Trace, dim int, worst []int, target float64) bool {
	column, ok := columnReader(tr)
	if !ok {
		return true // the whole check says what too few draws mean
	}
	for _, j := range worst {
		if e := diag.ESSBulk(column(j)); e < target { // NaN: undefined, as MinESSBulk skips it
			return false
		}
	}
	if r.Group == nil {
		return true
	}
	for j, nm := range tr.Names[:dim] {
		if r.Group(nm) {
			continue
		}
		if v := diag.RHat(column(j)); v > RHatPopulation {
			return false
		}
	}
	return true
}
