package langevin_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/langevin-go/langevin"
)

// TestBatcherSameAsShuffle: batches without replacement are consecutive
// blocks of permutations drawn by rand.Shuffle's Fisher–Yates on the
// chain's stream — the batcher's own loop gives the same batches, epoch
// after epoch (so the draws of every run are unchanged).
func TestBatcherSameAsShuffle(t *testing.T) {
	const n, size = 1000, 70
	b, err := langevin.NewBatcher(n, size, false, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	ref := rand.New(rand.NewPCG(7, 8))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	pos := n
	for k := 0; k < 60; k++ { // 4 epochs of 14 batches
		if pos+size > n {
			ref.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			pos = 0
		}
		want := perm[pos : pos+size]
		pos += size
		if got := b.Next(); !slices.Equal(got, want) {
			t.Fatalf("batch %d: %v, rand.Shuffle's %v", k, got[:5], want[:5])
		}
	}
}

// BenchmarkBatcherNext: a batch of 44,196 of 10⁶ observations without
// replacement (the 10⁶-row scale case's), the epoch's shuffle amortised.
func BenchmarkBatcherNext(b *testing.B) {
	bt, err := langevin.NewBatcher(1000000, 44196, false, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bt.Next()
	}
}
