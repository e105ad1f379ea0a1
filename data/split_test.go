package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// indexed returns a data set whose Y is 0..n-1 and whose X row i is (i, -i).
func indexed(n int) *Dataset {
	d := &Dataset{Y: make([]float64, n), Names: []string{"a", "b"}, Target: "i", Source: "indexed"}
	raw := make([]float64, 2*n)
	for i := range n {
		d.Y[i] = float64(i)
		raw[2*i], raw[2*i+1] = float64(i), -float64(i)
	}
	if n > 0 {
		d.X = mat.NewDense(n, 2, raw)
	} else {
		d.X = &mat.Dense{}
	}
	return d
}

func TestSplitSizes(t *testing.T) {
	for _, tc := range []struct {
		n     int
		fracs []float64
		want  []int
	}{
		{690, []float64{0.8, 0.2}, []int{552, 138}},
		{10, []float64{0.6, 0.2, 0.2}, []int{6, 2, 2}},
		{5, []float64{0.5, 0.5}, []int{3, 2}},
		{7, []float64{1. / 3, 1. / 3, 1. / 3}, []int{2, 3, 2}},
		{3, []float64{1}, []int{3}},
		{3, []float64{0, 1}, []int{0, 3}},
		{1, []float64{0.8, 0.2}, []int{1, 0}},
		{0, []float64{0.5, 0.5}, []int{0, 0}},
	} {
		parts := Split(indexed(tc.n), tc.fracs, 1)
		var got []int
		var all []float64
		for _, p := range parts {
			got = append(got, p.Len())
			all = append(all, p.Y...)
			if p.Dim() != 2 || p.Source != "indexed" || p.Target != "i" {
				t.Errorf("part metadata %d %q %q", p.Dim(), p.Source, p.Target)
			}
			for i := range p.Len() {
				if p.X.At(i, 0) != p.Y[i] || p.X.At(i, 1) != -p.Y[i] {
					t.Fatalf("row %d of a part does not match: %v %v", i, p.X.RawRowView(i), p.Y[i])
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("n=%d %v: sizes %v, want %v", tc.n, tc.fracs, got, tc.want)
		}
		slices.Sort(all)
		for i, v := range all {
			if v != float64(i) {
				t.Errorf("n=%d %v: parts are not a partition", tc.n, tc.fracs)
				break
			}
		}
	}
}

func TestSplitDeterministic(t *testing.T) {
	d := indexed(100)
	a := Split(d, []float64{0.6, 0.2, 0.2}, 42)
	b := Split(d, []float64{0.6, 0.2, 0.2}, 42)
	c := Split(d, []float64{0.6, 0.2, 0.2}, 43)
	for k := range a {
		if !slices.Equal(a[k].Y, b[k].Y) {
			t.Errorf("part %d differs for the same seed", k)
		}
	}
	if slices.Equal(a[0].Y, c[0].Y) {
		t.Error("seeds 42 and 43 give the same split")
	}
	if slices.IsSorted(a[0].Y) {
		t.Error("rows were not shuffled")
	}
	// Pin the permutation so that changes to the algorithm are noticed.
	if got := fmt.Sprint(Split(indexed(10), []float64{1}, 1)[0].Y); got != goldenPerm10 {
		t.Errorf("permutation for seed 1 = %s, want %s", got, goldenPerm10)
	}
	// The input is untouched.
	for i, y := range d.Y {
		if y != float64(i) || d.X.At(i, 0) != float64(i) {
			t.Fatal("Split modified its input")
		}
	}
	// Parts are copies.
	a[0].X.Set(0, 0, 1e6)
	if slices.Contains(mat.Col(nil, 0, d.X), 1e6) {
		t.Error("parts share storage with the input")
	}
}

const goldenPerm10 = "[6 7 3 2 1 8 9 5 4 0]"

func TestSplitUniform(t *testing.T) {
	// Each row should land in the test part with probability 0.25.
	const n, reps = 8, 4000
	counts := make([]int, n)
	for seed := range uint64(reps) {
		_, test := TrainTest(indexed(n), 0.25, seed)
		for _, y := range test.Y {
			counts[int(y)]++
		}
	}
	for i, c := range counts {
		// Expected 1000, sd about 27.
		if c < 880 || c > 1120 {
			t.Errorf("row %d in test %d times out of %d", i, c, reps)
		}
	}
}

func TestTrainTest(t *testing.T) {
	d := Australian()
	train, test := TrainTest(d, 0.2, 7)
	if train.Len() != 552 || test.Len() != 138 {
		t.Errorf("sizes %d, %d", train.Len(), test.Len())
	}
	p := Split(d, []float64{0.8, 0.2}, 7)
	if !slices.Equal(train.Y, p[0].Y) || !mat.Equal(test.X, p[1].X) {
		t.Error("TrainTest differs from Split")
	}
}

func TestSplitPanics(t *testing.T) {
	for _, fracs := range [][]float64{nil, {0.5, 0.4}, {1.2, -0.2}, {0.5, 0.5, 0.1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic for %v", fracs)
				}
			}()
			Split(indexed(3), fracs, 0)
		}()
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for testFrac 1.5")
		}
	}()
	TrainTest(indexed(3), 1.5, 0)
}

