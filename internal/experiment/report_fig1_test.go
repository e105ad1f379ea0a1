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

// TestReportFig1DefaultLength: the figure as drawn by default (2000 steps,
// seed 1) makes the claim too — the Langevin panel fills the target
// (correlation 0.866 of its second half, the unadjusted step's own
// stationary 0.871 by the Lyapunov equation; sds 1.02 and 1.00) — while the
// old default of 600 steps (correlation 0.58: 8 correlation times of the
// long axis) fails the same check.
func TestReportFig1DefaultLength(t *testing.T) {
	paths, err := reportFig1(context.Background(), 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkReportFig1(paths); err != nil {
		t.Errorf("at the default length: %v", err)
	}
	short, err := reportFig1(context.Background(), 600, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkReportFig1(short); err == nil {
		t.Error("600 steps passed: the check does not see a panel that does not fill the target")
	}
}
