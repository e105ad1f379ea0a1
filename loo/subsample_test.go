package loo_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/langevin-go/langevin/loo"
)

// TestSubsampleAgainstR checks Subsample against loo_subsample (plpd,
// diff_srs) on 15 of the 40 rows of the linear fixture: the exact points of
// the sampled rows by Workspace.Row, the approximations from loo.
func TestSubsampleAgainstR(t *testing.T) {
	ll := readMatrix(t, "linear")
	approx := floats(t, readTable(t, "subsample_approx")["approx"])
	var idx []int
	for _, s := range readTable(t, "subsample_idx")["idx"] {
		i, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		idx = append(idx, i-1)
	}
	var w loo.Workspace
	pts := make([]loo.Point, len(idx))
	for j, i := range idx {
		pts[j] = w.Row(ll.RawRowView(i), fixtureChains)
	}
	got, err := loo.Subsample(approx, idx, pts)
	if err != nil {
		t.Fatal(err)
	}
	want := estimates(t, "subsample")
	var worst float64
	for _, c := range []struct {
		name string
		v    float64
	}{
		{"elpd_loo", got.ELPD.Estimate}, {"se_elpd_loo", got.ELPD.SE}, {"subsampling_se_elpd_loo", got.SubsamplingSE.ELPD},
		{"p_loo", got.PLoo.Estimate}, {"se_p_loo", got.PLoo.SE}, {"subsampling_se_p_loo", got.SubsamplingSE.PLoo},
		{"looic", got.LooIC.Estimate}, {"se_looic", got.LooIC.SE},
	} {
		e := relErr(c.v, want[c.name])
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("%s = %.12g, loo_subsample %.12g (rel %.2g)", c.name, c.v, want[c.name], e)
		}
	}
	t.Logf("largest relative error against loo_subsample: %.2g", worst)

	// all rows sampled: the estimate is the full PSIS-LOO, with no
	// subsampling error, and the data SE that of the N-denominator
	// variance (√((N − 1)/N) times Result's)
	full, err := loo.LOO(oneBlock(ll), fixtureChains)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(approx))
	for i := range all {
		all[i] = i
	}
	s, err := loo.Subsample(approx, all, full.Pointwise)
	if err != nil {
		t.Fatal(err)
	}
	if relErr(s.ELPD.Estimate, full.ELPD.Estimate) > 1e-12 || s.SubsamplingSE.ELPD != 0 || relErr(s.ELPD.SE, full.ELPD.SE*math.Sqrt(39.0/40)) > 1e-9 {
		t.Errorf("every row sampled: %+v, full %+v", s.ELPD, full.ELPD)
	}
	for _, bad := range [][]int{{0}, {0, 0}, {0, 40}, {-1, 3}} {
		if _, err := loo.Subsample(approx, bad, make([]loo.Point, len(bad))); err == nil {
			t.Errorf("rows %v: no error", bad)
		}
	}
}

// TestSubsampleLargeAgainstR checks Subsample against loo_subsample (plpd,
// diff_srs) on a logistic regression of 100,000 rows, the 500 sampled rows
// given (make_subsample_large.R): the design from its formula, the draws and
// labels from the fixture, the log-likelihoods and the approximations at
// the posterior mean computed here.
func TestSubsampleLargeAgainstR(t *testing.T) {
	tab := readTable(t, "subsample_large_draws")
	b0, b1, b2 := floats(t, tab["b0"]), floats(t, tab["b1"]), floats(t, tab["b2"])
	S := len(b0)
	f, err := os.Open(filepath.Join("testdata", "subsample_large_y.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	ys = bytes.TrimSpace(ys)
	const N = 100000
	if len(ys) != N {
		t.Fatalf("%d labels, want %d", len(ys), N)
	}
	// log σ(±η), the sign by the label
	ll := func(i int, c0, c1, c2 float64) float64 {
		k := float64(i + 1)
		eta := c0 + c1*math.Sin(0.7*k) + c2*1.5*math.Cos(1.3*k)
		if ys[i] == '0' {
			eta = -eta
		}
		if eta > 0 {
			return -math.Log1p(math.Exp(-eta))
		}
		return eta - math.Log1p(math.Exp(eta))
	}
	var m0, m1, m2 float64
	for s := range S {
		m0, m1, m2 = m0+b0[s]/float64(S), m1+b1[s]/float64(S), m2+b2[s]/float64(S)
	}
	approx := make([]float64, N)
	for i := range approx {
		approx[i] = ll(i, m0, m1, m2)
	}
	var idx []int
	for _, s := range readTable(t, "subsample_large_idx")["idx"] {
		i, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		idx = append(idx, i-1)
	}
	var w loo.Workspace
	row := make([]float64, S)
	pts := make([]loo.Point, len(idx))
	for j, i := range idx {
		for s := range S {
			row[s] = ll(i, b0[s], b1[s], b2[s])
		}
		pts[j] = w.Row(row, 4)
	}
	got, err := loo.Subsample(approx, idx, pts)
	if err != nil {
		t.Fatal(err)
	}
	want := estimates(t, "subsample_large")
	var worst float64
	for _, c := range []struct {
		name string
		v    float64
	}{
		{"elpd_loo", got.ELPD.Estimate}, {"se_elpd_loo", got.ELPD.SE}, {"subsampling_se_elpd_loo", got.SubsamplingSE.ELPD},
		{"p_loo", got.PLoo.Estimate}, {"se_p_loo", got.PLoo.SE}, {"subsampling_se_p_loo", got.SubsamplingSE.PLoo},
		{"looic", got.LooIC.Estimate}, {"se_looic", got.LooIC.SE},
	} {
		e := relErr(c.v, want[c.name])
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("%s = %.12g, loo_subsample %.12g (rel %.2g)", c.name, c.v, want[c.name], e)
		}
	}
	t.Logf("N = 100,000, m = %d: largest relative error against loo_subsample: %.2g", len(idx), worst)
}
