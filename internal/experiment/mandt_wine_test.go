package experiment

import (
	"context"
	"errors"
	"github.com/langevin-go/langevin/diag"
	"io/fs"
	"math"
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

// TestMandtFig1Shapes checks Fig. 1's claims on both of its rows, the
// linear and the logistic regression of wine: with the optimal full
// preconditioner the iterates' covariance is the posterior's (projected sds
// within 12%, KL < 0.1), while constant SGD at η* and mean-field BBVI have
// the wrong shape (KL > 1; BBVI less than half as wide as the posterior
// along its largest principal component); and every method's projected sds
// are where the predictions put them (eq. 13, its preconditioned form,
// the mean-field optimum), within 4 Monte Carlo standard errors + 3%. The
// same 12% check against the posterior applied to constant SGD must fail.
func TestMandtFig1Shapes(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 6 s of SGD and BBVI")
	}
	w := wineForTest(t)
	wl, err := wineLogistic(dataDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range []*wineSetup{w, wl} {
		r, err := mandtFig1(context.Background(), ws, 100_000, 5)
		if err != nil {
			t.Fatal(err)
		}
		within := func(a, b [2][2]float64) bool {
			for k := 0; k < 2; k++ {
				if rel := math.Sqrt(a[k][k]/b[k][k]) - 1; math.Abs(rel) > 0.12 {
					return false
				}
			}
			return true
		}
		csgd, full, bbvi := r.methods[0], r.methods[1], r.methods[2]
		for _, m := range r.methods {
			t.Logf("%s, %-26s sds %.3g, %.3g (predicted %.3g, %.3g; posterior %.3g, %.3g), KL %.3g", ws.label, m.label, math.Sqrt(m.cov[0][0]), math.Sqrt(m.cov[1][1]), math.Sqrt(m.pred[0][0]), math.Sqrt(m.pred[1][1]), math.Sqrt(r.post[0][0]), math.Sqrt(r.post[1][1]), m.kl)
			// Against the prediction: 4 MCSE of an sd (1/√(2 ESS) relative,
			// the ESS of the projected points, a conservative proxy for that
			// of their squares) + 3%.
			for k, xs := range [][]float64{m.x, m.y} {
				ess := diag.ESSBasic([][]float64{xs})
				tol := 4/math.Sqrt(2*ess) + 0.03
				if rel := math.Sqrt(m.cov[k][k]/m.pred[k][k]) - 1; math.Abs(rel) > tol {
					t.Errorf("%s, %s, PC %d: sd %.3g, predicted %.3g (%+.1f%%, tolerance %.1f%% at ESS %.0f): not where the prediction puts it", ws.label, m.label, k+1, math.Sqrt(m.cov[k][k]), math.Sqrt(m.pred[k][k]), 100*rel, 100*tol, ess)
				}
			}
		}
		if !within(full.cov, r.post) || full.kl > 0.1 {
			t.Errorf("%s, full preconditioner: not the posterior's covariance (KL %.3g)", ws.label, full.kl)
		}
		if within(csgd.cov, r.post) || csgd.kl < 1 {
			t.Errorf("%s, constant SGD matched the posterior's shape (KL %.3g): the check cannot fail", ws.label, csgd.kl)
		}
		if bbvi.kl < 1 || math.Sqrt(bbvi.cov[0][0]) > 0.5*math.Sqrt(r.post[0][0]) {
			t.Errorf("%s, BBVI: KL %.3g, sd along the largest PC %.3g against %.3g", ws.label, bbvi.kl, math.Sqrt(bbvi.cov[0][0]), math.Sqrt(r.post[0][0]))
		}
	}
}
