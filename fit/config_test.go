package fit_test

import (
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
)

// TestResolveLength: the length rules of Config.Resolve, as langevin run
// applies them after parsing its flags (the defaults: --iters 500,000,
// --burnin 50,000, --thin 450). --iters alone gives a hand-tuned sampler a
// proportional burn-in (a tenth) and thinning (450 per 500,000), on a toy
// target and on data alike (--iters is a tuning flag: no plan); for auto,
// and for an untuned --sampler sgld on data (auto's plan), --iters is a
// maximum (10⁷ without it) and the burn-in and thinning are the plan's (0
// and 1 here); --target-ess belongs to those two only; --chain-id with auto
// needs --iters. These were langevin run's TestRunItersAlone and
// TestRunAutoFlags, two runs each.
func TestResolveLength(t *testing.T) {
	for _, tc := range []struct {
		name, model, sampler string
		iters                int
		set                  []string
		planned              bool
		wantIters, burn, thn int
		err                  string
	}{
		{"toy, --iters alone", "gauss2", "sgld", 10000, []string{"sampler", "iters"}, false, 10000, 1000, 9, ""},
		{"data, sgld --iters alone", "logistic", "sgld", 10000, []string{"sampler", "iters"}, false, 10000, 1000, 9, ""},
		{"data, sgld --iters 2,000,000", "logistic", "sgld", 2000000, []string{"sampler", "iters"}, false, 2000000, 200000, 1800, ""},
		{"auto --iters", "logistic", "auto", 10000, []string{"iters"}, false, 10000, 0, 1, ""},
		{"auto", "logistic", "auto", 500000, nil, false, 10_000_000, 0, 1, ""},
		{"untuned sgld: auto's plan", "logistic", "sgld", 500000, []string{"sampler", "target-ess"}, true, 10_000_000, 0, 1, ""},
		{"tuned sgld --target-ess", "logistic", "sgld", 10000, []string{"sampler", "iters", "target-ess"}, false, 0, 0, 0, "{target-ess}: only for {sampler} auto"},
		{"auto --chain-id", "logistic", "auto", 500000, []string{"chain-id"}, false, 0, 0, 0, "{chain-id} with {sampler} auto: give {iters}"},
	} {
		c := &fit.Config{Model: tc.model, Sampler: tc.sampler, Def: fit.SamplerTable[tc.sampler], Iters: tc.iters,
			Burnin: 50000, Thin: 450, Chains: 4, Precond: "laplace", TargetESS: 400, Set: map[string]bool{}}
		for _, f := range tc.set {
			c.Set[f] = true
		}
		err := c.Resolve()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c.Iters != tc.wantIters || c.Burnin != tc.burn || c.Thin != tc.thn || c.Planned != tc.planned {
			t.Errorf("%s: iters %d, burn-in %d, thin %d, planned %v; want %d, %d, %d, %v", tc.name, c.Iters, c.Burnin, c.Thin, c.Planned, tc.wantIters, tc.burn, tc.thn, tc.planned)
		}
	}
}
