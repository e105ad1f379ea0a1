package langevin_test

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// chainLog records what one chain's sink received.
type chainLog struct {
	warm        langevin.Draws
	post        langevin.Draws
	warmIt, pIt []int
}

type logSink struct{ l *chainLog }

func (s logSink) Draw(warmup bool, it int, row, stats []float64) error {
	d := &s.l.post
	if warmup {
		d = &s.l.warm
	}
	d.Theta = append(d.Theta, slices.Clone(row))
	d.Stats = append(d.Stats, slices.Clone(stats))
	d.Iters = append(d.Iters, it)
	return nil
}

// upTo returns the rows of d drawn at iterations ≤ it.
func upTo(d langevin.Draws, it int) langevin.Draws {
	n := 0
	for n < len(d.Iters) && d.Iters[n] <= it {
		n++
	}
	return langevin.Draws{Theta: d.Theta[:n], Stats: d.Stats[:n], Iters: d.Iters[:n]}
}

// TestRunResume: a Run continued from any of its checkpoints (Options.Resume,
// given the draws its sinks received up to it) equals the run that never
// stopped bit for bit: the draws the sinks receive after the checkpoint and
// the final Trace. Cases: SGLD with control variates, cyclical SGHMC (draws
// skipped in exploration), NUTS with its warm-up adaptation, and an
// adaptive-length run (an ESS stop and a growing thinning) of SGLD.
func TestRunResume(t *testing.T) {
	X, y := testmodel.LogisticData(300, 3, 11)
	m, err := model.NewLogistic(X, y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	centre := []float64{0.1, -0.2, 0.3, 0.05}
	ess := func(tr *langevin.Trace) bool { // a rule that reads the draws
		min := math.Inf(1)
		for _, r := range diag.Summarize(tr.Names, tr.Params()) {
			min = math.Min(min, r.ESSBulk)
		}
		return min >= 150
	}
	for _, tc := range []struct {
		name string
		s    langevin.Sampler
		o    langevin.Options
	}{
		{"SGLD with control variates", sampler.SGLD{Step: schedule.Constant(2e-3), Batch: sampler.Minibatch{Size: 30, CV: centre}, NoiseEvery: 5},
			langevin.Options{Chains: 3, Iters: 1200, BurnIn: 200, Thin: 3, Seed: 4, SaveWarmup: true, CheckEvery: 100}},
		{"cyclical SGHMC", sampler.CSGHMC(2e-3, 1200, 4, 0.4, 0.2, sampler.Minibatch{Size: 30}),
			langevin.Options{Chains: 2, Iters: 1200, BurnIn: 100, Thin: 2, Seed: 5, CheckEvery: 70}},
		{"NUTS", sampler.NUTS{},
			langevin.Options{Chains: 2, Iters: 400, BurnIn: 200, Seed: 6, SaveWarmup: true, CheckEvery: 30, Init: langevin.InitUniform{}}},
		{"SGLD, ESS stop and growing thinning", sampler.SGLD{Step: schedule.Constant(3e-3), Batch: sampler.Minibatch{Size: 30, CV: centre}},
			langevin.Options{Chains: 2, Iters: 20000, BurnIn: 100, Seed: 7, CheckEvery: 100, MaxKeep: 60, Until: ess}},
	} {
		run := func(o langevin.Options, res *langevin.Resume) (*langevin.Trace, []*chainLog, []*langevin.Checkpoint) {
			logs := make([]*chainLog, o.Chains)
			for c := range logs {
				logs[c] = &chainLog{}
			}
			o.Sink = func(c int) langevin.DrawSink { return logSink{logs[c]} }
			var mu sync.Mutex
			var cps []*langevin.Checkpoint
			o.Checkpoint = func(cp *langevin.Checkpoint) error {
				b, err := cp.MarshalBinary() // through the file format
				if err != nil {
					return err
				}
				var back langevin.Checkpoint
				if err := back.UnmarshalBinary(b); err != nil {
					return err
				}
				mu.Lock()
				cps = append(cps, &back)
				mu.Unlock()
				return nil
			}
			o.Resume = res
			tr, err := langevin.Run(context.Background(), m, tc.s, o)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if tr.NoCheckpoint != "" {
				t.Fatalf("%s: %s", tc.name, tr.NoCheckpoint)
			}
			return tr, logs, cps
		}
		full, logs, cps := run(tc.o, nil)
		if len(cps) < 4 {
			t.Fatalf("%s: %d checkpoints", tc.name, len(cps))
		}
		for _, k := range []int{0, len(cps) / 3, len(cps) - 1} {
			cp := cps[k]
			res := &langevin.Resume{Checkpoint: cp}
			for _, l := range logs {
				res.Warmup = append(res.Warmup, upTo(l.warm, cp.Iter))
				res.Draws = append(res.Draws, upTo(l.post, cp.Iter))
			}
			tr, after, _ := run(tc.o, res)
			for c, l := range logs {
				want := l.post.Theta[len(res.Draws[c].Theta):]
				if !equalBits(after[c].post.Theta, want) || !equalBits(after[c].warm.Theta, l.warm.Theta[len(res.Warmup[c].Theta):]) {
					t.Fatalf("%s, resumed at iteration %d: chain %d's sink received other draws (%d rows, want %d)", tc.name, cp.Iter, c+1, len(after[c].post.Theta), len(want))
				}
			}
			for c := range full.Draws {
				if !equalBits(tr.Draws[c], full.Draws[c]) || !equalBits(tr.Stats[c], full.Stats[c]) || !slices.Equal(tr.Iters[c], full.Iters[c]) ||
					!equalBits(tr.Warmup[c].Theta, full.Warmup[c].Theta) {
					t.Fatalf("%s, resumed at iteration %d: chain %d's trace differs (%d draws, want %d)", tc.name, cp.Iter, c+1, len(tr.Draws[c]), len(full.Draws[c]))
				}
			}
			if tr.Thin != full.Thin {
				t.Fatalf("%s: thinning %d, want %d", tc.name, tr.Thin, full.Thin)
			}
		}
		t.Logf("%s: %d checkpoints, %d draws a chain, thin %d: resumed from 3 equal", tc.name, len(cps), len(full.Draws[0]), full.Thin)
	}
}

// TestRunResumeRefuses: a checkpoint of another run (other chains, another
// round length) and draws that do not match it are errors.
func TestRunResumeRefuses(t *testing.T) {
	m := testmodel.NewMean(50, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 5}}
	var cp *langevin.Checkpoint
	o := langevin.Options{Chains: 2, Iters: 100, CheckEvery: 10, Seed: 1}
	o.Checkpoint = func(c *langevin.Checkpoint) error { cp = c; return nil }
	if _, err := langevin.Run(context.Background(), m, s, o); err != nil || cp == nil {
		t.Fatal(err, cp)
	}
	for name, o2 := range map[string]langevin.Options{
		"other chains": {Chains: 3, Iters: 100, CheckEvery: 10, Seed: 1},
		"other rounds": {Chains: 2, Iters: 100, CheckEvery: 7, Seed: 1, Checkpoint: func(*langevin.Checkpoint) error { return nil }},
		"no draws":     {Chains: 2, Iters: 100, CheckEvery: 10, Seed: 1},
	} {
		o2.Resume = &langevin.Resume{Checkpoint: cp}
		if _, err := langevin.Run(context.Background(), m, s, o2); err == nil {
			t.Errorf("%s: resumed", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// Adam cannot save its state: no checkpoint, and the trace says why.
	o.Checkpoint = func(*langevin.Checkpoint) error { t.Fatal("a checkpoint of Adam"); return nil }
	tr, err := langevin.Run(context.Background(), m, sampler.Adam{Step: schedule.Constant(1e-3)}, o)
	if err != nil || tr.NoCheckpoint == "" {
		t.Errorf("Adam: %v, NoCheckpoint %q", err, tr.NoCheckpoint)
	}
}

func equalBits(a, b [][]float64) bool {
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
