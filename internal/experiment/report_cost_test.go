package experiment

import (
	"context"
	"testing"
)

// TestReportCostScaling checks §4.5's claim: from N = 10³ to 10⁵ SGLD's CPU
// time per iteration grows less than 10× (its batch is fixed; what growth
// there is comes from cache misses over a larger table), MALA's and RWM's
// more than 30× (they read every row: 100× the rows). A full-batch "SGLD"
// would fail the first check; the columns swapped fail both.
func TestReportCostScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 1 s of CPU")
	}
	rows, err := reportCost(context.Background(), []int{1000, 100_000}, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rows[0], rows[1]
	t.Logf("N = 10³: SGLD %v, MALA %v, RWM %v; N = 10⁵: SGLD %v, MALA %v, RWM %v", a.sgld, a.mala, a.rwm, b.sgld, b.mala, b.rwm)
	check := func(name string, lo, hi float64, wantConst bool) bool {
		r := hi / lo
		if wantConst {
			return r < 10
		}
		return r > 30
	}
	if !check("SGLD", float64(a.sgld), float64(b.sgld), true) {
		t.Errorf("SGLD's cost grew %.1f× with 100× the rows", float64(b.sgld)/float64(a.sgld))
	}
	if !check("MALA", float64(a.mala), float64(b.mala), false) || !check("RWM", float64(a.rwm), float64(b.rwm), false) {
		t.Errorf("full-data costs grew %.1f× (MALA) and %.1f× (RWM) with 100× the rows", float64(b.mala)/float64(a.mala), float64(b.rwm)/float64(a.rwm))
	}
	if check("slip", float64(a.mala), float64(b.mala), true) {
		t.Error("MALA's cost passed as constant in N")
	}
}
