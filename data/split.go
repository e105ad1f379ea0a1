package data

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Second words of the PCG state, so that the same seed gives unrelated
// streams in Split and CorrelatedNormal. They spell "langevin" and
// "gaussian" in ASCII.
const (
	splitStream  = 0x6c616e676576696e
	normalStream = 0x676175737369616e
)

// uintN returns a uniform integer in [0, n) using Lemire's multiply-and-reject
// method on raw outputs of src. n must be positive.
func uintN(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// permutation returns a uniformly random permutation of 0..n-1 (Fisher–Yates).
func permutation(n int, src *rand.PCG) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(uintN(src, uint64(i+1)))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// Split shuffles the rows of d with a generator seeded by seed and cuts them
// into len(fracs) parts, for example fracs {0.8, 0.2} for train/test or
// {0.6, 0.2, 0.2} for train/validation/test. The result is deterministic for
// a given seed, and d is not modified; each part holds copies of its rows, in
// shuffled order.
//
// Sizes use cumulative rounding: with c_k = fracs[0] + ... + fracs[k] and
// n = d.Len(), part k holds the rows at positions round(n·c_{k-1}) up to (not
// including) round(n·c_k) of the shuffled order, where round rounds half away
// from zero and the last boundary is n. The sizes therefore add up to n and
// each differs from n·fracs[k] by less than 1. For example n = 690 with
// {0.8, 0.2} gives 552 and 138, and n = 5 with {0.5, 0.5} gives 3 and 2. A
// part may be empty.
//
// Split panics if fracs is empty, if a fraction is negative or not finite, or
// if the fractions do not sum to 1 within 1e-9.
func Split(d *Dataset, fracs []float64, seed uint64) []*Dataset {
	if len(fracs) == 0 {
		panic("data: Split needs at least one fraction")
	}
	var sum float64
	for _, f := range fracs {
		if !(f >= 0) || math.IsInf(f, 0) {
			panic(fmt.Sprintf("data: invalid Split fraction %v", f))
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		panic(fmt.Sprintf("data: Split fractions sum to %v, not 1", sum))
	}
	n := d.Len()
	perm := permutation(n, rand.NewPCG(seed, splitStream))
	parts := make([]*Dataset, len(fracs))
	lo := 0
	var cum float64
	for k, f := range fracs {
		cum += f
		hi := int(math.Round(float64(n) * cum))
		if k == len(fracs)-1 || hi > n {
			hi = n
		}
		hi = max(hi, lo)
		parts[k] = d.Subset(perm[lo:hi])
		lo = hi
	}
	return parts
}

// TrainTest splits d into a training set and a test set holding a fraction
// testFrac of the rows. It is Split(d, []float64{1 - testFrac, testFrac},
// seed), so the same rounding rule applies. It panics if testFrac is not in
// [0, 1].
func TrainTest(d *Dataset, testFrac float64, seed uint64) (train, test *Dataset) {
	if !(testFrac >= 0 && testFrac <= 1) {
		panic(fmt.Sprintf("data: TrainTest fraction %v not in [0, 1]", testFrac))
	}
	p := Split(d, []float64{1 - testFrac, testFrac}, seed)
	return p[0], p[1]
}

// TrainTestOwned is TrainTest for a data set the caller gives up: the rows
// of d are permuted in place and the two parts are views of them, so that
// no row is copied (TrainTest holds the data twice at its peak: 640 MB for
// a file of 2,000 rows × 20,000 columns). The parts hold the same rows in
// the same order as TrainTest's, bit for bit; d must not be used after.
func TrainTestOwned(d *Dataset, testFrac float64, seed uint64) (train, test *Dataset) {
	if !(testFrac >= 0 && testFrac <= 1) {
		panic(fmt.Sprintf("data: TrainTest fraction %v not in [0, 1]", testFrac))
	}
	n, p := d.Len(), d.Dim()
	if (d.IDs != nil && len(d.IDs) != n) || len(d.Y) != n {
		return TrainTest(d, testFrac, seed)
	}
	perm := permutation(n, rand.NewPCG(seed, splitStream))
	// Split's boundary for {1 − testFrac, testFrac}.
	hi := int(math.Round(float64(n) * (1 - testFrac)))
	hi = max(min(hi, n), 0)
	if p > 0 && n > 0 {
		permuteRows(d, perm)
	} else {
		y := make([]float64, n)
		for k, i := range perm {
			y[k] = d.Y[i]
		}
		copy(d.Y, y)
	}
	part := func(lo, hi int) *Dataset {
		out := &Dataset{Y: d.Y[lo:hi:hi], Names: append([]string(nil), d.Names...), Target: d.Target, Source: d.Source, Coding: d.Coding}
		if d.IDs != nil {
			out.IDs = d.IDs[lo:hi:hi]
		}
		if hi == lo || p == 0 {
			out.X = &mat.Dense{}
		} else {
			out.X = d.X.Slice(lo, hi, 0, p).(*mat.Dense)
		}
		return out
	}
	return part(0, hi), part(hi, n)
}

// permuteRows reorders the rows of d in place (X, Y and IDs) so that row k
// becomes the old row perm[k], cycle by cycle with one row of scratch.
func permuteRows(d *Dataset, perm []int) {
	p := d.Dim()
	done := make([]bool, len(perm))
	tmp := make([]float64, p)
	for s := range perm {
		if done[s] {
			continue
		}
		copy(tmp, d.X.RawRowView(s))
		ty := d.Y[s]
		var tid string
		if d.IDs != nil {
			tid = d.IDs[s]
		}
		k := s
		for {
			done[k] = true
			src := perm[k]
			if src == s {
				copy(d.X.RawRowView(k), tmp)
				d.Y[k] = ty
				if d.IDs != nil {
					d.IDs[k] = tid
				}
				break
			}
			copy(d.X.RawRowView(k), d.X.RawRowView(src))
			d.Y[k] = d.Y[src]
			if d.IDs != nil {
				d.IDs[k] = d.IDs[src]
			}
			k = src
		}
	}
}
