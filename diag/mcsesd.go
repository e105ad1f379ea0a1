package diag

import "math"

// MCSESD returns the Monte Carlo standard error of the standard deviation of
// the draws in chains, as posterior's mcse_sd computes it (posterior ≥ 1.5):
// with cᵢ = xᵢ − x̄ over all S draws pooled, E = ESS of the split chains of
// c² (posterior's ess_mean of the squared centred draws), v = mean(c²) and
// the variance of the variance estimate (Kenney & Keeping 1951, no
// normality assumed) Var(v̂) = (mean(c⁴) − v²)/E, the first-order (delta
// method) standard error of √v is
//
//	mcse_sd = √(Var(v̂) / (4v)).
//
// For independent normal draws it is about sd/√(2S). MCSESD is NaN when the
// ESS is (constant draws, fewer than 3 per chain, non-finite values).
func MCSESD(chains [][]float64) float64 {
	var ws workspace
	x, ok := ws.load(chains)
	if !ok || shouldReturnNA(x.data) {
		return math.NaN()
	}
	m := meanR(x.data)
	c2 := make([]float64, len(x.data))
	var v, m4 float64
	for i, xi := range x.data {
		c := xi - m
		c2[i] = c * c
		v += c * c
		m4 += c * c * c * c
	}
	s := float64(len(x.data))
	v /= s
	m4 /= s
	ws.split = grow(ws.split, len(c2))
	ess := ws.ess(splitChains(ws.split, matrix{data: c2, n: x.n, m: x.m}))
	if math.IsNaN(ess) {
		return math.NaN()
	}
	varvar := (m4 - v*v) / ess
	return math.Sqrt(varvar / v / 4)
}
