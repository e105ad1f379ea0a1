package diag

import (
	"fmt"
	"math"
)

// Thresholds of Table.Warnings (Vehtari, Gelman, Simpson, Carpenter and
// Bürkner 2021, "Rank-normalization, folding, and localization"): R̂ above
// 1.01 means the chains disagree; a bulk-ESS below 100 per chain makes R̂
// and the MCSE themselves unreliable.
const (
	RHatWarn        = 1.01
	ESSWarnPerChain = 100
)

// Warnings returns the convergence warnings of the table, one sentence
// each, naming the worst quantity and counting the others: R̂ > RHatWarn
// and bulk-ESS < ESSWarnPerChain × chains. Quantities with undefined statistics (a constant column, too few
// draws) are skipped. A table that needs none returns nil. The rules catch
// chains that have not mixed, whatever the sampler; a stochastic-gradient
// sampler's discretisation bias can pass them (see the kernel Stein
// discrepancy, sampler.TraceKSD, for that).
func (t Table) Warnings(chains int) []string {
	essWarn := float64(ESSWarnPerChain * chains)
	var out []string
	nR, nE, n := 0, 0, 0
	worstR, worstE := Summary{RHat: math.Inf(-1)}, Summary{ESSBulk: math.Inf(1)}
	for _, s := range t {
		if math.IsNaN(s.RHat) || math.IsNaN(s.ESSBulk) {
			continue
		}
		n++
		if s.RHat > RHatWarn {
			nR++
			if s.RHat > worstR.RHat {
				worstR = s
			}
		}
		if s.ESSBulk < essWarn {
			nE++
			if s.ESSBulk < worstE.ESSBulk {
				worstE = s
			}
		}
	}
	if nR > 0 {
		out = append(out, fmt.Sprintf("R̂ > %g for %d of %d quantities (largest: %s, R̂ %.3f): the chains disagree — they have not converged to one distribution, and the draws cannot be trusted", RHatWarn, nR, n, worstR.Name, worstR.RHat))
	}
	if nE > 0 {
		out = append(out, fmt.Sprintf("bulk-ESS < %.0f (%d per chain) for %d of %d quantities (smallest: %s, %.0f): too few effective draws for reliable means, intervals and R̂", essWarn, ESSWarnPerChain, nE, n, worstE.Name, worstE.ESSBulk))
	}
	return out
}
