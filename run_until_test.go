package langevin_test

import (
	"context"
	"math"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
)

// sameDraws reports the first difference between two traces' draws, or "".
func sameDraws(a, b *langevin.Trace) string {
	if len(a.Draws) != len(b.Draws) {
		return "chain counts differ"
	}
	for c := range a.Draws {
		if len(a.Draws[c]) != len(b.Draws[c]) {
			return "chain lengths differ"
		}
		for i := range a.Draws[c] {
			if a.Iters[c][i] != b.Iters[c][i] {
				return "iterations differ"
			}
			for j, v := range a.Draws[c][i] {
				if v != b.Draws[c][i][j] || a.Stats[c][i][1] != b.Stats[c][i][1] {
					return "draws differ"
				}
			}
		}
	}
	return ""
}

// A run stopped by Until is the same, bit for bit, whatever the workers, and
// is the run of fixed length that ends at the stopping iteration.
func TestRunUntil(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	// Stop when the pooled mean of |θ| over the kept draws exceeds 8: a rule
	// of the draws only.
	until := func(tr *langevin.Trace) bool {
		var s float64
		n := 0
		for _, c := range tr.Draws {
			for _, r := range c {
				s += math.Abs(r[0])
				n++
			}
		}
		return s/float64(n) > 8
	}
	var traces []*langevin.Trace
	for _, w := range []int{1, 3} {
		tr, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{
			Chains: 3, Iters: 100000, BurnIn: 10, Seed: 4, Workers: w, Init: langevin.InitPrior{},
			Until: until, CheckEvery: 25,
		})
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	if d := sameDraws(traces[0], traces[1]); d != "" {
		t.Fatalf("Until with 1 and 3 workers: %s", d)
	}
	last := traces[0].Iters[0][len(traces[0].Iters[0])-1]
	if last == 100000 || last%25 != 0 {
		t.Fatalf("stopped at iteration %d: expected a multiple of CheckEvery = 25 before Iters", last)
	}
	fixed, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{
		Chains: 3, Iters: last, BurnIn: 10, Seed: 4, Init: langevin.InitPrior{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := sameDraws(traces[0], fixed); d != "" {
		t.Fatalf("Until-stopped run vs a fixed run of %d iterations: %s", last, d)
	}
}

// MaxKeep doubles the thinning as the run grows; the draws kept are those of
// a run with the final thinning from the start.
func TestRunMaxKeep(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	tr, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{
		Chains: 2, Iters: 5000, BurnIn: 100, Seed: 4, Init: langevin.InitPrior{},
		MaxKeep: 300, CheckEvery: 50,
	})
	if err != nil {
		t.Fatal(err)
	}
	// 4900 draws after burn-in: halved whenever a round ends above 300, so
	// between 150 and 300 plus one round (50) at the end.
	if n := len(tr.Draws[0]); tr.Thin < 16 || n < 150 || n > 350 {
		t.Errorf("final Thin = %d with %d draws per chain: expected Thin ≥ 16 and 150…350 draws", tr.Thin, n)
	}
	fixed, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{
		Chains: 2, Iters: 5000, BurnIn: 100, Seed: 4, Init: langevin.InitPrior{}, Thin: tr.Thin,
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := sameDraws(tr, fixed); d != "" {
		t.Fatalf("MaxKeep run vs Thin = %d: %s", tr.Thin, d)
	}
}

// With Until, Iters is a maximum (10⁷ for --sampler auto) and the default
// progress interval is at most a round (CheckEvery): before, it was
// Iters/100, and a 10⁶-row run reported "0 iterations" for an hour.
func TestRunUntilProgress(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	var last int
	tr, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{
		Chains: 1, Iters: 10000000, BurnIn: 10, Seed: 4, Init: langevin.InitPrior{},
		Until: func(tr *langevin.Trace) bool { return len(tr.Draws[0]) >= 190 }, CheckEvery: 50,
		Progress: func(_, done int) { last = done },
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Iters[0][len(tr.Iters[0])-1]; last != n || n != 200 {
		t.Errorf("progress reported %d iterations, the run ended at %d (want 200)", last, n)
	}
}
