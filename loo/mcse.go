package loo

import (
	"math"
	"sync"
)

// mcseSeriesMax is the largest u·max|zᵣ| for which logVar uses its series:
// the terms it drops are below 0.3⁴⁰ ≈ 1e-21 of the variance.
const mcseSeriesMax = 0.3

// mcseDegree is the number of coefficients of logVar's series.
const mcseDegree = 40

// logVarCoef holds Aⱼ, j = 2…mcseDegree+1, of
//
//	var_r log(1 + u·zᵣ) = Σⱼ Aⱼ uʲ,   Aⱼ = n/(n−1) Σ_{k+l=j} cₖcₗ(μⱼ − μₖμₗ),
//
// the sample variance (denominator n − 1) over loo's n = 1000 normal
// quantiles zᵣ (blom), from log(1 + x) = Σₖ cₖxᵏ, cₖ = (−1)ᵏ⁺¹/k, and the
// quantiles' moments μⱼ = mean zᵣʲ; and the largest |zᵣ|.
var logVarCoef = sync.OnceValues(func() ([]float64, float64) {
	z := blom()
	n := float64(len(z))
	J := mcseDegree + 1
	mu := make([]float64, J+1)
	var zmax float64
	for _, q := range z {
		zmax = math.Max(zmax, math.Abs(q))
		p := 1.0
		for j := range mu {
			mu[j] += p
			p *= q
		}
	}
	for j := range mu {
		mu[j] /= n
	}
	c := func(k int) float64 {
		if k%2 == 1 {
			return 1 / float64(k)
		}
		return -1 / float64(k)
	}
	a := make([]float64, J+1)
	for j := 2; j <= J; j++ {
		var s float64
		for k := 1; k < j; k++ {
			l := j - k
			s += c(k) * c(l) * (mu[j] - mu[k]*mu[l])
		}
		a[j] = s * n / (n - 1)
	}
	return a, zmax
})

// logVar returns the sample variance (denominator n − 1) of log(e + sd·zᵣ)
// over loo's 1000 normal quantiles zᵣ, the positive arguments only, as loo's
// mcse_elpd takes it. The variance depends on u = sd/e alone; for
// u·max|zᵣ| ≤ 0.3 it is the series Σⱼ Aⱼuʲ (logVarCoef), 40 multiply-adds
// instead of 1000 logarithms; beyond, the logarithms, in the scratch lz.
func logVar(e, sd float64, lz []float64) float64 {
	a, zmax := logVarCoef()
	if u := sd / e; e > 0 && u*zmax <= mcseSeriesMax {
		var p float64
		for j := len(a) - 1; j >= 2; j-- {
			p = p*u + a[j]
		}
		return p * u * u
	}
	zn := blom()
	lz = lz[:0]
	var m1 float64
	for _, q := range zn {
		if a := e + sd*q; a > 0 {
			l := logPos(a)
			lz = append(lz, l)
			m1 += l
		}
	}
	n1 := float64(len(lz))
	m1 /= n1
	var ss float64
	for _, l := range lz {
		d := l - m1
		ss += d * d
	}
	return ss / (n1 - 1)
}
