package experiment

import (
	"context"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/plot"
)

// TestDiagnosticsClaims checks the claims of the diagnostic pictures: the
// credit posterior predictive is calibrated within binomial error in every
// well-filled bin; the normal linear model passes its posterior predictive
// checks on the lecture data (every p-value in (0.01, 0.99)) and fails the
// maximum and kurtosis checks on heavy-tailed data (p < 0.01), which shows
// the check can fail.
func TestDiagnosticsClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 3 s of NUTS and replications")
	}
	bma, _, y, err := reliabilityCredit(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkCalibration(bma, y, 10); err != nil {
		t.Error(err)
	}
	well, err := ppcLinear("lecture", data.Lecture(), 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	heavy, err := ppcLinear("heavy", heavyTailed(1), 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	for j, s := range well.stats {
		if p := plot.PPCPValue(well.observed[j], well.rep[j]); p < 0.01 || p > 0.99 {
			t.Errorf("lecture data, %s: p = %.3f, want in (0.01, 0.99)", s, p)
		}
	}
	for _, j := range []int{2, 3} {
		if p := plot.PPCPValue(heavy.observed[j], heavy.rep[j]); p > 0.01 {
			t.Errorf("heavy-tailed data, %s: p = %.3f, want < 0.01", heavy.stats[j], p)
		}
	}
}
