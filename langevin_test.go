package langevin_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
)

// walk is a test sampler: θ ← θ + N(0, 1) per coordinate, with a "stepsize__"
// statistic equal to the iteration number, and a divergence at iteration
// failAt (0: never).
type walk struct{ failAt int }

func (w walk) StatNames() []string { return []string{"lp__", "stepsize__"} }
func (w walk) NewChain(m langevin.Model, th []float64, rng *rand.Rand) (langevin.Chain, error) {
	return &walkChain{theta: append([]float64(nil), th...), rng: rng, failAt: w.failAt}, nil
}

type walkChain struct {
	theta  []float64
	rng    *rand.Rand
	t      int
	failAt int
}

func (c *walkChain) Step() error {
	c.t++
	for j := range c.theta {
		c.theta[j] += c.rng.NormFloat64()
	}
	if c.t == c.failAt {
		c.theta[0] = math.Inf(1)
	}
	return nil
}
func (c *walkChain) Position() []float64 { return c.theta }
func (c *walkChain) Stats(dst []float64) { dst[0], dst[1] = 0, float64(c.t) }

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	var traces []*langevin.Trace
	for _, w := range []int{1, 2, 3} {
		tr, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{Chains: 3, Iters: 50, BurnIn: 10, Thin: 3, Seed: 9, Workers: w, Init: langevin.InitPrior{}})
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	for _, tr := range traces[1:] {
		for c := range tr.Draws {
			if len(tr.Draws[c]) != 14 {
				t.Fatalf("chain %d kept %d draws, want ⌈(50-10)/3⌉ = 14", c, len(tr.Draws[c]))
			}
			for i := range tr.Draws[c] {
				if tr.Draws[c][i][0] != traces[0].Draws[c][i][0] {
					t.Fatalf("draw %d of chain %d differs between worker counts", i, c)
				}
			}
		}
	}
	tr := traces[0]
	if tr.Iters[0][0] != 11 || tr.Iters[0][13] != 50 {
		t.Errorf("kept iterations %v, want 11, 14, …, 50", tr.Iters[0])
	}
	if tr.Draws[0][0][0] == tr.Draws[1][0][0] {
		t.Error("chains 1 and 2 drew the same values: streams not independent")
	}
}

func TestRunDivergenceKeepsDraws(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	tr, err := langevin.Run(context.Background(), m, walk{failAt: 30}, langevin.Options{Chains: 2, Iters: 50, BurnIn: 10, Seed: 1})
	var de *langevin.DivergenceError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a DivergenceError", err)
	}
	if de.Iter != 30 || de.Param != "theta.1" {
		t.Errorf("divergence at iteration %d, parameter %s; want 30, theta.1", de.Iter, de.Param)
	}
	if !strings.Contains(err.Error(), "iteration 30") || !strings.Contains(err.Error(), "theta.1") {
		t.Errorf("message %q does not name the iteration and the parameter", err)
	}
	for c := range tr.Draws {
		if len(tr.Draws[c]) != 19 {
			t.Errorf("chain %d kept %d draws, want the 19 (iterations 11–29) before the divergence", c, len(tr.Draws[c]))
		}
	}
}

