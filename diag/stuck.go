package diag

import (
	"fmt"
	"math"
)

// The stuck-chain rule: a Metropolis chain (MALA, random-walk Metropolis)
// that sits at one point, rejecting proposal after proposal whose acceptance
// probability is near 0, is not exploring the posterior, and its repeated
// draws weigh that point in every mean and sd. A draw is stuck when it
// equals the draw before it and its accept_stat__ (the proposal's
// acceptance probability) is below StuckAccept. A chain of n draws of which
// a share p have accept_stat__ below StuckAccept has a stuck stretch when L
// draws in a row sit at one point, every one after the first stuck, with
//
//	L ≥ max(StuckRun, log(0.01/n) / log(min(p, 0.9))),
//
// a run that a healthy chain with the same share p of low-acceptance draws
// shows with probability below 1%. On Australian credit the report's MALA
// (η = 0.01, p = 0.04) never has more than 3 such draws in a row from the
// MAP, and from θ = 0 sits there for 22; the report's random-walk
// Metropolis (σ = 0.1, p = 0.50 at mean acceptance 0.23) has runs of 15
// low-acceptance draws, under its bound of 20.
const (
	StuckAccept = 0.05
	StuckRun    = 20
)

// Stretch is a run of draws of one chain at one point: draws First …
// First+Len−1 (0-based, in the chain's kept draws).
type Stretch struct {
	Chain, First, Len int
}

// StuckStretches returns the stuck stretches (see StuckRun) of the chains
// draws[c][i] (the first dim values of each row are the parameters) with
// their acceptance probabilities accept[c][i].
func StuckStretches(draws [][][]float64, accept [][]float64, dim int) []Stretch {
	var out []Stretch
	for c, ch := range draws {
		if c >= len(accept) {
			break
		}
		nc := min(len(ch), len(accept[c]))
		low := 0
		for _, a := range accept[c][:nc] {
			if a < StuckAccept {
				low++
			}
		}
		bound := StuckBound(nc, float64(low)/float64(max(nc, 1)))
		first, n := 0, 1 // the current stretch: draws first … first+n−1
		flush := func() {
			if n >= bound {
				out = append(out, Stretch{Chain: c, First: first, Len: n})
			}
		}
		for i := 1; i < nc; i++ {
			if accept[c][i] < StuckAccept && same(ch[i][:dim], ch[i-1][:dim]) {
				n++
				continue
			}
			flush()
			first, n = i, 1
		}
		flush()
	}
	return out
}

// StuckBound returns the shortest stuck stretch of the rule for a chain of n
// draws of which a share p have accept_stat__ below StuckAccept.
func StuckBound(n int, p float64) int {
	p = min(p, 0.9)
	if p <= 0 || n <= 0 {
		return StuckRun
	}
	return max(StuckRun, int(math.Ceil(math.Log(0.01/float64(n))/math.Log(p))))
}

func same(a, b []float64) bool {
	for j := range a {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}

// StuckWarnings returns one line per stuck stretch of the chains (see
// StuckStretches), naming the chain (1-based) and the kept draws, with the
// rule.
func StuckWarnings(draws [][][]float64, accept [][]float64, dim int) []string {
	var out []string
	for _, s := range StuckStretches(draws, accept, dim) {
		out = append(out, fmt.Sprintf("chain %d sat at one point for %d kept draws (%d–%d), every proposal's accept_stat__ < %g: the chain was stuck there (a start far from the posterior with a step tuned elsewhere, or a step too large there), and its repeated draws bias the means and sds — a longer burn-in, a start at the MAP, or a smaller step (rule: ≥ max(%d, log(0.01/n)/log p) draws in a row at one point, each accept_stat__ < %g, p the chain's share of such draws)",
			s.Chain+1, s.Len, s.First+1, s.First+s.Len, StuckAccept, StuckRun, StuckAccept))
	}
	return out
}
