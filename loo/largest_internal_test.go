package loo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLargest checks the tail selection against a stable sort of all
// values, as R's sort.int(index.return = TRUE) orders them, on inputs with
// and without ties, trends and heavy tails, through both of its paths (the
// sampled bound for S ≥ 1024, quickselect below and when the bound misses)
// and both of sortPairs' (buckets, and radixSort when they are uneven).
func TestLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gens := map[string]func(s int) float64{
		"normal": func(int) float64 { return rng.NormFloat64() },
		"ties":   func(int) float64 { return float64(rng.IntN(7)) },
		"trend":  func(s int) float64 { return float64(s) + 0.1*rng.NormFloat64() },
		"down":   func(s int) float64 { return -float64(s) },
		"cauchy": func(int) float64 { return math.Tan(math.Pi * (rng.Float64() - 0.5)) },
		"const":  func(int) float64 { return 1 },
		// ties within buckets of the bucket sort
		"rounded": func(int) float64 { return math.Round(100*rng.NormFloat64()) / 100 },
		// one far value: the buckets too uneven, the radix sort
		"outlier": func(s int) float64 {
			if s == 5 {
				return 1e300
			}
			return rng.NormFloat64()
		},
	}
	var w Workspace
	for name, g := range gens {
		for _, S := range []int{40, 400, 1023, 1024, 4000, 10007} {
			x := make([]float64, S)
			for s := range x {
				x[s] = g(s)
			}
			n := TailLen(S, 0.3) + 1
			ref := make([]pair, S)
			for s, v := range x {
				ref[s] = pair{v, int32(s)}
			}
			slices.SortStableFunc(ref, func(a, b pair) int {
				switch {
				case a.v < b.v:
					return -1
				case a.v > b.v:
					return 1
				}
				return 0
			})
			got := w.largest(x, 1, n)
			if !slices.Equal(got, ref[S-n:]) {
				t.Errorf("%s S=%d n=%d: tails differ", name, S, n)
			}
			neg := make([]float64, S)
			for s, v := range x {
				neg[s] = -v
			}
			if got := w.largest(neg, -1, n); !slices.Equal(got, ref[S-n:]) {
				t.Errorf("%s S=%d n=%d: tails of −(−x) differ", name, S, n)
			}
		}
	}
}