func TestRunCancel(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	opts := langevin.Options{Chains: 1, Iters: 100000, Seed: 1, ProgressEvery: 100,
		Progress: func(chain, done int) {
			n = done
			if done >= 1000 {
				cancel()
			}
		}}
	tr, err := langevin.Run(ctx, m, walk{}, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if k := len(tr.Draws[0]); k < 1000 || k > 1100 {
		t.Errorf("kept %d draws after cancelling at 1000 (progress %d)", k, n)
	}
}

func TestRunOptionErrors(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	for _, tc := range []struct {
		opts langevin.Options
		want string
	}{
		{langevin.Options{Iters: 0}, "Iters"},
		{langevin.Options{Iters: 10, BurnIn: 10}, "BurnIn"},
		{langevin.Options{Iters: 10, Thin: -1}, "Thin"},
		{langevin.Options{Iters: 10, Chains: -2}, "Chains"},
	} {
		_, err := langevin.Run(context.Background(), m, walk{}, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to name %s", tc.opts, err, tc.want)
		}
	}
}

func TestTraceMeans(t *testing.T) {
	tr := &langevin.Trace{
		Names:     []string{"a"},
		StatNames: []string{"stepsize__"},
		Draws:     [][][]float64{{{1}, {3}}, {{5}}},
		Stats:     [][][]float64{{{1}, {1}}, {{2}}},
	}
	if got := tr.Mean(nil)[0]; got != 3 {
		t.Errorf("Mean = %v, want 3", got)
	}
	if got := tr.WeightedMean(nil)[0]; got != (1+3+10)/4.0 {
		t.Errorf("WeightedMean = %v, want 3.5", got)
	}
}

func TestBatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b, err := langevin.NewBatcher(10, 3, false, rng)
	if err != nil {
		t.Fatal(err)
	}
	// Three batches of an epoch are distinct; the 10th index is dropped.
	seen := map[int]bool{}
	for k := 0; k < 3; k++ {
		for _, i := range b.Next() {
			if seen[i] {
				t.Fatalf("index %d repeated within an epoch", i)
			}
			seen[i] = true
		}
	}
	if b.Scale() != 10.0/3 {
		t.Errorf("Scale = %v", b.Scale())
	}
	full, _ := langevin.NewBatcher(10, 10, false, rng)
	if full.Next() != nil || !full.Full() || full.Scale() != 1 {
		t.Error("batch of size N without replacement is not the full batch")
	}
	for _, tc := range []struct{ n, size int }{{10, 11}, {10, -1}, {0, 1}} {
		if _, err := langevin.NewBatcher(tc.n, tc.size, true, rng); err == nil {
			t.Errorf("NewBatcher(%d, %d): no error", tc.n, tc.size)
		}
	}
	// With replacement, every index is equally likely.
	br, _ := langevin.NewBatcher(4, 2, true, rng)
	counts := make([]int, 4)
	for k := 0; k < 20000; k++ {
		for _, i := range br.Next() {
			counts[i]++
		}
	}
	for i, c := range counts {
		if math.Abs(float64(c)-10000) > 5*math.Sqrt(40000*0.25*0.75) {
			t.Errorf("index %d drawn %d times of 40000, want about 10000", i, c)
		}
	}
}

func TestEstimatorUnbiased(t *testing.T) {
	m := testmodel.NewMean(50, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, replace := range []bool{true, false} {
		b, _ := langevin.NewBatcher(m.Len(), 5, replace, rng)
		e := langevin.NewEstimator(m, b)
		th := []float64{0.3}
		g := []float64{0}
		var sum float64
		const reps = 20000
		for k := 0; k < reps; k++ {
			e.Eval(th, g)
			sum += g[0]
		}
		exact := make([]float64, 1)
		langevin.LogPosterior(m, th, exact)
		// The per-step noise sd is at most N·sd(z)/√B ≈ 50/√5; the mean of
		// 20000 is within 5 standard errors.
		if math.Abs(sum/reps-exact[0]) > 5*50/math.Sqrt(5)/math.Sqrt(reps) {
			t.Errorf("replace=%v: mean of ĝ = %v, exact gradient %v", replace, sum/reps, exact[0])
		}
	}
}

func TestCheckGradientCatchesWrongGradient(t *testing.T) {
	m := testmodel.NewMean(20, 1)
	if err := langevin.CheckGradient(m, []float64{0.7}, nil, 1e-6); err != nil {
		t.Fatal(err)
	}
	bad := &badModel{m}
	err := langevin.CheckGradient(bad, []float64{0.7}, nil, 1e-6)
	var ge *langevin.GradientError
	if !errors.As(err, &ge) || ge.Term != "likelihood" || ge.Name != "theta.1" {
		t.Errorf("err = %v, want a likelihood GradientError for theta.1", err)
	}
}

type badModel struct{ *testmodel.Mean }

func (m *badModel) LogLik(th []float64, batch []int, g []float64) float64 {
	v := m.Mean.LogLik(th, batch, g)
	if g != nil {
		g[0] *= 1.001
	}
	return v
}

func TestRunSaveWarmup(t *testing.T) {
	m := testmodel.NewMean(10, 1)
	tr, err := langevin.Run(context.Background(), m, walk{}, langevin.Options{Chains: 2, Iters: 20, BurnIn: 7, Thin: 2, Seed: 1, SaveWarmup: true})
	if err != nil {
		t.Fatal(err)
	}
	w := tr.Warmup[1]
	if len(w.Theta) != 4 || w.Iters[0] != 1 || w.Iters[3] != 7 || w.Stats[3][1] != 7 {
		t.Errorf("warm-up iterations %v, stats %v; want 1, 3, 5, 7 (CmdStan keeps ⌈7/2⌉)", w.Iters, w.Stats)
	}
	if len(tr.Draws[1]) != 7 || tr.Iters[1][0] != 8 {
		t.Errorf("sampling iterations %v, want 8, 10, …, 20", tr.Iters[1])
	}
}
