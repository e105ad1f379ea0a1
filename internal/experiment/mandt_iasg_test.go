package experiment

import (
	"context"
	"math"
	"testing"
)

// TestMandtFig3IASGCovariance checks Fig. 3's claim: IASG's averaged draws
// (ε = 0.005, S = 1, window 10⁴) have the posterior's covariance, every
// entry within 4 MCSEs plus 3% of the posterior sds. A window of 10³ (a
// tenth of a pass: its means are about 10× too variable) must fail.
func TestMandtFig3IASGCovariance(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 4 s of IASG")
	}
	r, err := mandtFig3(context.Background(), 1000, 10_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	worst, err := checkCov(r.emp, r.se, r.post, 4, 0.03)
	if err != nil {
		t.Error(err)
	}
	t.Logf("largest deviation %.1f MCSE; relative Frobenius distance %.3f", worst, relFrob(r.emp, r.post))
	slip, err := mandtFig3(context.Background(), 200, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkCov(slip.emp, slip.se, slip.post, 4, 0.03); err == nil {
		t.Error("a window of 10³ passed the check")
	}
}

// TestMandtFig5ByInit checks Fig. 5's claims at 256 passes (3 repeats):
// IASG's variance estimate is within 10% of the exact one from either
// start, SGLD's decaying schedule still overestimates it more than 2×, and
// the two starts agree within 4 standard errors plus 5% for IASG and SGLD.
func TestMandtFig5ByInit(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 3 s of IASG, SGLD and NUTS")
	}
	curves, err := mandtFig5(context.Background(), 256, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	final := map[string][2]float64{}
	for _, c := range curves {
		m, se := c.meanSE()
		final[c.method+"/"+c.init] = [2]float64{m[len(m)-1], se[len(se)-1]}
		t.Logf("%s from the %s: %.3f ± %.3f", c.method, c.init, m[len(m)-1], se[len(se)-1])
	}
	for _, ini := range fig5Inits {
		if v := final["IASG/"+ini][0]; math.Abs(v-1) > 0.1 {
			t.Errorf("IASG from the %s: variance ratio %.3f; want within 10%% of 1", ini, v)
		}
		if v := final["SGLD/"+ini][0]; v < 2 {
			t.Errorf("SGLD from the %s: variance ratio %.3f; want > 2 (its decaying steps)", ini, v)
		}
	}
	for _, meth := range []string{"IASG", "SGLD"} {
		a, b := final[meth+"/mode"], final[meth+"/random"]
		if math.Abs(a[0]-b[0]) > 4*math.Hypot(a[1], b[1])+0.05*a[0] {
			t.Errorf("%s: the mode start gives %.3f ± %.3f, the random one %.3f ± %.3f", meth, a[0], a[1], b[0], b[1])
		}
	}
}
