package experiment

import (
	"context"
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
