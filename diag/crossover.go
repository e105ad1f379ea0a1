package diag

import "math"

// Crossover returns the iteration from which the injected noise inj
// dominates the gradient noise grad, as langevin run reports it: both are
// averaged over windows of 1/50 of the series (NaN gradient-noise entries,
// not yet estimated, are skipped), and the crossover is the first iteration
// of the window after the last one whose mean gradient noise exceeds the
// mean injected noise. ok is false when the gradient noise still dominates
// in the last window or no window has an estimate.
func Crossover(iters, inj, grad []float64) (at float64, ok bool) {
	n := min(len(iters), len(inj), len(grad))
	if n == 0 {
		return 0, false
	}
	win := max(1, n/50)
	at = iters[0]
	seen := false
	for lo := 0; lo < n; lo += win {
		hi := min(n, lo+win)
		var si, sg float64
		cnt := 0
		for t := lo; t < hi; t++ {
			if !math.IsNaN(grad[t]) {
				si += inj[t]
				sg += grad[t]
				cnt++
			}
		}
		if cnt == 0 {
			continue
		}
		seen = true
		if sg > si {
			at = -1
			if hi < n {
				at = iters[hi]
			}
		}
	}
	return at, seen && at >= 0
}
