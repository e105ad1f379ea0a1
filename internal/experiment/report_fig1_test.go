package experiment

import (
	"context"
	"testing"
)

// TestReportFig1Claims checks the claim of report-fig1 at 20,000 steps:
// RWM and unadjusted Langevin spread over the target (sds within 25% of 1,
// correlation within 0.1 of 0.9) and gradient descent stops at the mode.
// The slip: gradient descent's path in a sampler's place must fail.
func TestReportFig1Claims(t *testing.T) {
	paths, err := reportFig1(context.Background(), 20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkReportFig1(paths); err != nil {
		t.Error(err)
	}
	slip := []fig1Path{paths[2], paths[1], paths[2]}
	if err := checkReportFig1(slip); err == nil {
		t.Error("gradient descent passed as a sampler")
	}
}
