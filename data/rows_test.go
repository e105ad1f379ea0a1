package data_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
)

// randomTable returns n rows of p features (one constant column) and 0/1
// labels.
func randomTable(n, p int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range p {
			v := 3 + 2*rng.NormFloat64()
			if j == p-1 {
				v = 7 // a constant column: Scale 1
			}
			X.Set(i, j, v)
		}
		y[i] = float64(rng.IntN(2))
	}
	return &data.Dataset{X: X, Y: y}
}

// TestSplitRows: the two views partition the rows in file order, Row maps
// back, a block read equals the rows read one by one, the test share is
// within 4 binomial sds of the fraction, and the split depends on the seed.
func TestSplitRows(t *testing.T) {
	const n, p = 10000, 3
	ds := randomTable(n, p, 1)
	for _, frac := range []float64{0, 0.2, 0.5} {
		train, test := data.SplitRows(ds, frac, 7)
		if train.Len()+test.Len() != n || train.Dim() != p {
			t.Fatalf("frac %v: %d + %d rows, want %d", frac, train.Len(), test.Len(), n)
		}
		sd := math.Sqrt(n * frac * (1 - frac))
		if math.Abs(float64(test.Len())-n*frac) > 4*sd {
			t.Errorf("frac %v: %d test rows, want %v ± %.0f", frac, test.Len(), n*frac, 4*sd)
		}
		var rows []int
		for _, s := range []*data.RowSubset{train, test} {
			prev := -1
			for k := range s.Len() {
				r := s.Row(k)
				if r <= prev {
					t.Fatalf("frac %v: row %d of a subset is table row %d after %d", frac, k, r, prev)
				}
				prev = r
				rows = append(rows, r)
			}
			// A block read from an offset equals the rows one by one.
			if s.Len() < 10 {
				continue
			}
			lo, k := 3, s.Len()-5
			x, y := make([]float64, k*p), make([]float64, k)
			s.ReadRows(lo, x, y)
			one, y1 := make([]float64, p), make([]float64, 1)
			for i := range k {
				s.ReadRows(lo+i, one, y1)
				r := s.Row(lo + i)
				if !slices.Equal(one, x[i*p:(i+1)*p]) || y1[0] != y[i] || !slices.Equal(one, ds.X.RawRowView(r)) || y[i] != ds.Y[r] {
					t.Fatalf("frac %v: row %d of the subset (table row %d) differs", frac, lo+i, r)
				}
			}
		}
		slices.Sort(rows)
		for i, r := range rows {
			if r != i {
				t.Fatalf("frac %v: the subsets do not partition the rows (row %d missing or repeated)", frac, i)
			}
		}
	}
	a, _ := data.SplitRows(ds, 0.2, 7)
	b, _ := data.SplitRows(ds, 0.2, 8)
	same := a.Len() == b.Len()
	for k := 0; same && k < a.Len(); k++ {
		same = a.Row(k) == b.Row(k)
	}
	if same {
		t.Error("seeds 7 and 8 give the same split")
	}
	// A table sorted by label splits both labels in proportion.
	sorted := &data.Dataset{X: mat.NewDense(n, 1, nil), Y: make([]float64, n)}
	for i := n / 2; i < n; i++ {
		sorted.Y[i] = 1
	}
	_, te := data.SplitRows(sorted, 0.2, 1)
	ones := 0
	x, y := make([]float64, te.Len()), make([]float64, te.Len())
	te.ReadRows(0, x, y)
	for _, v := range y {
		ones += int(v)
	}
	if sd := math.Sqrt(float64(te.Len()) / 4); math.Abs(float64(ones)-float64(te.Len())/2) > 4*sd {
		t.Errorf("sorted labels: %d ones among %d test rows", ones, te.Len())
	}
	one := make([]float64, p)
	if allocs := testing.AllocsPerRun(100, func() { a.ReadRows(100, one, y[:1]) }); allocs != 0 {
		t.Errorf("RowSubset.ReadRows of one row: %v allocs, want 0", allocs)
	}
	blk, yb := make([]float64, 500*p), make([]float64, 500)
	if allocs := testing.AllocsPerRun(20, func() { a.ReadRows(100, blk, yb) }); allocs != 0 {
		t.Errorf("RowSubset.ReadRows of a block: %v allocs, want 0", allocs)
	}
}

// TestFitScalerRows: two streamed passes give FitScaler's Scaler bit for bit
// (constant column included), and the view standardises as Transform.
func TestFitScalerRows(t *testing.T) {
	ds := randomTable(9000, 4, 2) // more than two blocks of 4096
	want := data.FitScaler(ds.X)
	got := data.FitScalerRows(ds)
	for j := range want.Mean {
		if math.Float64bits(got.Mean[j]) != math.Float64bits(want.Mean[j]) || math.Float64bits(got.Scale[j]) != math.Float64bits(want.Scale[j]) {
			t.Errorf("column %d: mean %v sd %v, want %v %v", j, got.Mean[j], got.Scale[j], want.Mean[j], want.Scale[j])
		}
	}
	if want.Scale[3] != 1 || want.Mean[3] != 7 {
		t.Fatalf("constant column: %v, %v", want.Mean[3], want.Scale[3])
	}
	view := got.View(ds)
	X := mat.DenseCopyOf(ds.X)
	want.Transform(X)
	i := 0
	for B, y := range data.Blocks(view, 1000) {
		r, _ := B.Dims()
		for k := range r {
			if !slices.Equal(B.RawRowView(k), X.RawRowView(i)) || y[k] != ds.Y[i] {
				t.Fatalf("row %d: %v, want %v", i, B.RawRowView(k), X.RawRowView(i))
			}
			i++
		}
	}
	if i != ds.Len() {
		t.Fatalf("Blocks gave %d rows, want %d", i, ds.Len())
	}
	one := &data.Dataset{X: mat.NewDense(1, 2, []float64{3, 4}), Y: []float64{1}}
	if s := data.FitScalerRows(one); s.Mean[0] != 3 || s.Scale[1] != 1 {
		t.Errorf("one row: %+v", s)
	}
}
