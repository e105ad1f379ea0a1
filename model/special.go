package model

import "math"

// trigamma returns ψ′(x) = d²/dx² log Γ(x), the derivative of the digamma
// function. gonum's mathext has Digamma but no trigamma.
//
// For x < 0 it uses the reflection ψ′(1 − x) + ψ′(x) = π²/sin²(πx); it then
// applies the recurrence ψ′(x) = ψ′(x + 1) + 1/x² until x ≥ 10 and finishes
// with the asymptotic series
//
//	ψ′(x) ≈ 1/x + 1/(2x²) + Σₖ B₂ₖ/x^(2k+1)
//	      = 1/x + 1/(2x²) + 1/(6x³) − 1/(30x⁵) + 1/(42x⁷) − 1/(30x⁹)
//	        + 5/(66x¹¹) − 691/(2730x¹³) + 7/(6x¹⁵),
//
// whose truncation error at x ≥ 10 is below 3617/510·10⁻¹⁷ < 10⁻¹⁶.
// It returns +Inf at the poles x = 0, −1, −2, … and NaN for NaN or −Inf.
func trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0 && x == math.Floor(x):
		return math.Inf(1)
	case x < 0:
		s := math.Sin(math.Pi * x)
		return math.Pi*math.Pi/(s*s) - trigamma(1-x)
	}
	var r float64
	for ; x < 10; x++ {
		r += 1 / (x * x)
	}
	z := 1 / x
	z2 := z * z
	return r + z + z2/2 + z*z2*(1.0/6+z2*(-1.0/30+z2*(1.0/42+z2*(-1.0/30+z2*(5.0/66+z2*(-691.0/2730+z2*7.0/6))))))
}
