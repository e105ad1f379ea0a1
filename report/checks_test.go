package report

import (
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestChecksFitTheSampler: the checks a report says a run passed are the
// ones its sampler has: NUTS's divergences but no optimisation phase (it
// has none); an SG-MCMC sampler's noise crossover.
func TestChecksFitTheSampler(t *testing.T) {
	nuts := &langevin.Trace{StatNames: []string{"lp__", "accept_stat__", "divergent__"}, Stats: [][][]float64{{{0, 0.8, 0}}}}
	sgld := &langevin.Trace{StatNames: []string{"lp__", "noise_inj__", "noise_grad__"}, Stats: [][][]float64{{{0, 1, 0.1}}}}
	got := strings.Join(Checks(nuts), "; ")
	if strings.Contains(got, "optimisation phase") || !strings.Contains(got, "no divergent transitions") {
		t.Errorf("NUTS: %q", got)
	}
	if got := strings.Join(Checks(sgld), "; "); !strings.Contains(got, "optimisation phase") || strings.Contains(got, "divergent") {
		t.Errorf("SGLD: %q", got)
	}
}
