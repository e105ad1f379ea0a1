package testmodel

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// CompareMoments checks a sampler's trace against exact posterior moments:
// every parameter's pooled mean within 0.2 exact sd, its sd within 10% of the
// exact sd, and its bulk-ESS at least minESS (with ESS ≥ 400 the Monte Carlo
// error of a mean is below 0.05 sd, a quarter of the tolerance, and that of
// an sd about 3.5%). It returns an error naming the first failure, and
// otherwise a one-line summary of every parameter's errors.
func CompareMoments(tr *langevin.Trace, mean, sd []float64, minESS float64) (summary string, err error) {
	for j := 0; j < tr.Dim; j++ {
		chains := tr.Param(j)
		m, sdj := PooledMoments(chains)
		name := tr.Names[j]
		if e := math.Abs(m-mean[j]) / sd[j]; !(e < 0.2) {
			return summary, fmt.Errorf("%s: mean %.6g, exact %.6g: off by %.2f sd (> 0.2)", name, m, mean[j], e)
		}
		if r := sdj / sd[j]; !(math.Abs(r-1) < 0.1) {
			return summary, fmt.Errorf("%s: sd %.4g, exact %.4g: ratio %.3f (not within 10%%)", name, sdj, sd[j], r)
		}
		ess := diag.ESSBulk(chains)
		if !(ess >= minESS) {
			return summary, fmt.Errorf("%s: bulk-ESS %.0f < %.0f", name, ess, minESS)
		}
		summary += fmt.Sprintf("%s: mean off %.3f sd, sd ratio %.3f, ESS %.0f; ", name, (m-mean[j])/sd[j], sdj/sd[j], ess)
	}
	return summary, nil
}

// PooledMoments returns the mean and standard deviation (divisor n) of the
// draws of all chains pooled.
func PooledMoments(chains [][]float64) (mean, sd float64) {
	var s, ss float64
	n := 0
	for _, c := range chains {
		for _, x := range c {
			s += x
			ss += x * x
			n++
		}
	}
	mean = s / float64(n)
	return mean, math.Sqrt(ss/float64(n) - mean*mean)
}
