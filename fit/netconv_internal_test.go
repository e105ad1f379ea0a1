package fit

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// countNet is linNet counting its FunctionValues calls.
type countNet struct {
	linNet
	calls *int
}

func (c countNet) FunctionValues(theta []float64, X *mat.Dense, dst []float64) {
	*c.calls++
	c.linNet.FunctionValues(theta, X, dst)
}

// TestNetUntilVerdict: the run's check (Until: cached predictions, stopping
// at the first failing quantity) gives Convergence's verdict at every round
// of a run whose chains drift, then settle, with the thinning doubling as
// in langevin.Run; it computes each kept draw's predictions once, and a
// different trace with the same iterations is not mistaken for the cached
// one.
func TestNetUntilVerdict(t *testing.T) {
	calls := 0
	m := countNet{linNet{gapNet(t, 20)}, &calls}
	p := &NetPlan{Points: mat.NewDense(5, 1, []float64{-1, -0.5, 0, 0.5, 1})}
	d := m.Dim()
	const chains, maxKeep, every = 4, 200, 50
	var last *FunctionConvergence
	until := p.Until(m, 100, &last)
	tr := &langevin.Trace{Dim: d, Draws: make([][][]float64, chains), Iters: make([][]int, chains)}
	rng := make([]*rand.Rand, chains)
	pos := make([][2]float64, chains)
	for c := range rng {
		rng[c] = rand.New(rand.NewPCG(uint64(c), 3))
		pos[c] = [2]float64{float64(c), -float64(c)}
	}
	thin, stopped, verdicts := 1, 0, map[bool]int{}
	for it := 1; it <= 40000 && stopped == 0; it++ {
		for c := range pos {
			// An AR(1) chain drifting from its own start towards N(0, 1).
			for j := range pos[c] {
				pos[c][j] = 0.97*pos[c][j] + 0.243*rng[c].NormFloat64()
			}
			if (it-1)%thin == 0 {
				th := make([]float64, d)
				th[0], th[1] = pos[c][0], pos[c][1]
				tr.Draws[c] = append(tr.Draws[c], th)
				tr.Iters[c] = append(tr.Iters[c], it)
			}
		}
		if it%every != 0 {
			continue
		}
		if len(tr.Draws[0]) > maxKeep {
			halveTrace(tr)
			thin *= 2
		}
		calls = 0
		full := p.Convergence(m, tr, 100)
		calls = 0
		got := until(tr)
		if got != full.Converged || last.Converged != got {
			t.Fatalf("iteration %d: Until %v, Convergence %v (%v)", it, got, full.Converged, full)
		}
		verdicts[got]++
		if got {
			stopped = it
			if last.Partial || last.MedianRHat != full.MedianRHat || last.MinESS != full.MinESS {
				t.Errorf("converged verdict %v, want Convergence's %v", last, full)
			}
		} else if !last.Partial && full.MinESS >= 100 && full.MaxRHat <= 1.1 {
			// Only the median failed: the check ran over every quantity.
			t.Logf("iteration %d: median R̂ %v", it, full.MedianRHat)
		}
	}
	t.Logf("verdicts %v, stopped at iteration %d, thinning %d", verdicts, stopped, thin)
	if verdicts[false] < 3 || verdicts[true] != 1 {
		t.Fatalf("verdicts %v (stopped at %d): want several rounds, then convergence", verdicts, stopped)
	}
	// The predictions of each kept draw were computed once (the draws of
	// the last round alone in the last call).
	if calls > chains*(every/thin+1) {
		t.Errorf("last round's check computed %d predictions; %d draws are new", calls, chains*every/thin)
	}
	// A different trace at the same iterations: not taken from the cache.
	other := &langevin.Trace{Dim: d, Draws: make([][][]float64, chains), Iters: tr.Iters}
	for c := range other.Draws {
		for range tr.Draws[c] {
			th := make([]float64, d)
			th[0], th[1] = float64(c), 0.01*rng[c].NormFloat64()
			other.Draws[c] = append(other.Draws[c], th)
		}
	}
	if until(other) || p.Convergence(m, other, 100).Converged {
		t.Errorf("chains at four different places converged: the cache served another trace's predictions")
	}
}

// BenchmarkNetUntil times the function-space checks of a run of a UCI-sized
// network (wine: 11-50-1, 100 held-out points, 4 chains) over the 19 rounds
// of 880 iterations of a wine split's run, the thinning doubling at 500
// kept draws a chain, as langevin.Run calls them: "until" is the run's check (NetPlan.Until),
// "every-round" the full Convergence at every round (the check before
// 2026-11-26: 2.1 of the 7.8 s CPU of a wine split).
func BenchmarkNetUntil(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, p, chains, rounds, every, maxKeep = 1400, 11, 4, 19, 880, 500
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = rng.NormFloat64()
	}
	m, err := model.NewMLP(X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{50}, Likelihood: model.LikGaussian}))
	if err != nil {
		b.Fatal(err)
	}
	p0 := &NetPlan{Points: mat.DenseCopyOf(X.Slice(0, 100, 0, p))}
	d := m.Dim()
	// The rounds' traces: chain c drifts slowly around its own start, so no
	// round converges (the run goes to its cap, as most network runs do).
	mode := make([][]float64, chains)
	for c := range mode {
		mode[c] = make([]float64, d)
		m.InitPoint(mode[c], rng)
	}
	var traces []*langevin.Trace
	tr := &langevin.Trace{Dim: d, Draws: make([][][]float64, chains), Iters: make([][]int, chains)}
	thin := 1
	for it := 1; it <= rounds*every; it++ {
		if (it-1)%thin == 0 {
			for c := range mode {
				th := make([]float64, d)
				for j := range th {
					th[j] = mode[c][j] + 0.05*rng.NormFloat64()
				}
				tr.Draws[c] = append(tr.Draws[c], th)
				tr.Iters[c] = append(tr.Iters[c], it)
			}
		}
		if it%every != 0 {
			continue
		}
		if len(tr.Draws[0]) > maxKeep {
			halveTrace(tr)
			thin *= 2
		}
		snap := &langevin.Trace{Dim: d, Draws: make([][][]float64, chains), Iters: make([][]int, chains)}
		for c := range snap.Draws {
			snap.Draws[c] = append([][]float64(nil), tr.Draws[c]...)
			snap.Iters[c] = append([]int(nil), tr.Iters[c]...)
		}
		traces = append(traces, snap)
	}
	b.Run("until", func(b *testing.B) {
		for b.Loop() {
			u := p0.Until(m, 100, nil)
			for _, t := range traces {
				u(t)
			}
		}
	})
	b.Run("every-round", func(b *testing.B) {
		for b.Loop() {
			for _, t := range traces {
				p0.Convergence(m, t, 100)
			}
		}
	})
}

// halveTrace keeps every other draw of each chain (the first, third, …), as
// langevin.Run does when the kept draws exceed MaxKeep and it doubles the
// thinning.
func halveTrace(tr *langevin.Trace) {
	for c := range tr.Draws {
		n := (len(tr.Draws[c]) + 1) / 2
		for i := 1; i < n; i++ {
			tr.Draws[c][i], tr.Iters[c][i] = tr.Draws[c][2*i], tr.Iters[c][2*i]
		}
		tr.Draws[c], tr.Iters[c] = tr.Draws[c][:n], tr.Iters[c][:n]
	}
}
