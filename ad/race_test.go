package ad_test

import (
	"context"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// TestConcurrentChains runs four chains of a tape model at once (run it with
// -race): each call takes its own tape (the model's scratch space) from the
// pool, and the draws equal those of the same chains run one after another,
// bit for bit.
func TestConcurrentChains(t *testing.T) {
	X, _, labels, _ := regData(3, 200, 4, 2)
	m := adLogistic(X, labels, false)
	run := func(workers int) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, sampler.MALA{Step: 0.01},
			langevin.Options{Chains: 4, Workers: workers, Iters: 200, BurnIn: 50, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	par, seq := run(4), run(1)
	for c := range par.Draws {
		for i := range par.Draws[c] {
			for j, v := range par.Draws[c][i] {
				if v != seq.Draws[c][i][j] {
					t.Fatalf("chain %d draw %d parameter %d: %v with 4 workers, %v with 1", c, i, j, v, seq.Draws[c][i][j])
				}
			}
		}
	}
}
