package fit

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// TestNetChecksWarnOnlyWhenBroken runs the network plan on moons as
// langevin run --data moons --model mlp does (2-50-1, 4 chains from the
// modes until the predictions converge) and prints its predictive with the per-chain checks: every
// chain passes and nothing warns. The same run with one chain stuck (its
// first draw throughout) warns, names the chain, and stacking gives it
// weight 0. (A step 10× the plan's is caught by the step's stability
// check, not by these: TestNetStepTooLargeWarns in cmd/langevin.)
func TestNetChecksWarnOnlyWhenBroken(t *testing.T) {
	if testing.Short() {
		t.Skip("the default moons run, about 6 s of CPU")
	}
	all, err := data.Moons(1000, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.TrainTest(all, 0.2, 1)
	m, err := model.NewMLP(train.X, train.Y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Likelihood: model.LikBernoulli}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1, Points: NetPoints(test)})
	if err != nil {
		t.Fatal(err)
	}
	var conv *FunctionConvergence
	opts := langevin.Options{Chains: 4, Iters: p.MaxIters, BurnIn: p.BurnIn, Init: p.Init(), Seed: 1,
		Until: p.Until(m, netTargetESS, &conv), CheckEvery: netCheckEvery(p.BurnIn, 4, m), MaxKeep: MaxKeep(netTargetESS, 4)}
	good, err := langevin.Run(ctx, m, p.Sampler, opts)
	if err != nil {
		t.Fatal(err)
	}
	print := func(tr *langevin.Trace) string {
		var buf bytes.Buffer
		PrintMLPPredictive(&buf, m, nil, tr, nil, test, nil, MLPPredictiveOptions{Seed: 1})
		return buf.String()
	}
	out := print(good)
	if strings.Contains(out, "warning:") || strings.Count(out, "  ok\n") != 4 {
		t.Errorf("the plan's run: want 4 chains ok and no warning:\n%s", out)
	}

	// One chain stuck: its first draw throughout.
	stuck := &langevin.Trace{Names: good.Names, Draws: make([][][]float64, 4), Iters: good.Iters, Thin: good.Thin}
	copy(stuck.Draws, good.Draws)
	stuck.Draws[2] = make([][]float64, len(good.Draws[2]))
	for i := range stuck.Draws[2] {
		stuck.Draws[2][i] = good.Draws[2][0]
	}
	if out := print(stuck); !strings.Contains(out, "warning:  chain 3 fails") || !strings.Contains(out, "a stuck chain") {
		t.Errorf("chain 3 stuck: want a warning naming chain 3 as stuck:\n%s", out)
	}
	cw, err := StackChains(m, stuck, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cw.W[2] != 0 || len(cw.Stuck) != 1 || !strings.Contains(cw.String(), "chain 3 gets weight 0") {
		t.Errorf("chain 3 stuck: weights %v, stuck %v: want weight 0 and the chain named:\n%v", cw.W, cw.Stuck, cw)
	}
}
