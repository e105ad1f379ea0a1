package runctl

import (
	"math"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/internal/budget"
)

// TestProgressSaturates is row 5 of the hostile inputs (issue 24): the
// progress line's total of 4 chains × 2^63−1 iterations saturates instead
// of wrapping round to a negative count.
func TestProgressSaturates(t *testing.T) {
	p := NewProgress(nil, true, 4, math.MaxInt)
	if p.total <= 0 {
		t.Errorf("progress total of 4 chains × 2^63−1 iterations = %d, want positive (saturated)", p.total)
	}
	if budget.SatMul(math.MaxInt64/2, 3) != math.MaxInt64 || budget.SatAdd(math.MaxInt64, 1) != math.MaxInt64 || budget.SatMul(3, 4) != 12 {
		t.Errorf("SatMul/SatAdd do not saturate")
	}
}

// Under --sampler auto's ESS rule the progress line counts iterations and
// names the rule, instead of a percentage of the 4·10⁷-iteration bound.
func TestProgressUntilESS(t *testing.T) {
	var sb strings.Builder
	p := NewProgress(&sb, false, 4, 10_000_000)
	p.Until = "until min bulk-ESS ≥ 400"
	p.Update(0, 1200)
	p.draw(false)
	if got := sb.String(); !strings.Contains(got, "1200 iterations") || strings.Contains(got, "%") || !strings.Contains(got, "bulk-ESS ≥ 400") {
		t.Errorf("progress line %q", got)
	}
}
