package langevin_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
)

// recorder is a DrawSink that copies what it receives.
type recorder struct {
	warm, post [][]float64 // row ++ stats
	iters      []int
	failAfter  int // return an error on this call (1-based); 0: never
	calls      int
}

func (r *recorder) Draw(warmup bool, iter int, row, stats []float64) error {
	r.calls++
	if r.calls == r.failAfter {
		return errors.New("disk full")
	}
	v := append(slices.Clone(row), stats...)
	if warmup {
		r.warm = append(r.warm, v)
	} else {
		r.post = append(r.post, v)
	}
	r.iters = append(r.iters, iter)
	return nil
}

// recorders gives each chain its own recorder.
type recorders struct {
	mu sync.Mutex
	r  map[int]*recorder
	f  int
}

func (rs *recorders) sink(c int) langevin.DrawSink {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.r == nil {
		rs.r = map[int]*recorder{}
	}
	rs.r[c] = &recorder{failAfter: rs.f}
	return rs.r[c]
}

// sameRows reports whether the sink received exactly the trace's rows.
func sameRows(got [][]float64, rows, stats [][]float64) error {
	if len(got) != len(rows) {
		return fmt.Errorf("sink got %d rows, trace holds %d", len(got), len(rows))
	}
	for i := range rows {
		if !slices.Equal(got[i], append(slices.Clone(rows[i]), stats[i]...)) {
			return fmt.Errorf("row %d: sink got %v, trace holds %v %v", i, got[i], rows[i], stats[i])
		}
	}
	return nil
}

// TestRunSink: the sink receives every warm-up and kept draw of its chain, in
// order, bit for bit as stored in the trace; the draws do not depend on it.
func TestRunSink(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	opts := langevin.Options{Chains: 3, Iters: 700, BurnIn: 100, Thin: 3, Seed: 4, SaveWarmup: true, Workers: 2, Init: langevin.InitPrior{}}
	plain, err := langevin.Run(context.Background(), m, walk{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var rs recorders
	opts.Sink = rs.sink
	tr, err := langevin.Run(context.Background(), m, walk{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for c := range tr.Draws {
		r := rs.r[c]
		if err := sameRows(r.post, tr.Draws[c], tr.Stats[c]); err != nil {
			t.Errorf("chain %d: %v", c, err)
		}
		if err := sameRows(r.warm, tr.Warmup[c].Theta, tr.Warmup[c].Stats); err != nil {
			t.Errorf("chain %d warm-up: %v", c, err)
		}
		if want := append(slices.Clone(tr.Warmup[c].Iters), tr.Iters[c]...); !slices.Equal(r.iters, want) {
			t.Errorf("chain %d: sink saw iterations %v, want %v", c, r.iters, want)
		}
		for i := range tr.Draws[c] {
			if !slices.Equal(tr.Draws[c][i], plain.Draws[c][i]) {
				t.Fatalf("chain %d draw %d differs with a sink", c, i)
			}
		}
	}
	if len(rs.r[0].post) != 200 || len(rs.r[0].warm) != 34 {
		t.Errorf("sink got %d kept and %d warm-up draws, want ⌈600/3⌉ = 200 and ⌈100/3⌉ = 34", len(rs.r[0].post), len(rs.r[0].warm))
	}
}

// TestRunSinkPartial: after a divergence, a cancel or a failing sink, the
// sink has received exactly the draws the trace holds.
func TestRunSinkPartial(t *testing.T) {
	m := testmodel.NewMean(10, 1)

	var rs recorders
	tr, err := langevin.Run(context.Background(), m, walk{failAt: 30}, langevin.Options{Chains: 2, Iters: 50, BurnIn: 10, Seed: 1, SaveWarmup: true, Sink: rs.sink})
	var de *langevin.DivergenceError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a divergence", err)
	}
	for c := range tr.Draws {
		if len(tr.Draws[c]) != 19 || len(rs.r[c].warm) != 10 {
			t.Errorf("chain %d: %d kept, %d warm-up draws; want 19 and 10", c, len(tr.Draws[c]), len(rs.r[c].warm))
		}
		if err := sameRows(rs.r[c].post, tr.Draws[c], tr.Stats[c]); err != nil {
			t.Errorf("chain %d: %v", c, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	rs = recorders{}
	opts := langevin.Options{Chains: 3, Iters: 100000, Seed: 1, Workers: 1, ProgressEvery: 10,
		Progress: func(chain, done int) {
			if done >= 1000 {
				cancel()
			}
		}, Sink: rs.sink}
	tr, err = langevin.Run(ctx, m, walk{}, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// One worker: chain 1 stops at the first iteration after the cancel;
	// chains 2 and 3 never start.
	if n := len(tr.Draws[0]); n != 1000 {
		t.Errorf("chain 1 kept %d draws after cancelling at iteration 1000, want 1000", n)
	}
	for c := range tr.Draws {
		var got [][]float64
		if r := rs.r[c]; r != nil {
			got = r.post
		}
		if err := sameRows(got, tr.Draws[c], tr.Stats[c]); err != nil {
			t.Errorf("chain %d: %v", c, err)
		}
	}
	if tr.NumDraws() != 1000 {
		t.Errorf("trace holds %d draws, want 1000", tr.NumDraws())
	}

	rs = recorders{f: 5}
	tr, err = langevin.Run(context.Background(), m, walk{}, langevin.Options{Chains: 1, Iters: 50, Seed: 1, Sink: rs.sink})
	var ce *langevin.ChainError
	if !errors.As(err, &ce) || ce.Iter != 5 || ce.Chain != 1 {
		t.Fatalf("err = %v, want chain 1's error at iteration 5", err)
	}
	if len(tr.Draws[0]) != 5 || len(rs.r[0].post) != 4 {
		t.Errorf("trace holds %d draws, sink %d; want 5 (the failed one stored) and 4", len(tr.Draws[0]), len(rs.r[0].post))
	}
}

// BenchmarkRunWalk measures Run's per-iteration overhead; the chain
// storage comes in growing slabs.
func BenchmarkRunWalk(b *testing.B) {
	m := testmodel.NewMean(10, 1)
	b.ReportAllocs()
	for b.Loop() {
		langevin.Run(context.Background(), m, walk{}, langevin.Options{Chains: 1, Iters: 10000, Seed: 1})
	}
}
