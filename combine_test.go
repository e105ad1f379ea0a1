package langevin_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// chainsRun runs SGLD with minibatches drawn with and without replacement
// and a prior initial point: everything random in a chain comes from its
// stream.
func chainsRun(t *testing.T, first, chains int) *langevin.Trace {
	t.Helper()
	ds := data.Australian()
	data.FitScaler(ds.X).Transform(ds.X)
	m, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := sampler.SGLD{Step: schedule.Constant(1e-4), Batch: sampler.Minibatch{Size: 32}, NoiseEvery: 7}
	tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: chains, FirstChain: first, Iters: 300, BurnIn: 100, Thin: 3, Seed: 42,
		Init: langevin.InitPrior{}, SaveWarmup: true, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sameBits reports whether a and b hold the same float64 values bit for bit.
func sameBits(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
				return false
			}
		}
	}
	return true
}

// K single-chain runs with FirstChain = 0, …, K−1 give bit for bit the chains
// of one K-chain run, and CombineTraces puts them back together.
func TestFirstChainSplitsRunBitForBit(t *testing.T) {
	const K = 3
	whole := chainsRun(t, 0, K)
	parts := make([]*langevin.Trace, K)
	for k := K - 1; k >= 0; k-- { // any order
		parts[k] = chainsRun(t, k, 1)
		if parts[k].FirstChain != k {
			t.Fatalf("FirstChain = %d, want %d", parts[k].FirstChain, k)
		}
		if !sameBits(parts[k].Draws[0], whole.Draws[k]) || !sameBits(parts[k].Stats[0], whole.Stats[k]) ||
			!sameBits(parts[k].Warmup[0].Theta, whole.Warmup[k].Theta) {
			t.Errorf("chain %d alone differs from chain %d of the %d-chain run", k+1, k+1, K)
		}
	}
	// The check can fail: chain 2 run as chain 1 is another chain.
	if sameBits(chainsRun(t, 0, 1).Draws[0], whole.Draws[1]) {
		t.Fatal("chains 1 and 2 are equal: the comparison cannot fail")
	}
	comb, err := langevin.CombineTraces(parts[2], parts[0], parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if comb.NumChains() != K || comb.FirstChain != 0 {
		t.Fatalf("combined %d chains from %d, want %d from 0", comb.NumChains(), comb.FirstChain, K)
	}
	for c := 0; c < K; c++ {
		if !sameBits(comb.Draws[c], whole.Draws[c]) || !sameBits(comb.Stats[c], whole.Stats[c]) {
			t.Errorf("combined chain %d differs", c+1)
		}
	}
	a := diag.Summarize(whole.Names, whole.Params())
	b := diag.Summarize(comb.Names, comb.Params())
	if a.String() != b.String() {
		t.Errorf("summaries differ:\n%s\n%s", a, b)
	}
}

func TestCombineTracesRefuses(t *testing.T) {
	mk := func(first, chains int, names ...string) *langevin.Trace {
		tr := &langevin.Trace{Names: names, Dim: len(names), StatNames: []string{"lp__"}, Thin: 1, FirstChain: first}
		for c := 0; c < chains; c++ {
			tr.Draws = append(tr.Draws, [][]float64{make([]float64, len(names))})
			tr.Stats = append(tr.Stats, [][]float64{{0}})
			tr.Iters = append(tr.Iters, []int{1})
		}
		return tr
	}
	other := mk(1, 1, "a", "b")
	other.Thin = 2
	stats := mk(1, 1, "a", "b")
	stats.StatNames = []string{"lp__", "stepsize__"}
	for _, tc := range []struct {
		name   string
		traces []*langevin.Trace
		want   string
	}{
		{"none", nil, "no traces"},
		{"model", []*langevin.Trace{mk(0, 1, "a", "b"), mk(1, 1, "a", "c")}, "not the same model"},
		{"sampler", []*langevin.Trace{mk(0, 1, "a", "b"), stats}, "not the same sampler"},
		{"thin", []*langevin.Trace{mk(0, 1, "a", "b"), other}, "thinning"},
		{"twice", []*langevin.Trace{mk(0, 2, "a", "b"), mk(1, 1, "a", "b")}, "chain 2 appears twice"},
		{"gap", []*langevin.Trace{mk(0, 1, "a", "b"), mk(2, 1, "a", "b")}, "chain 2 is missing"},
	} {
		_, err := langevin.CombineTraces(tc.traces...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if tr, err := langevin.CombineTraces(mk(3, 2, "a"), mk(5, 1, "a")); err != nil || tr.NumChains() != 3 || tr.FirstChain != 3 {
		t.Errorf("chains 4–6: %v", err)
	}
}

func TestCheckSameRun(t *testing.T) {
	a := map[string]string{"seed": "1", "step": "0.1", "chain-id": "1", "out": "a"}
	b := map[string]string{"seed": "1", "step": "0.1", "chain-id": "2", "out": "b"}
	if err := langevin.CheckSameRun(a, b, "chain-id", "out"); err != nil {
		t.Fatal(err)
	}
	b["step"] = "0.2"
	if err := langevin.CheckSameRun(a, b, "chain-id", "out"); err == nil || !strings.Contains(err.Error(), "step differs") {
		t.Errorf("error %v, want step differs", err)
	}
	delete(b, "step")
	if err := langevin.CheckSameRun(a, b, "chain-id", "out"); err == nil || !strings.Contains(err.Error(), "not set") {
		t.Errorf("error %v, want not set", err)
	}
}
