package langevin

import (
	"fmt"
	"slices"
	"sort"
)

// CombineTraces joins the traces of chains of one analysis that ran
// separately — in other processes or on other machines, each with its own
// Options.FirstChain — into one trace whose chain c is chain FirstChain+c of
// the analysis, ordered by chain number. The rows are shared, not copied.
//
// The traces must come from the same model and sampler settings; what a trace
// records of them is checked here: the parameter and statistic names, Dim,
// burn-in and thinning must agree, and the chain numbers must neither repeat
// nor leave a gap. Settings a trace does not hold (seed, step size, data) are
// checked by the reader of the run directories, with CheckSameRun.
func CombineTraces(traces ...*Trace) (*Trace, error) {
	if len(traces) == 0 {
		return nil, fmt.Errorf("langevin: combine: no traces")
	}
	ts := slices.Clone(traces)
	sort.SliceStable(ts, func(a, b int) bool { return ts[a].FirstChain < ts[b].FirstChain })
	first := ts[0]
	out := &Trace{
		Names:      first.Names,
		Dim:        first.Dim,
		StatNames:  first.StatNames,
		BurnIn:     first.BurnIn,
		Thin:       first.Thin,
		FirstChain: first.FirstChain,
	}
	next := first.FirstChain
	for _, t := range ts {
		switch {
		case !slices.Equal(t.Names, first.Names) || t.Dim != first.Dim:
			return nil, fmt.Errorf("langevin: combine: chain %d has parameters %v, chain %d has %v: not the same model", t.FirstChain+1, t.Names, first.FirstChain+1, first.Names)
		case !slices.Equal(t.StatNames, first.StatNames):
			return nil, fmt.Errorf("langevin: combine: chain %d has sampler statistics %v, chain %d has %v: not the same sampler", t.FirstChain+1, t.StatNames, first.FirstChain+1, first.StatNames)
		case t.BurnIn != first.BurnIn || t.Thin != first.Thin:
			return nil, fmt.Errorf("langevin: combine: chain %d has burn-in %d and thinning %d, chain %d has %d and %d", t.FirstChain+1, t.BurnIn, t.Thin, first.FirstChain+1, first.BurnIn, first.Thin)
		case t.FirstChain < next:
			return nil, fmt.Errorf("langevin: combine: chain %d appears twice", t.FirstChain+1)
		case t.FirstChain > next:
			return nil, fmt.Errorf("langevin: combine: chain %d is missing (chains %d to %d are given)", next+1, first.FirstChain+1, ts[len(ts)-1].FirstChain+t.NumChains())
		}
		out.Draws = append(out.Draws, t.Draws...)
		out.Stats = append(out.Stats, t.Stats...)
		out.Iters = append(out.Iters, t.Iters...)
		warm := t.Warmup
		if len(warm) < len(t.Draws) {
			warm = make([]Draws, len(t.Draws))
			copy(warm, t.Warmup)
		}
		out.Warmup = append(out.Warmup, warm...)
		next += t.NumChains()
	}
	return out, nil
}

// CheckSameRun returns an error unless the settings of two runs that are to
// be combined agree. Each run is described by its settings as name → value
// (for example the flags of a command line, or the fields of a saved
// configuration); the names in ignore (the chain number and count, the
// output directory) may differ. The error names the first setting that
// differs, in sorted order, with both values.
func CheckSameRun(a, b map[string]string, ignore ...string) error {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(ignore, k) {
			continue
		}
		va, oka := a[k]
		vb, okb := b[k]
		switch {
		case !oka:
			return fmt.Errorf("setting %s is %q in one run and not set in the other", k, vb)
		case !okb:
			return fmt.Errorf("setting %s is %q in one run and not set in the other", k, va)
		case va != vb:
			return fmt.Errorf("setting %s differs: %q and %q", k, va, vb)
		}
	}
	return nil
}
