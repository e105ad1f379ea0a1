package langevin_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// pooledModel is a user model written by the concurrency rule of Model: a
// Gaussian N(μ, diag(s²)) in d dimensions whose LogLik uses a scratch
// vector (the residuals) taken from a sync.Pool, never from the struct.
type pooledModel struct {
	mu, s []float64
	pool  sync.Pool
}

func newPooledModel(d int) *pooledModel {
	m := &pooledModel{mu: make([]float64, d), s: make([]float64, d)}
	for j := range m.mu {
		m.mu[j], m.s[j] = float64(j), 1+0.5*float64(j)
	}
	m.pool.New = func() any { r := make([]float64, d); return &r }
	return m
}

func (m *pooledModel) Dim() int                               { return len(m.mu) }
func (m *pooledModel) Len() int                               { return 1 }
func (m *pooledModel) LogPrior(theta, grad []float64) float64 { return 0 }
func (m *pooledModel) LogLik(theta []float64, _ []int, grad []float64) float64 {
	rp := m.pool.Get().(*[]float64)
	r := *rp
	var lp float64
	for j, v := range theta {
		r[j] = (v - m.mu[j]) / m.s[j]
		lp -= 0.5 * r[j] * r[j]
	}
	if grad != nil {
		for j, rj := range r {
			grad[j] -= rj / m.s[j]
		}
	}
	m.pool.Put(rp)
	return lp
}

// TestConcurrentUserModel runs a user model with pooled scratch space on 4
// chains at once (run with -race) and checks the draws against a sequential
// run, bit for bit, and the means against the exact ones.
func TestConcurrentUserModel(t *testing.T) {
	m := newPooledModel(4)
	run := func(workers int) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, sampler.MALA{},
			langevin.Options{Chains: 4, Workers: workers, Iters: 1500, BurnIn: 500, Seed: 9, Init: langevin.InitUniform{}})
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
	means := par.Mean(nil)
	for j, mu := range m.mu {
		// 4000 draws of an autocorrelated chain: 6 sd / √(4000/10).
		if tol := 6 * m.s[j] / math.Sqrt(400); math.Abs(means[j]-mu) > tol {
			t.Errorf("mean of θ%d = %.3f, want %.3f ± %.3f", j+1, means[j], mu, tol)
		}
	}
}

func TestInitUniform(t *testing.T) {
	dst := make([]float64, 1000)
	if err := (langevin.InitUniform{}).Init(context.Background(), nil, 0, rand.New(rand.NewPCG(1, 1)), dst); err != nil {
		t.Fatal(err)
	}
	var lo, hi float64
	for _, v := range dst {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo < -2 || hi > 2 || lo > -1.9 || hi < 1.9 {
		t.Errorf("InitUniform draws span [%g, %g], want about [−2, 2]", lo, hi)
	}
	if err := (langevin.InitUniform{Radius: -1}).Init(context.Background(), nil, 0, rand.New(rand.NewPCG(1, 1)), dst); err == nil {
		t.Error("InitUniform{Radius: −1}: no error")
	}
}

// burnInProbe records the burn-in Run hands to WithBurnIn.
type burnInProbe struct {
	walk
	got *int
}

func (p burnInProbe) WithBurnIn(n int) langevin.Sampler { *p.got = n; return p }

func TestRunTimesAndBurnIn(t *testing.T) {
	m := newPooledModel(2)
	var got int
	tr, err := langevin.Run(context.Background(), m, burnInProbe{got: &got}, langevin.Options{Chains: 2, Iters: 300, BurnIn: 120})
	if err != nil {
		t.Fatal(err)
	}
	if got != 120 {
		t.Errorf("WithBurnIn got %d, want Options.BurnIn = 120", got)
	}
	for c := 0; c < 2; c++ {
		if !(tr.WarmupTime[c] > 0 && tr.SampleTime[c] > 0) {
			t.Errorf("chain %d: warm-up time %v, sampling time %v: want both positive", c, tr.WarmupTime[c], tr.SampleTime[c])
		}
	}
	// MALA's warm-up follows the burn-in when Adapt.Warmup is unset.
	s := sampler.MALA{}.WithBurnIn(200).(sampler.MALA)
	if s.Warmup != 200 {
		t.Errorf("MALA{}.WithBurnIn(200).Warmup = %d", s.Warmup)
	}
	if s := (sampler.NUTS{Adapt: sampler.Adapt{Warmup: 50}}).WithBurnIn(200).(sampler.NUTS); s.Warmup != 50 {
		t.Errorf("an explicit warm-up of 50 became %d", s.Warmup)
	}
}
