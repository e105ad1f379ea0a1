package loo

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Comparison is one model's row of Compare.
type Comparison struct {
	Model    int     // index of the model in Compare's input
	ELPDDiff float64 // Σᵢ (elpdᵢ − elpdᵢ of the best model), ≤ 0
	SEDiff   float64 // √N·sd of the pointwise differences
}

// Compare orders models by elpd_loo, best first, and returns each one's
// difference from the best, as loo's loo_compare: with
// dᵢ = elpdᵢ(model) − elpdᵢ(best),
//
//	elpd_diff = Σᵢ dᵢ,   se_diff = √N·sd(d),
//
// sd with denominator N − 1. Models of equal elpd_loo keep their input
// order. se_diff measures the uncertainty from the finite data, not the
// Monte Carlo error of the estimates (Result.MCSE). Compare returns an error
// for fewer than two models or models on different numbers of rows.
func Compare(models ...*Result) ([]Comparison, error) {
	if len(models) < 2 {
		return nil, errors.New("loo: Compare needs at least two models")
	}
	n := len(models[0].Pointwise)
	for k, m := range models {
		if len(m.Pointwise) != n {
			return nil, fmt.Errorf("loo: model %d has %d rows, model 1 has %d", k+1, len(m.Pointwise), n)
		}
	}
	ord := make([]int, len(models))
	for k := range ord {
		ord[k] = k
	}
	slices.SortStableFunc(ord, func(a, b int) int {
		ea, eb := models[a].ELPD.Estimate, models[b].ELPD.Estimate
		switch {
		case ea > eb:
			return -1
		case ea < eb:
			return 1
		}
		return 0
	})
	best := models[ord[0]].Pointwise
	out := make([]Comparison, len(ord))
	d := make([]float64, n)
	for j, k := range ord {
		var s float64
		for i, p := range models[k].Pointwise {
			d[i] = p.ELPD - best[i].ELPD
			s += d[i]
		}
		m := s / float64(n)
		var v float64
		for _, x := range d {
			v += (x - m) * (x - m)
		}
		out[j] = Comparison{Model: k, ELPDDiff: s, SEDiff: math.Sqrt(float64(n) * v / float64(n-1))}
	}
	return out, nil
}
