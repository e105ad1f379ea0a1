package loo_test

import (
	"compress/gzip"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/loo"
)

// readMatrix reads testdata/name.csv.gz, one row of numbers a line.
func readMatrix(t testing.TB, name string) *mat.Dense {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(z).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := mat.NewDense(len(recs), len(recs[0]), nil)
	for i, r := range recs {
		for j, s := range r {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			m.Set(i, j, v)
		}
	}
	return m
}

// readTable reads testdata/name.csv with a header line into columns.
func readTable(t testing.TB, name string) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range recs[1:] {
		for j, s := range r {
			out[recs[0][j]] = append(out[recs[0][j]], s)
		}
	}
	return out
}

func floats(t testing.TB, s []string) []float64 {
	t.Helper()
	x := make([]float64, len(s))
	for i, v := range s {
		if v == "NA" {
			x[i] = math.NaN()
			continue
		}
		var err error
		if x[i], err = strconv.ParseFloat(v, 64); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

// estimates reads testdata/name_estimates.csv into a map.
func estimates(t testing.TB, name string) map[string]float64 {
	tab := readTable(t, name+"_estimates")
	v := floats(t, tab["value"])
	out := map[string]float64{}
	for i, n := range tab["name"] {
		out[n] = v[i]
	}
	return out
}

// oneBlock yields m as a single block.
func oneBlock(m *mat.Dense) loo.Blocks {
	return func(yield func(*mat.Dense, error) bool) { yield(m, nil) }
}

// blocksOf yields the rows of m n at a time.
func blocksOf(m *mat.Dense, n int) loo.Blocks {
	return func(yield func(*mat.Dense, error) bool) {
		r, c := m.Dims()
		for i := 0; i < r; i += n {
			if !yield(m.Slice(i, min(i+n, r), 0, c).(*mat.Dense), nil) {
				return
			}
		}
	}
}

func relErr(got, want float64) float64 {
	if got == want || math.IsNaN(got) && math.IsNaN(want) {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

var fixtures = []string{"linear", "linear_scaled", "linear_nox2", "linear_x3", "logistic", "varying", "multimodal", "mlp"}

const fixtureChains = 4

func TestLOOAgainstR(t *testing.T) {
	worst := map[string]float64{}
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			ll := readMatrix(t, name)
			res, err := loo.LOO(blocksOf(ll, 7), fixtureChains)
			if err != nil {
				t.Fatal(err)
			}
			pw := readTable(t, name+"_pointwise")
			cols := []struct {
				col string
				get func(loo.Point) float64
			}{
				{"elpd_loo", func(p loo.Point) float64 { return p.ELPD }},
				{"mcse_elpd_loo", func(p loo.Point) float64 { return p.MCSE }},
				{"p_loo", func(p loo.Point) float64 { return p.PLoo }},
				{"looic", func(p loo.Point) float64 { return p.LooIC }},
				{"influence_pareto_k", func(p loo.Point) float64 { return p.K }},
				{"n_eff", func(p loo.Point) float64 { return p.NEff }},
				{"r_eff", func(p loo.Point) float64 { return p.REff }},
			}
			for _, c := range cols {
				want := floats(t, pw[c.col])
				for i, w := range want {
					got := c.get(res.Pointwise[i])
					e := relErr(got, w)
					worst[c.col] = math.Max(worst[c.col], e)
					if e > 1e-6 {
						t.Errorf("row %d %s = %.12g, loo %.12g (rel %.2g)", i+1, c.col, got, w, e)
					}
				}
			}
			est := estimates(t, name)
			for _, c := range []struct {
				name string
				got  float64
			}{
				{"elpd_loo", res.ELPD.Estimate}, {"se_elpd_loo", res.ELPD.SE},
				{"p_loo", res.PLoo.Estimate}, {"se_p_loo", res.PLoo.SE},
				{"looic", res.LooIC.Estimate}, {"se_looic", res.LooIC.SE},
				{"mcse_elpd_loo", res.MCSE},
			} {
				e := relErr(c.got, est[c.name])
				worst[c.name] = math.Max(worst[c.name], e)
				if e > 1e-6 {
					t.Errorf("%s = %.12g, loo %.12g (rel %.2g)", c.name, c.got, est[c.name], e)
				}
			}
			for b, n := range []string{"count_good", "count_ok", "count_bad", "count_very_bad"} {
				if got := res.Bands[b].Count; float64(got) != est[n] {
					t.Errorf("%s = %d, loo %v", n, got, est[n])
				}
			}
		})
	}
	t.Logf("largest relative errors against loo 2.5.1: %v", worst)
}
