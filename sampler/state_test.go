package sampler_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// resumeCases are the Resumable samplers, with settings that exercise every
// part of their state: minibatches in shuffled epochs, a control variate,
// noise estimates, a cyclical schedule with exploration phases, a dense
// preconditioner, the thermostat, NUTS's and MALA's step-size and metric
// adaptation (cut part way through a window).
func resumeCases(t *testing.T) (langevin.Model, []float64, []struct {
	name string
	s    langevin.Sampler
	warm int // iteration after which EndWarmup is called (0: never)
}) {
	X, y := testmodel.LogisticData(200, 3, 5)
	m, err := model.NewLogistic(X, y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	centre := []float64{0.1, -0.2, 0.3, 0.05}
	dense := mat.NewSymDense(4, []float64{1, 0.2, 0, 0, 0.2, 1, 0, 0, 0, 0, 2, 0.1, 0, 0, 0.1, 1})
	mb := sampler.Minibatch{Size: 30}
	cyc := schedule.Cyclical{Eta0: 2e-3, Iters: 400, Cycles: 4, Explore: 0.3}
	cases := []struct {
		name string
		s    langevin.Sampler
		warm int
	}{
		{"SGLD, control variates", sampler.SGLD{Step: schedule.Constant(2e-3), Batch: sampler.Minibatch{Size: 30, CV: centre}, NoiseEvery: 7}, 0},
		{"SGLD, dense M, replacement, annealed", sampler.SGLD{Step: schedule.Polynomial{A: 3e-3, B: 1, Gamma: 0.55}, Batch: sampler.Minibatch{Size: 20, Replace: true}, PrecondFull: dense, TemperatureStart: 4, BurnIn: 150}, 0},
		{"cyclical SGLD", sampler.CSGLD(2e-3, 400, 4, 0.3, mb), 0},
		{"cyclical SGHMC", sampler.SGHMC{Step: cyc, Batch: mb, Friction: 0.2, Precond: []float64{0.5, 2, 0.25, 4}}, 0},
		{"SGHMC thermostat, resampling", sampler.SGHMC{Step: schedule.Constant(1e-3), Batch: mb, Thermostat: true, Resample: 13, GradNoise: []float64{1e-3, 0, 1e-3, 0}}, 0},
		{"NUTS, diagonal adaptation", sampler.NUTS{Adapt: sampler.Adapt{Warmup: 150}}, 150},
		{"NUTS, dense adaptation", sampler.NUTS{Adapt: sampler.Adapt{Warmup: 150, Metric: sampler.MetricDense}}, 150},
		{"pSGLD with Γ", sampler.PSGLD{Step: schedule.Constant(1e-3), Batch: mb, Correction: true}, 0},
		{"SGD", sampler.SGD{Step: schedule.Constant(1e-3), Batch: mb}, 0},
		{"BAOAB", sampler.BAOAB{Step: schedule.Constant(1e-3), Batch: mb}, 0},
		{"MALA, grid", sampler.MALA{Adapt: sampler.Adapt{Warmup: 150, Tune: sampler.TuneGrid}}, 150},
		{"RWM, grid scored by squared jumps", sampler.RWM{Adapt: sampler.Adapt{Warmup: 150, Tune: sampler.TuneGrid, Score: sampler.GridESJD}}, 150},
		{"RWM, dense M", sampler.RWM{PrecondFull: dense, Adapt: sampler.Adapt{Warmup: 150}}, 150},
	}
	return m, centre, cases
}

// TestResumeExact: a chain's state saved after n steps (in the middle of the
// warm-up's adaptation windows, of a cycle, of an epoch) and restored into
// a chain made elsewhere (another initial point, another random stream, a
// few steps already taken), with the random stream restored alike, takes
// the next steps of the original bit for bit: positions and statistics.
// Restoring without the random stream, or without the state, must differ
// (the test can fail).
func TestResumeExact(t *testing.T) {
	m, centre, cases := resumeCases(t)
	for _, tc := range cases {
		for _, n := range []int{1, 77, 88, 149, 150, 233} {
			a := rand.NewPCG(1, 2)
			ch, err := tc.s.NewChain(m, centre, rand.New(a))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			step := func(ch langevin.Chain, it int) {
				if err := ch.Step(); err != nil {
					t.Fatalf("%s: step %d: %v", tc.name, it, err)
				}
				if it == tc.warm {
					ch.(langevin.WarmupEnder).EndWarmup()
				}
			}
			for it := 1; it <= n; it++ {
				step(ch, it)
			}
			st, err := langevin.SaveState(ch)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			rngState, _ := a.MarshalBinary()

			b := rand.NewPCG(7, 9)
			other, err := tc.s.NewChain(m, []float64{-0.3, 0.2, 0.1, -0.1}, rand.New(b))
			if err != nil {
				t.Fatal(err)
			}
			for it := 1; it <= 5; it++ {
				step(other, it+1000)
			}
			if err := langevin.RestoreState(other, st); err != nil {
				t.Fatalf("%s: restore: %v", tc.name, err)
			}
			if err := b.UnmarshalBinary(rngState); err != nil {
				t.Fatal(err)
			}
			ns := len(tc.s.StatNames())
			sa, sb := make([]float64, ns), make([]float64, ns)
			for it := n + 1; it <= n+120; it++ {
				step(ch, it)
				step(other, it)
				ch.Stats(sa)
				other.Stats(sb)
				if !same(ch.Position(), other.Position()) || !same(sa, sb) {
					t.Fatalf("%s, saved after %d steps: step %d differs: θ %v vs %v, stats %v vs %v", tc.name, n, it, ch.Position(), other.Position(), sa, sb)
				}
			}
		}
	}
}

// TestResumeExactCatchesSlips: the comparison of TestResumeExact fails for a
// chain restored without its random stream, and for one whose stream is
// restored but not its state.
func TestResumeExactCatchesSlips(t *testing.T) {
	m, centre, cases := resumeCases(t)
	for _, tc := range cases {
		for _, slip := range []string{"no stream", "no state"} {
			a := rand.NewPCG(1, 2)
			ch, _ := tc.s.NewChain(m, centre, rand.New(a))
			for it := 1; it <= 60; it++ {
				ch.Step()
			}
			st, _ := langevin.SaveState(ch)
			rngState, _ := a.MarshalBinary()
			b := rand.NewPCG(7, 9)
			other, _ := tc.s.NewChain(m, []float64{-0.3, 0.2, 0.1, -0.1}, rand.New(b))
			other.Step()
			if slip != "no state" {
				langevin.RestoreState(other, st)
			}
			if slip != "no stream" {
				b.UnmarshalBinary(rngState)
			}
			differs := false
			for it := 0; it < 20 && !differs; it++ {
				ch.Step()
				other.Step()
				differs = !same(ch.Position(), other.Position())
			}
			if !differs {
				t.Errorf("%s, %s: the restored chain takes the original's steps", tc.name, slip)
			}
		}
	}
}

// TestRestoreStateRefusesOthers: a state restored into a chain of another
// sampler or model, or a truncated one, is an error, not a wrong chain.
func TestRestoreStateRefusesOthers(t *testing.T) {
	m, centre, cases := resumeCases(t)
	ch, _ := cases[0].s.NewChain(m, centre, rand.New(rand.NewPCG(1, 2)))
	ch.Step()
	st, err := langevin.SaveState(ch)
	if err != nil {
		t.Fatal(err)
	}
	nuts, _ := sampler.NUTS{}.NewChain(m, centre, rand.New(rand.NewPCG(1, 2)))
	if err := langevin.RestoreState(nuts, st); err == nil {
		t.Error("an SGLD state restored into a NUTS chain")
	}
	if err := langevin.RestoreState(ch, st[:len(st)-3]); err == nil {
		t.Error("a truncated state restored")
	}
	small, _ := model.NewLogistic(mat.NewDense(3, 1, []float64{1, 2, 3}), []float64{0, 1, 1}, model.LogisticOptions{})
	sch, _ := sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 2}}.NewChain(small, []float64{0, 0}, rand.New(rand.NewPCG(1, 2)))
	if err := langevin.RestoreState(sch, st); err == nil {
		t.Error("a state of a 4-parameter model restored into a 2-parameter one")
	}
	if _, err := langevin.SaveState(adamChain(t, m)); err == nil {
		t.Error("an Adam chain (not Resumable) saved a state")
	}
}

func adamChain(t *testing.T, m langevin.Model) langevin.Chain {
	ch, err := sampler.Adam{Step: schedule.Constant(1e-3)}.NewChain(m, make([]float64, m.Dim()), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// same reports whether a and b hold the same numbers bit for bit.
func same(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
