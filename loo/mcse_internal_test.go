package loo

import (
	"math"
	"testing"
)

// logVarDirect is the sample variance of log(e + sd·zᵣ) over the positive
// arguments, by 1000 logarithms, as loo's mcse_elpd.
func logVarDirect(e, sd float64) float64 {
	var l []float64
	var m float64
	for _, q := range blom() {
		if a := e + sd*q; a > 0 {
			l = append(l, math.Log(a))
			m += math.Log(a)
		}
	}
	m /= float64(len(l))
	var ss float64
	for _, v := range l {
		ss += (v - m) * (v - m)
	}
	return ss / float64(len(l)-1)
}

// TestLogVar checks the series against the logarithms on both sides of the
// switch, at scales from 1e-300 to 1e300.
func TestLogVar(t *testing.T) {
	_, zmax := logVarCoef()
	for _, e := range []float64{1e-300, 1e-5, 0.37, 1, 1e300} {
		for _, u := range []float64{0, 1e-9, 1e-4, 0.01, 0.05, 0.097, mcseSeriesMax / zmax, 0.1, 0.2, 0.5, 2} {
			got, want := logVar(e, u*e, nil), logVarDirect(e, u*e)
			if u == 0 {
				if got != 0 {
					t.Errorf("e=%g u=0: %g, want 0", e, got)
				}
				continue
			}
			// the direct sum loses ~eps·(1 + |log e|)/u of its own
			tol := 1e-13 + 4e-16*(1+math.Abs(math.Log(e)))/u
			if r := math.Abs(got-want) / want; !(r <= tol) {
				t.Errorf("e=%g u=%g: %.17g, logs %.17g (rel %.2g > %.2g)", e, u, got, want, r, tol)
			}
		}
	}
}
