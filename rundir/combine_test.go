package rundir_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
	"github.com/langevin-go/langevin/stancsv"
)

// runChains writes chains first+1 … first+chains (1-based) of an analysis
// with the given seed to dir and reads the directory back.
func runChains(t *testing.T, dir string, first, chains int, seed uint64) *rundir.Run {
	t.Helper()
	w, err := rundir.Create(dir, rundir.Options{RunID: "analysis-" + strconv.FormatUint(seed, 10)})
	if err != nil {
		t.Fatal(err)
	}
	m := testmodel.NewMean(50, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3)}
	cfg := stancsv.Config{Model: "mean", Algorithm: "sgld", NumSamples: 40, NumWarmup: 20, Thin: 2, Seed: seed,
		Extra: [][2]string{{"chains", "3"}}}
	var sinks []*rundir.ChainWriter
	for k := first + 1; k <= first+chains; k++ {
		cw, err := w.Chain(k, cfg, s.StatNames(), langevin.ParamNames(m))
		if err != nil {
			t.Fatal(err)
		}
		sinks = append(sinks, cw)
	}
	_, err = langevin.Run(context.Background(), m, s, langevin.Options{Chains: chains, FirstChain: first, Iters: 60, BurnIn: 20, Thin: 2,
		Seed: seed, SaveWarmup: true, Sink: func(c int) langevin.DrawSink { return sinks[c] }})
	if err := w.Close(err); err != nil {
		t.Fatal(err)
	}
	r, err := rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCombine: three directories of one chain each (chains 3, 1, 2 of one
// analysis) combine into the run of all three; a directory of another
// analysis, a chain given twice and a missing chain are refused.
func TestCombine(t *testing.T) {
	tmp := t.TempDir()
	whole := runChains(t, filepath.Join(tmp, "whole"), 0, 3, 1)
	var parts []*rundir.Run
	for _, k := range []int{3, 1, 2} {
		r := runChains(t, filepath.Join(tmp, "c"+strconv.Itoa(k)), k-1, 1, 1)
		if r.Trace.FirstChain != k-1 {
			t.Fatalf("directory of chain %d: FirstChain %d", k, r.Trace.FirstChain)
		}
		parts = append(parts, r)
	}
	comb, err := rundir.Combine(parts...)
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, comb.Trace, whole.Trace)
	if len(comb.Chains) != 3 || !strings.HasSuffix(comb.Chains[0].Path, "chain-1.csv") || !comb.Finished() {
		t.Errorf("chains %+v", comb.Chains)
	}
	other := runChains(t, filepath.Join(tmp, "other"), 2, 1, 2)
	for _, tc := range []struct {
		runs []*rundir.Run
		want string
	}{
		{[]*rundir.Run{parts[1], parts[2], other}, "setting seed differs"},
		{[]*rundir.Run{parts[1], parts[1]}, "chain 1 appears twice"},
		{[]*rundir.Run{parts[1], parts[0]}, "chain 2 is missing"},
	} {
		if _, err := rundir.Combine(tc.runs...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
