package loo

import "math"

// expTab holds 2^(j/64), j = 0…63.
var expTab = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// exp returns eˣ for x ≤ 0 to within 2 ulp of math.Exp, about three times
// as fast in the loops of Row: with k = round(64x/ln 2), x = k·ln2/64 + r,
// |r| ≤ ln2/128, eˣ = 2^(k/64)·e^r, 2^(k/64) from a table of 64 values and
// an exponent, e^r by its Taylor polynomial of degree 5 (error below
// r⁶/720 ≈ 4e-17). Below −700 it is math.Exp (subnormal results).
func exp(x float64) float64 {
	if !(x >= -700 && x <= 0) {
		return math.Exp(x)
	}
	const (
		inv   = 64 / math.Ln2
		ln2hi = 6.93147180369123816490e-01 / 64 // ln2/64 to 32 significant bits: k·ln2hi is exact
		ln2lo = math.Ln2/64 - ln2hi
		magic = 6755399441055744.0 // 1.5·2⁵²: adding it rounds to an integer
	)
	t := x*inv + magic
	k := int64(math.Float64bits(t)) - int64(math.Float64bits(magic))
	kf := t - magic
	r := (x - kf*ln2hi) - kf*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	scale := math.Float64frombits(uint64(1023+(k>>6)) << 52)
	return expTab[k&63] * p * scale
}
