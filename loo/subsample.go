package loo

import (
	"errors"
	"fmt"
	"math"
)

// Subsampled is PSIS-LOO estimated from the exact estimates of a simple
// random sample of the rows (Subsample).
type Subsampled struct {
	// Estimates and standard errors as Result's: the SE is that of the
	// estimate of the full-data sum, from the finite data.
	ELPD, PLoo, LooIC Estimate
	// SubsamplingSE is the standard error from having sampled m of the N
	// rows: it goes to 0 as m goes to N.
	SubsamplingSE struct{ ELPD, PLoo, LooIC float64 }
	Rows, Sampled int
}

// Subsample estimates PSIS-LOO of N rows from cheap approximations
// approx[i] of every row's elpdᵢ and the exact PSIS-LOO points pts[j] of the
// rows idx[j], a simple random sample without replacement of m of them
// (Magnusson, Andersen, Jonasson & Vehtari 2019, "Bayesian leave-one-out
// cross-validation for large data", ICML), as loo's loo_subsample with its
// defaults (estimator diff_srs). With eⱼ = elpd_idx[j] − approx[idx[j]],
// the difference estimator and its variances are
//
//	elpd_loo = Σᵢ approxᵢ + N·mean(e),
//	v̂ (subsampling) = N²(1 − m/N)·var(e)/m,
//	σ̂² (data) = Σᵢ approxᵢ² + N·mean(elpd² − approx²)
//	           − (1/N)((N·mean e)² − v̂ + 2·Σapprox·elpd_loo − (Σapprox)²),
//
// and p_loo is the plain sample estimate N·mean(p_loo), with subsampling
// variance N²(1 − m/N)·var/m and data variance N·var. loo's default
// approximation (plpd) is log p(yᵢ | θ̄) at the posterior mean θ̄. Subsample
// returns an error for fewer than two sampled rows, an index out of range
// or repeated, or lengths that differ.
func Subsample(approx []float64, idx []int, pts []Point) (*Subsampled, error) {
	N, m := len(approx), len(idx)
	switch {
	case m < 2:
		return nil, errors.New("loo: Subsample needs at least two sampled rows")
	case len(pts) != m:
		return nil, fmt.Errorf("loo: %d sampled rows, %d points", m, len(pts))
	case m > N:
		return nil, fmt.Errorf("loo: %d sampled rows of %d", m, N)
	}
	seen := make(map[int]bool, m)
	for _, i := range idx {
		if i < 0 || i >= N || seen[i] {
			return nil, fmt.Errorf("loo: sampled row %d out of range [0, %d) or repeated", i, N)
		}
		seen[i] = true
	}
	fN, fm := float64(N), float64(m)
	var tp, tp2 float64
	for _, a := range approx {
		tp += a
		tp2 += a * a
	}
	e := make([]float64, m)
	var me, mq float64
	for j, i := range idx {
		e[j] = pts[j].ELPD - approx[i]
		me += e[j] / fm
		mq += (pts[j].ELPD*pts[j].ELPD - approx[i]*approx[i]) / fm
	}
	te := fN * me
	yhat := tp + te
	vyhat := fN * fN * (1 - fm/fN) * variance(e) / fm
	hatvy := (tp2 + fN*mq) - (te*te-vyhat+2*tp*yhat-tp*tp)/fN
	p := make([]float64, m)
	var mp float64
	for j, pt := range pts {
		p[j] = pt.PLoo
		mp += pt.PLoo / fm
	}
	vp := variance(p)
	s := &Subsampled{Rows: N, Sampled: m}
	s.ELPD = Estimate{yhat, math.Sqrt(hatvy)}
	s.PLoo = Estimate{fN * mp, math.Sqrt(fN * vp)}
	s.LooIC = Estimate{-2 * yhat, 2 * math.Sqrt(hatvy)}
	s.SubsamplingSE.ELPD = math.Sqrt(vyhat)
	s.SubsamplingSE.PLoo = math.Sqrt(fN * fN * (1 - fm/fN) * vp / fm)
	s.SubsamplingSE.LooIC = 2 * math.Sqrt(vyhat)
	return s, nil
}

// variance is the sample variance (denominator n − 1).
func variance(x []float64) float64 {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

// SubsampleSize returns the number m of the N = len(approx) rows that
// Subsample needs for its subsampling SE of elpd_loo to be at most frac
// times the SE of elpd_loo, judged from diff, the differences
// elpdᵢ − approxᵢ of a pilot sample of rows: with v_e their sample
// variance and v_a that of approx (for the variance of elpdᵢ),
//
//	N²(1/m − 1/N)·v_e ≤ frac²·N·v_a  ⇔  m ≥ 1/(frac²·v_a/(N·v_e) + 1/N),
//
// at least 2 and at most N. SubsampleSize panics for fewer than two
// differences.
func SubsampleSize(approx, diff []float64, frac float64) int {
	if len(diff) < 2 {
		panic("loo: SubsampleSize needs at least two differences")
	}
	N := float64(len(approx))
	ve, va := variance(diff), variance(approx)
	m := math.Ceil(1 / (frac*frac*va/(N*ve) + 1/N))
	if math.IsNaN(m) || m > N {
		return len(approx)
	}
	return max(int(m), 2)
}
