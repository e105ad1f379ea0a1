package loo_test

import (
	"math"
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
