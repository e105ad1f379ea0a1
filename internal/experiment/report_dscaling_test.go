package experiment

import (
	"context"
	"testing"
)

// TestStepsShrinkWithDimension: "the step must shrink as d grows", at four
// dimensions, not one. Dual averaging to the optimal acceptance on N(0, I_d),
// d = 10, 40, 160, 640, keeps RWM steps that scale as d^(−1/2) and MALA
// steps as d^(−1/3) (log-log slopes within 0.06); MALA at the step kept in
// d = 10 — a step that does not shrink — falls from 0.57 to an acceptance
// below 0.1 at d = 640, and its constant steps, run through the same
// exponent check, fail it.
func TestStepsShrinkWithDimension(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 2 s of RWM and MALA in four dimensions")
	}
	ds := []int{10, 40, 160, 640}
	rows, err := stepsByDimension(context.Background(), ds, 3000, 4000, 5)
	if err != nil {
		t.Fatal(err)
	}
	var rwm, mala, fixed []float64
	for _, r := range rows {
		t.Logf("d = %4d: RWM step %.4f (acc %.3f), MALA step %.4f (acc %.3f), MALA at d = 10's step: acc %.3f", r.d, r.rwmStep, r.rwmAcc, r.malaStep, r.malaAcc, r.malaAccAtFirstStep)
		rwm, mala, fixed = append(rwm, r.rwmStep), append(mala, r.malaStep), append(fixed, rows[0].malaStep)
	}
	if s, err := checkStepExponent("RWM", ds, rwm, -0.5, 0.06); err != nil {
		t.Error(err)
	} else {
		t.Logf("RWM: d^%.3f", s)
	}
	if s, err := checkStepExponent("MALA", ds, mala, -1.0/3, 0.06); err != nil {
		t.Error(err)
	} else {
		t.Logf("MALA: d^%.3f", s)
	}
	if last := rows[len(rows)-1]; last.malaAccAtFirstStep > 0.1 {
		t.Errorf("MALA at d = 10's step still accepts %.3f at d = %d: want < 0.1", last.malaAccAtFirstStep, last.d)
	}
	if _, err := checkStepExponent("MALA at one step", ds, fixed, -1.0/3, 0.06); err == nil {
		t.Error("a step that does not shrink passed the exponent check")
	}
}
