package formula

import (
	"strings"
	"testing"
)

// TestPredictionCSVHeader: the interval columns are named by their
// quantiles as a user writes them (q5, q95 at level 0.9), not by their
// floating-point residue (q4.999999999999999).
func TestPredictionCSVHeader(t *testing.T) {
	for level, want := range map[float64]string{0.9: "row,mean,q5,q95\n", 0.8: "row,mean,q10,q90\n", 0.95: "row,mean,q2.5,q97.5\n"} {
		var sb strings.Builder
		if err := (&PredictionSummary{Level: level}).WriteCSV(&sb); err != nil {
			t.Fatal(err)
		}
		if sb.String() != want {
			t.Errorf("level %g: header %q, want %q", level, sb.String(), want)
		}
	}
}
