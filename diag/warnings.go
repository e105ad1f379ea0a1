package diag

import "fmt"

// Thresholds of Table.Warnings (Vehtari, Gelman, Simpson, Carpenter and
// Bürkner 2021, "Rank-normalization, folding, and localization"): R̂ above
// 1.01 means the chains disagree; a bulk-ESS below 100 per chain makes R̂
// and the MCSE themselves unreliable.
const (
	RHatWarn        = 1.01
	ESSWarnPerChain = 100
)

// Warnings returns the convergence warnings of the table for draws from
// chains chains, one per failed rule and quantity in table order:
// "name R-hat 1.023 > 1.01" when R̂ > RHatWarn, "name bulk-ESS 250 < 400
// (100 per chain)" when the bulk-ESS is below ESSWarnPerChain × chains.
// Undefined statistics (NaN: a constant column, too few draws) fail no
// rule. The rules catch chains that have not mixed, whatever the sampler;
// a stochastic-gradient sampler's discretisation bias can pass them (the
// kernel Stein discrepancy, fit.TraceKSD, looks for that).
func (t Table) Warnings(chains int) []string {
	return t.WarningsLimit(chains, nil)
}

// WarningsLimit is Warnings with the R̂ threshold of each quantity given by
// rhatLimit (nil: RHatWarn for all), for example a looser one for the
// largest of many exchangeable group effects (fit.RHatGroupLimit).
func (t Table) WarningsLimit(chains int, rhatLimit func(name string) float64) []string {
	var out []string
	ess := ESSWarnPerChain * chains
	for _, s := range t {
		lim := RHatWarn
		if rhatLimit != nil {
			lim = rhatLimit(s.Name)
		}
		if s.RHat > lim {
			out = append(out, fmt.Sprintf("%s R-hat %.3f > %.4g", s.Name, s.RHat, lim))
		}
		if s.ESSBulk < float64(ess) {
			out = append(out, fmt.Sprintf("%s bulk-ESS %.0f < %d (%d per chain)", s.Name, s.ESSBulk, ess, ESSWarnPerChain))
		}
	}
	return out
}
