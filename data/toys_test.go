package data_test

import (
	"bufio"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestMoonsMatchesScikitLearn compares the noiseless geometry with points
// written by scikit-learn's make_moons(n, noise=None, shuffle=False)
// (testdata/moons_sklearn.csv): as sets of (x1, x2, y) rows, since the
// shuffles differ.
func TestMoonsMatchesScikitLearn(t *testing.T) {
	t.Parallel()
	fh, err := os.Open("testdata/moons_sklearn.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	want := map[int][][3]float64{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "n,") {
			continue
		}
		f := strings.Split(line, ",")
		var v [4]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(f[j], 64); err != nil {
				t.Fatal(err)
			}
		}
		want[int(v[0])] = append(want[int(v[0])], [3]float64{v[1], v[2], v[3]})
	}
	if len(want) == 0 {
		t.Fatal("empty fixture")
	}
	for n, rows := range want {
		d, err := data.Moons(n, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := make([][3]float64, n)
		for i := range got {
			got[i] = [3]float64{d.X.At(i, 0), d.X.At(i, 1), d.Y[i]}
		}
		sortRows(got)
		sortRows(rows)
		for i := range rows {
			for j := 0; j < 3; j++ {
				if math.Abs(got[i][j]-rows[i][j]) > 1e-15 {
					t.Errorf("n = %d: row %v, scikit-learn %v", n, got[i], rows[i])
					break
				}
			}
		}
	}
}

func sortRows(r [][3]float64) {
	sort.Slice(r, func(i, j int) bool {
		for k := 0; k < 3; k++ {
			if r[i][k] != r[j][k] {
				return r[i][k] < r[j][k]
			}
		}
		return false
	})
}

func TestToys(t *testing.T) {
	t.Parallel()
	m, err := data.Moons(1000, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ones float64
	for _, v := range m.Y {
		ones += v
	}
	if m.Len() != 1000 || ones != 500 {
		t.Errorf("moons: %d rows, %v of class 1", m.Len(), ones)
	}
	m2, _ := data.Moons(1000, 0.1, 3)
	if !slices.Equal(m.X.RawMatrix().Data, m2.X.RawMatrix().Data) {
		t.Error("moons: same seed, different points")
	}
	s, err := data.Spirals(3, 200, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[float64]int{}
	for i, v := range s.Y {
		counts[v]++
		if r := math.Hypot(s.X.At(i, 0), s.X.At(i, 1)); r > 1+1e-12 {
			t.Errorf("spirals: radius %v > 1", r)
		}
	}
	if len(counts) != 3 || counts[0] != 200 || counts[2] != 200 {
		t.Errorf("spirals: class counts %v", counts)
	}
	g, err := data.Gap1D(200, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < g.Len(); i++ {
		if x := g.X.At(i, 0); math.Abs(x) < 0.5 || math.Abs(x) > 2 {
			t.Errorf("gap1d: x = %v inside the gap or outside [−2, 2]", x)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := data.Moons(1, 0.1, 1); return err },
		func() error { _, err := data.Moons(10, -1, 1); return err },
		func() error { _, err := data.Spirals(1, 10, 0.1, 1); return err },
		func() error { _, err := data.SpiralsFrom(3, 10, 1, 0.1, 1); return err },
		func() error { _, err := data.SpiralsFrom(3, 10, math.NaN(), 0.1, 1); return err },
		func() error { _, err := data.Gap1D(10, math.NaN(), 1); return err },
	} {
		if bad() == nil {
			t.Error("bad argument: no error")
		}
	}
}

// TestSpiralsFrom: SpiralsFrom(…, r0 = 0, …) is Spirals; with r0 > 0 the
// radii lie in [r0, 1] and, without noise, points of different arms are
// apart (with r0 = 0 all arms meet at the origin).
func TestSpiralsFrom(t *testing.T) {
	a, _ := data.Spirals(3, 200, 0.2, 1)
	b, err := data.SpiralsFrom(3, 200, 0, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X.RawMatrix().Data, b.X.RawMatrix().Data) || !slices.Equal(a.Y, b.Y) {
		t.Error("SpiralsFrom with r0 = 0 differs from Spirals")
	}
	const r0 = 1.0 / 13
	s, err := data.SpiralsFrom(3, 200, r0, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < s.Len(); i++ {
		if r := math.Hypot(s.X.At(i, 0), s.X.At(i, 1)); r < r0-1e-12 || r > 1+1e-12 {
			t.Errorf("radius %v outside [%v, 1]", r, r0)
		}
	}
	// closest pair of points of different classes, without noise
	gap := func(d *data.Dataset) float64 {
		best := math.Inf(1)
		for i := 0; i < d.Len(); i++ {
			for j := 0; j < i; j++ {
				if d.Y[i] != d.Y[j] {
					best = min(best, math.Hypot(d.X.At(i, 0)-d.X.At(j, 0), d.X.At(i, 1)-d.X.At(j, 1)))
				}
			}
		}
		return best
	}
	s0, _ := data.Spirals(3, 200, 0, 1)
	s1, _ := data.SpiralsFrom(3, 200, r0, 0, 1)
	if g0, g1 := gap(s0), gap(s1); g0 != 0 || g1 < 0.1 {
		t.Errorf("closest points of different arms: %v with r0 = 0 (want 0), %v with r0 = 1/13 (want ≥ 0.1)", g0, g1)
	}
}

func TestGenerated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		rows int
	}{{"moons", 100}, {"Spirals", 99}, {"gap1d", 100}} {
		d, test, ok, err := data.Generated(c.name, data.GenOptions{N: 100, Noise: 0.1, K: 3, Seed: 1})
		if err != nil || !ok || test != nil || d.Len() != c.rows {
			t.Errorf("%s: %v rows, ok %v, err %v; want %d", c.name, d, ok, err, c.rows)
		}
	}
	if _, _, ok, err := data.Generated("australian", data.GenOptions{}); ok || err != nil {
		t.Errorf("australian: ok %v, err %v; want not generated", ok, err)
	}
	if _, _, ok, err := data.Generated("spirals", data.GenOptions{N: 10, K: 1}); !ok || err == nil {
		t.Errorf("one arm: ok %v, err %v; want an error", ok, err)
	}
}
