package loo_test

import (
	"errors"
	"math"
	"math/rand/v2"
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

// TestRowWideRange checks Row's elpdᵢ and p_looᵢ against the plain
// log-sum-exp formulas over the PSIS weights, on rows whose log-likelihoods
// span 0.1 to 1,000 nats (the weights then differ by up to e¹⁰⁰⁰: Row takes
// them as one exponential over likelihoods below a 700-nat range, and one
// exponential each above).
func TestRowWideRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var w, ref loo.Workspace
	lse := func(x []float64) float64 {
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, v)
		}
		var s float64
		for _, v := range x {
			s += math.Exp(v - m)
		}
		return m + math.Log(s)
	}
	for _, span := range []float64{0.1, 5, 50, 500, 699, 701, 1000} {
		ll := make([]float64, 2000)
		for s := range ll {
			ll[s] = -span * math.Pow(rng.Float64(), 3) // heavy lower tail of p(y|θ)
		}
		p := w.Row(ll, 4)
		lw := make([]float64, len(ll))
		for s, v := range ll {
			lw[s] = -v
		}
		ref.PSIS(lw, p.REff)
		sum := make([]float64, len(ll))
		for s := range ll {
			sum[s] = ll[s] + lw[s]
		}
		elpd := lse(sum) - lse(lw)
		lpd := lse(ll) - math.Log(float64(len(ll)))
		if e := math.Abs(p.ELPD-elpd) / math.Max(1, math.Abs(elpd)); e > 1e-12 {
			t.Errorf("span %v: elpd %.15g, direct %.15g (rel %.2g)", span, p.ELPD, elpd, e)
		}
		if d := math.Abs(p.PLoo - (lpd - elpd)); d > 1e-10*math.Max(1, math.Abs(elpd)) {
			t.Errorf("span %v: p_loo %.15g, direct %.15g", span, p.PLoo, lpd-elpd)
		}
		var sw float64
		for _, v := range w.Weights() {
			sw += v
		}
		if math.Abs(sw-1) > 1e-12 {
			t.Errorf("span %v: weights sum to %v", span, sw)
		}
	}
}
