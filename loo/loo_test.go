package loo_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

func TestLOOErrors(t *testing.T) {
	good := mat.NewDense(2, 8, []float64{
		-1, -1.1, -0.9, -1.2, -1, -0.8, -1.3, -1,
		-2, -2.1, -1.9, -2.2, -2, -1.8, -2.3, -2,
	})
	nan := mat.DenseCopyOf(good)
	nan.Set(1, 3, math.NaN())
	inf := mat.DenseCopyOf(good)
	inf.Set(0, 5, math.Inf(1))
	short := mat.NewDense(1, 6, []float64{-1, -1, -1, -1, -1, -1})
	failing := errors.New("disk on fire")
	for _, c := range []struct {
		name   string
		blocks loo.Blocks
		chains int
		msg    string
	}{
		{"NaN", oneBlock(nan), 2, "row 2, draw 4"},
		{"Inf", oneBlock(inf), 2, "row 1, draw 6"},
		{"chains", oneBlock(good), 3, "8 draws do not split into 3 chains"},
		{"zero chains", oneBlock(good), 0, "at least 1"},
		{"ragged", func(yield func(*mat.Dense, error) bool) { _ = yield(good, nil) && yield(short, nil) }, 2, "row 3 has 6 draws"},
		{"empty", func(func(*mat.Dense, error) bool) {}, 2, "no rows"},
		{"reader", func(yield func(*mat.Dense, error) bool) { yield(nil, failing) }, 2, "disk on fire"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loo.LOO(c.blocks, c.chains)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want one naming %q", err, c.msg)
			}
		})
	}
}

// TestLOOBlocksInvariant checks that the block size does not change any
// number, bit for bit.
func TestLOOBlocksInvariant(t *testing.T) {
	ll := readMatrix(t, "varying")
	ref, err := loo.LOO(oneBlock(ll), fixtureChains)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 40} {
		res, err := loo.LOO(blocksOf(ll, n), fixtureChains)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Pointwise {
			if res.Pointwise[i] != ref.Pointwise[i] {
				t.Fatalf("blocks of %d, row %d: %+v, one block %+v", n, i+1, res.Pointwise[i], ref.Pointwise[i])
			}
		}
	}
}

func TestPSISEdgeCases(t *testing.T) {
	var w loo.Workspace
	// too few draws for a tail of 5: k̂ = +Inf, weights only truncated
	few := []float64{0.1, 0.3, 0.2, 0.5, 0.4, 0.0, 0.2, 0.1, 0.3, 0.2, 0.4, 0.1, 0.0, 0.3, 0.2, 0.1, 0.5, 0.4, 0.3, 0.2}
	if k := w.PSIS(append([]float64(nil), few[:20]...), 1); !math.IsInf(k, 1) {
		t.Errorf("S = 20: k̂ %v, want +Inf (tail of %d)", k, loo.TailLen(20, 1))
	}
	// equal ratios: no fit, k̂ = +Inf
	flat := make([]float64, 100)
	if k := w.PSIS(flat, 1); !math.IsInf(k, 1) {
		t.Errorf("equal ratios: k̂ %v, want +Inf", k)
	}
	// constant log-likelihood: r_eff of a constant is loo's 1/2 (τ̂ = 2), and the
	// row's estimates are exact
	ll := make([]float64, 400)
	for s := range ll {
		ll[s] = -1.5
	}
	p := w.Row(ll, 4)
	if p.REff != 0.5 || math.Abs(p.ELPD+1.5) > 1e-13 || math.Abs(p.PLoo) > 1e-13 {
		t.Errorf("constant row: %+v", p)
	}
	if got, want := loo.TailLen(4000, 1), 190; got != want {
		t.Errorf("TailLen(4000, 1) = %d, want %d", got, want)
	}
	if got := loo.KThreshold(400); math.Abs(got-(1-1/math.Log10(400))) > 1e-15 {
		t.Errorf("KThreshold(400) = %v", got)
	}
	if got := loo.KThreshold(4000); got != 0.7 {
		t.Errorf("KThreshold(4000) = %v", got)
	}
	for _, c := range []struct {
		k    float64
		band int
	}{{-0.2, 0}, {0.5, 0}, {0.50001, 1}, {0.7, 1}, {0.8, 2}, {1, 2}, {1.2, 3}, {math.Inf(1), 3}} {
		if b := loo.BandOf(c.k); b != c.band {
			t.Errorf("BandOf(%v) = %d, want %d", c.k, b, c.band)
		}
	}
}
