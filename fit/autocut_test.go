package fit

import (
	"strings"
	"testing"

	langevin "github.com/langevin-go/langevin"
)

// An auto run without a recorded stop says whether it reached its maximum
// --iters or was cut short; it once printed "--iters 10000000 reached" for
// a run stopped by a signal after 37,716 iterations.
func TestAutoCutWhy(t *testing.T) {
	trace := func(lastIter int) *langevin.Trace {
		tr := &langevin.Trace{Names: []string{"x"}}
		for c := 0; c < 2; c++ {
			var draws [][]float64
			var iters []int
			for it := 10; it <= lastIter; it += 10 {
				draws = append(draws, []float64{0})
				iters = append(iters, it)
			}
			tr.Draws = append(tr.Draws, draws)
			tr.Iters = append(tr.Iters, iters)
		}
		return tr
	}
	c := &Config{Iters: 1000, Burnin: 0, Thin: 10, TargetESS: 400}
	for _, tc := range []struct {
		last int
		want string
	}{
		{1000, "{iters} 1000 reached before min bulk-ESS 400"},
		{370, "cut short (a signal or an error) at iteration 370, 370 of at most 1000"},
	} {
		if got := autoCutWhy(c, trace(tc.last)); !strings.Contains(got, tc.want) {
			t.Errorf("last iteration %d: %q, want it to contain %q", tc.last, got, tc.want)
		}
	}
}
