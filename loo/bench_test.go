package loo_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

// benchBlock returns rows × S log-likelihoods of a normal model with
// autocorrelated draws of its mean and log-sd (4 chains, AR(1) with
// coefficient 0.5), and one outlying row in every 50.
func benchBlock(rows, S int) *mat.Dense {
	rng := rand.New(rand.NewPCG(1, 1))
	mu, ls := make([]float64, S), make([]float64, S)
	n := S / 4
	for s := range S {
		if s%n == 0 {
			mu[s], ls[s] = 0.1*rng.NormFloat64(), 0.1*rng.NormFloat64()
			continue
		}
		mu[s] = 0.5*mu[s-1] + math.Sqrt(0.75)*0.1*rng.NormFloat64()
		ls[s] = 0.5*ls[s-1] + math.Sqrt(0.75)*0.1*rng.NormFloat64()
	}
	m := mat.NewDense(rows, S, nil)
	for i := range rows {
		y := rng.NormFloat64()
		if i%50 == 0 {
			y = 4
		}
		row := m.RawRowView(i)
		for s := range S {
			z := (y - mu[s]) / math.Exp(ls[s])
			row[s] = -0.5*z*z - ls[s] - 0.5*math.Log(2*math.Pi)
		}
	}
	return m
}

// BenchmarkLOO is PSIS-LOO of 10⁴ rows × 4,000 draws, given 100 rows at a
// time (the same block 100 times).
func BenchmarkLOO(b *testing.B) {
	const rows, S, reps = 100, 4000, 100
	blk := benchBlock(rows, S)
	blocks := func(yield func(*mat.Dense, error) bool) {
		for range reps {
			if !yield(blk, nil) {
				return
			}
		}
	}
	b.ReportAllocs()
	t0 := cpuTime()
	for b.Loop() {
		if _, err := loo.LOO(blocks, 4); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time, which the load of a shared machine does not inflate as it
	// does ns/op
	b.ReportMetric((cpuTime()-t0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkRow is one row of 4,000 draws: it allocates nothing.
func BenchmarkRow(b *testing.B) {
	blk := benchBlock(100, 4000)
	var w loo.Workspace
	w.Row(blk.RawRowView(0), 4)
	b.ReportAllocs()
	i := 0
	t0 := cpuTime()
	for b.Loop() {
		w.Row(blk.RawRowView(i%100), 4)
		i++
	}
	b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
