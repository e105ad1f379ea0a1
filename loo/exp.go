package loo

import "math"

// expTab holds the bits of 2^(j/256), j = 0…255.
var expTab = func() (t [256]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j) / 256))
	}
	return t
}()

// expNeg returns eˣ for x ≤ 0 to within 2 ulp of math.Exp and about twice
// as fast, for the loops of Row: with k = round(256x/ln 2),
// x = k·ln2/256 + r, |r| ≤ ln2/512, eˣ = 2^(k/256)·e^r, 2^(k/256) from a
// table of 256 values whose exponent is shifted by ⌊k/256⌋ (an integer
// addition), e^r by its Taylor polynomial of degree 4 (error below
// r⁵/120 ≈ 4e-17). Below −700 it is math.Exp (subnormal results).
func expNeg(x float64) float64 {
	if !(x >= -700 && x <= 0) {
		return math.Exp(x)
	}
	const (
		inv   = 256 / math.Ln2
		ln2hi = 6.93147180369123816490e-01 / 256 // ln2/256 to 32 significant bits: k·ln2hi is exact
		ln2lo = math.Ln2/256 - ln2hi
		magic = 6755399441055744.0 // 1.5·2⁵²: adding it rounds to an integer
	)
	t := x*inv + magic
	k := int64(math.Float64bits(t)) - int64(math.Float64bits(magic))
	kf := t - magic
	r := (x - kf*ln2hi) - kf*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
	return math.Float64frombits(expTab[k&255]+uint64(k>>8)<<52) * p
}

// expTabInv holds the bits of 2^(−j/256), j = 0…255.
var expTabInv = func() (t [256]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(-float64(j) / 256))
	}
	return t
}()

// expShift sets dst[s] = e^(src[s] − c), each as expNeg (c ≥ every
// src[s]), and inv[s] = e^(c − src[s]) to the same accuracy, and returns the
// sum of dst and the smallest src[s]: expNeg written out in the loop, which
// a call a value would slow by half, its polynomial split into even and odd
// parts E and O for e^r = E + O and e^(−r) = E − O. Where e^(c − src[s])
// would overflow (src[s] − c < −700), inv[s] is math.Exp's.
func expShift(dst, inv, src []float64, c float64) (sum, lo float64) {
	const (
		scale = 256 / math.Ln2
		ln2hi = 6.93147180369123816490e-01 / 256
		ln2lo = math.Ln2/256 - ln2hi
		magic = 6755399441055744.0
	)
	dst, inv = dst[:len(src)], inv[:len(src)]
	lo = c
	for s, v := range src {
		if v < lo {
			lo = v
		}
		x := v - c
		var e, ei float64
		if x >= -700 && x <= 0 {
			t := x*scale + magic
			k := int64(math.Float64bits(t)) - int64(math.Float64bits(magic))
			kf := t - magic
			r := (x - kf*ln2hi) - kf*ln2lo
			r2 := r * r
			E := 1 + r2*(1.0/2+r2*(1.0/24))
			O := r * (1 + r2*(1.0/6))
			e = math.Float64frombits(expTab[k&255]+uint64(k>>8)<<52) * (E + O)
			ei = math.Float64frombits(expTabInv[k&255]-uint64(k>>8)<<52) * (E - O)
		} else {
			e, ei = math.Exp(x), math.Exp(-x)
		}
		dst[s], inv[s] = e, ei
		sum += e
	}
	return sum, lo
}

// logTab holds, for j = 0…96, cⱼ = 3/4 + j/128, 1/cⱼ and log cⱼ.
var logTab = func() (t [97][3]float64) {
	for j := range t {
		c := 0.75 + float64(j)/128
		t[j] = [3]float64{c, 1 / c, math.Log(c)}
	}
	return t
}()

// logPos returns log x for x > 0 to within a few ulp of math.Log, faster in
// Row's loops: with x = 2^e·m, m ∈ [3/4, 3/2), cⱼ the nearest of the table's
// points 3/4 + j/128 (c = 1 exactly for m within 1/256 of 1, so that log x
// near 0 keeps its relative precision), log x = e·ln 2 + log cⱼ + log(1 + r),
// r = (m − cⱼ)/cⱼ, |r| ≤ 1/192, the last by its Taylor polynomial of degree
// 7 (error below r⁸/8 ≈ 6e-20). Subnormal, zero, negative, infinite and NaN
// x go to math.Log.
func logPos(x float64) float64 {
	if x < 0x1p-1022 || x > math.MaxFloat64 || x != x {
		return math.Log(x)
	}
	const (
		ln2hi = 6.93147180369123816490e-01 // 32 significant bits: e·ln2hi is exact
		ln2lo = math.Ln2 - ln2hi
	)
	b := math.Float64bits(x)
	e := int(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m >= 1.5 {
		m /= 2
		e++
	}
	j := int((m-0.75)*128 + 0.5)
	t := &logTab[j]
	r := (m - t[0]) * t[1]
	p := r * (1 - r*(1.0/2-r*(1.0/3-r*(1.0/4-r*(1.0/5-r*(1.0/6-r*(1.0/7)))))))
	fe := float64(e)
	return fe*ln2hi + (t[2] + (p + fe*ln2lo))
}