func TestSubset(t *testing.T) {
	d := indexed(5)
	s := d.Subset([]int{4, 0, 4})
	checkDataset(t, s, []string{"a", "b"}, "i", []float64{4, -4, 0, 0, 4, -4}, []float64{4, 0, 4})
	s.Names[0] = "changed"
	if d.Names[0] != "a" {
		t.Error("Subset shares Names")
	}
	e := d.Subset(nil)
	if e.Len() != 0 || e.Dim() != 2 || e.X == nil {
		t.Errorf("empty subset: Len %d Dim %d", e.Len(), e.Dim())
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for index out of range")
		}
	}()
	d.Subset([]int{5})
}

// TestClone: the copy holds the same rows and is independent of d.
func TestClone(t *testing.T) {
	d := &Dataset{X: mat.NewDense(2, 2, []float64{1, 2, 3, 4}), Y: []float64{5, 6}, Names: []string{"a", "b"}, Target: "y"}
	c := d.Clone()
	if !mat.Equal(c.X, d.X) || c.Y[1] != 6 || c.Names[1] != "b" || c.Target != "y" {
		t.Fatalf("Clone = %+v", c)
	}
	c.X.Set(0, 0, 9)
	c.Y[0] = 9
	c.Names[0] = "z"
	if d.X.At(0, 0) != 1 || d.Y[0] != 5 || d.Names[0] != "a" {
		t.Errorf("changing the clone changed d: %+v", d)
	}
}

// A generated data set beyond MaxGenerated points is refused before any
// allocation, with the count and the bound.
func TestGeneratedBound(t *testing.T) {
	for _, name := range []string{"moons", "spirals", "gap1d"} {
		_, _, ok, err := Generated(name, GenOptions{N: 100_000_000, Noise: 0.1, K: 3, Seed: 1})
		if !ok || err == nil || !strings.Contains(err.Error(), "100000000 points: expected at most 10000000") {
			t.Errorf("%s: ok %v, err %v", name, ok, err)
		}
	}
}

// TrainTestOwned gives TrainTest's parts bit for bit (rows, labels, IDs),
// with no copy of the rows: the parts are views of the input's.
func TestTrainTestOwned(t *testing.T) {
	for _, n := range []int{0, 1, 5, 97, 690} {
		for _, frac := range []float64{0, 0.2, 0.5, 1} {
			mk := func() *Dataset {
				x := mat.NewDense(max(n, 1), 3, nil)
				d := &Dataset{Y: make([]float64, n), Names: []string{"a", "b", "c"}, IDs: make([]string, n)}
				for i := range n {
					for j := range 3 {
						x.Set(i, j, float64(10*i+j))
					}
					d.Y[i], d.IDs[i] = float64(i), fmt.Sprint("r", i)
				}
				if n > 0 {
					d.X = x
				}
				return d
			}
			wantTr, wantTe := TrainTest(mk(), frac, 7)
			own := mk()
			gotTr, gotTe := TrainTestOwned(own, frac, 7)
			for _, c := range [][2]*Dataset{{gotTr, wantTr}, {gotTe, wantTe}} {
				g, w := c[0], c[1]
				if g.Len() != w.Len() || !slices.Equal(g.Y, w.Y) || !slices.Equal(g.IDs, w.IDs) {
					t.Fatalf("n %d, frac %v: parts of %d rows (%v), want %d (%v)", n, frac, g.Len(), g.Y, w.Len(), w.Y)
				}
				for i := range g.Len() {
					if !slices.Equal(g.X.RawRowView(i), w.X.RawRowView(i)) {
						t.Fatalf("n %d, frac %v: row %d %v, want %v", n, frac, i, g.X.RawRowView(i), w.X.RawRowView(i))
					}
				}
			}
			if gotTr.Len() > 0 && &gotTr.X.RawRowView(0)[0] != &own.X.RawRowView(0)[0] {
				t.Errorf("n %d: the training part is a copy, not a view", n)
			}
		}
	}
}
