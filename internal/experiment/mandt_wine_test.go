package experiment

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func wineForTest(t *testing.T) *wineSetup {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dataDir(), wineFile)); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not in %s (set $LANGEVIN_DATA)", wineFile, dataDir())
	}
	w, err := loadWine(dataDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMandtFig2PredictedCovariance checks Fig. 2's claim on the real data:
// the covariance of constant SGD's iterates at η* equals the predicted
// stationary covariance within Monte Carlo error, entry by entry; a
// prediction 10% off (η slipped by 10%) must fail the same check.
func TestMandtFig2PredictedCovariance(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 4 s of constant SGD")
	}
	w := wineForTest(t)
	r, err := mandtFig2(context.Background(), w, 4, 100_000, 7)
	if err != nil {
		t.Fatal(err)
	}
	worst, err := checkFig2(r.emp, r.se, r.disc)
	if err != nil {
		t.Error(err)
	}
	t.Logf("η* = %.3g; largest deviation %.1f MCSE; relative Frobenius distance %.3f (eq. 13: %.3f)", r.eta, worst, relFrob(r.emp, r.disc), relFrob(r.emp, r.eq13))
	slip, err := sgldStationaryCov(w.prec, w.gradNoise(), 1.1*r.eta, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkFig2(r.emp, r.se, slip); err == nil {
		t.Error("a prediction with η 10% too large passed the check")
	}
}
