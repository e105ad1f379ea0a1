package formula

import (
	"fmt"
	"math"
	"slices"

	"github.com/langevin-go/langevin"
)

// TaylorAt implements langevin.TaylorModel: the second-order expansion of
// each row's log-likelihood at θ̂ for the families whose likelihood
// depends on θ only through the linear predictor — bernoulli, binomial,
// poisson — when the model has at most one group term and it is centred
// (then η is linear in θ: ηᵢ = x̃ᵢᵀθ + offsetᵢ, x̃ᵢ the row's centred
// design, 1 for the intercept and its group term's design at its level's
// effects). With ℓᵢ(θ) = f(yᵢ, ηᵢ), the expansion is
//
//	qᵢ(θ) = f(yᵢ, η̂ᵢ) + f′(yᵢ, η̂ᵢ) Δηᵢ + ½ f″(yᵢ, η̂ᵢ) Δηᵢ²,  Δηᵢ = x̃ᵢᵀ(θ − θ̂),
//
// and its sum over the rows needs Σᵢ f(η̂ᵢ), Σᵢ f′(η̂ᵢ) x̃ᵢ and the Hessian
// Σᵢ f″(η̂ᵢ) x̃ᵢx̃ᵢᵀ, which has the block-arrow pattern of the model: the
// population block, each level's K×K block and its coupling to the
// population — O(d) numbers, computed in one pass over the rows. Other
// models (gaussian and the families with a dispersion, non-centred or
// several group terms) return nil, nil: their sampler keeps the
// first-order control variate. The last expansion is kept, so the plan
// and every chain share one for the same centre.
func (m *Model) TaylorAt(thetaHat []float64) (langevin.Taylor, error) {
	if len(thetaHat) != m.Dim() {
		return nil, fmt.Errorf("formula: Taylor expansion at a point of %d values, model has %d parameters", len(thetaHat), m.Dim())
	}
	switch m.Family {
	case "bernoulli", "binomial", "poisson":
	default:
		return nil, nil
	}
	if len(m.groups) > 1 || len(m.groups) == 1 && !m.groups[0].centred {
		return nil, nil
	}
	for _, v := range thetaHat {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("formula: Taylor expansion at a point with %v", v)
		}
	}
	m.taylorMu.Lock()
	defer m.taylorMu.Unlock()
	if m.taylorLast != nil && slices.Equal(m.taylorLast.hat, thetaHat) {
		return m.taylorLast, nil
	}
	t := newTaylor(m, thetaHat)
	m.taylorLast = t
	return t, nil
}

// taylor is Model.TaylorAt's expansion. Read-only after newTaylor.
type taylor struct {
	m      *Model
	hat    []float64
	family int   // famBernoulli, …
	pidx   []int // θ indices of the population coefficients: b…, Intercept
	xcols  [][]float64
	zcols  [][]float64 // the group term's design (nil: no group term)
	codes  []int
	roff   int // θ index of the group effects r_1
	K, J   int
	value  float64   // Σᵢ f(η̂ᵢ)
	ghat   []float64 // Σᵢ f′(η̂ᵢ) x̃ᵢ (d values)
	hpp    []float64 // population block, np×np
	hpr    []float64 // per level, np×K
	hrr    []float64 // per level, K×K
}

const (
	famBernoulli = iota
	famBinomial
	famPoisson
)

func newTaylor(m *Model, hat []float64) *taylor {
	t := &taylor{m: m, hat: slices.Clone(hat)}
	switch m.Family {
	case "binomial":
		t.family = famBinomial
	case "poisson":
		t.family = famPoisson
	}
	if m.hasB {
		_, P := m.x.Dims()
		for j := 0; j < P; j++ {
			t.pidx = append(t.pidx, m.bB.Off+j)
			t.xcols = append(t.xcols, m.x.Col(j))
		}
	}
	if m.intercept {
		t.pidx = append(t.pidx, m.bI.Off)
	}
	if len(m.groups) == 1 {
		g := m.groups[0]
		t.K, t.J, t.codes, t.roff = g.K, g.J, g.codes, g.zb.Off
		for k := 0; k < g.K; k++ {
			t.zcols = append(t.zcols, g.z.Col(k))
		}
	}
	np, K := len(t.pidx), t.K
	t.ghat = make([]float64, len(hat))
	t.hpp = make([]float64, np*np)
	t.hpr = make([]float64, t.J*np*K)
	t.hrr = make([]float64, t.J*K*K)
	xt := make([]float64, np)
	zt := make([]float64, K)
	for i := 0; i < m.n; i++ {
		f, d1, d2 := t.f(i, t.eta(hat, i))
		t.value += f
		t.row(i, xt, zt)
		for a, x := range xt {
			t.ghat[t.pidx[a]] += d1 * x
			for b, u := range xt {
				t.hpp[a*np+b] += d2 * x * u
			}
		}
		if K > 0 {
			j := t.codes[i]
			for k, z := range zt {
				t.ghat[t.roff+j*K+k] += d1 * z
				for a, x := range xt {
					t.hpr[(j*np+a)*K+k] += d2 * x * z
				}
				for l, u := range zt {
					t.hrr[(j*K+k)*K+l] += d2 * z * u
				}
			}
		}
	}
	return t
}

// row writes row i's population design (b…, 1 for the intercept) into xt
// and its group design into zt.
func (t *taylor) row(i int, xt, zt []float64) {
	for j, c := range t.xcols {
		xt[j] = c[i]
	}
	if len(t.xcols) < len(xt) {
		xt[len(xt)-1] = 1
	}
	for k, c := range t.zcols {
		zt[k] = c[i]
	}
}

// eta returns ηᵢ at θ.
func (t *taylor) eta(th []float64, i int) float64 {
	var s float64
	if t.m.offset != nil {
		s = t.m.offset[i]
	}
	for j, c := range t.xcols {
		s += c[i] * th[t.pidx[j]]
	}
	if len(t.xcols) < len(t.pidx) {
		s += th[t.pidx[len(t.pidx)-1]]
	}
	if t.K > 0 {
		r := th[t.roff+t.codes[i]*t.K:]
		for k, c := range t.zcols {
			s += c[i] * r[k]
		}
	}
	return s
}

// deta returns x̃ᵢᵀ(θ − θ̂).
func (t *taylor) deta(th []float64, i int) float64 {
	var s float64
	for j, c := range t.xcols {
		s += c[i] * (th[t.pidx[j]] - t.hat[t.pidx[j]])
	}
	if len(t.xcols) < len(t.pidx) {
		k := t.pidx[len(t.pidx)-1]
		s += th[k] - t.hat[k]
	}
	if t.K > 0 {
		o := t.roff + t.codes[i]*t.K
		for k, c := range t.zcols {
			s += c[i] * (th[o+k] - t.hat[o+k])
		}
	}
	return s
}

// f returns row i's log-likelihood at η (without the terms free of η) and
// its first two derivatives in η.
func (t *taylor) f(i int, eta float64) (f, d1, d2 float64) {
	y := float64(t.m.yi[i])
	switch t.family {
	case famPoisson:
		mu := math.Exp(eta)
		return y*eta - mu, y - mu, -mu
	}
	var p, sp float64 // σ(η), log(1 + e^η)
	if eta >= 0 {
		e := math.Exp(-eta)
		p, sp = 1/(1+e), eta+math.Log1p(e)
	} else {
		e := math.Exp(eta)
		p, sp = e/(1+e), math.Log1p(e)
	}
	n := 1.0
	if t.family == famBinomial {
		n = float64(t.m.trials[i])
	}
	return y*eta - n*sp, y - n*p, -n * p * (1 - p)
}

// Full implements langevin.Taylor: Σᵢ qᵢ(θ) = Σ f̂ + ĝᵀΔ + ½ΔᵀHΔ, gradient
// ĝ + HΔ, in O(d).
func (t *taylor) Full(th, grad []float64) float64 {
	np, K := len(t.pidx), t.K
	hat := t.hat
	val := t.value
	var quad float64
	for a, ia := range t.pidx {
		da := th[ia] - hat[ia]
		val += t.ghat[ia] * da
		var s float64
		for b, ib := range t.pidx {
			s += t.hpp[a*np+b] * (th[ib] - hat[ib])
		}
		quad += da * s
		if grad != nil {
			grad[ia] += t.ghat[ia] + s
		}
	}
	for j := 0; j < t.J; j++ {
		o := t.roff + j*K
		hpr := t.hpr[j*np*K : (j+1)*np*K]
		hrr := t.hrr[j*K*K : (j+1)*K*K]
		for k := 0; k < K; k++ {
			dk := th[o+k] - hat[o+k]
			val += t.ghat[o+k] * dk
			// (HΔ) at r_jk: the coupling to the population and the level's block.
			var s float64
			for a, ia := range t.pidx {
				c := hpr[a*K+k]
				da := th[ia] - hat[ia]
				s += c * da
				// the coupling's share of the population rows of HΔ, and of ΔᵀHΔ
				quad += 2 * da * c * dk
				if grad != nil {
					grad[ia] += c * dk
				}
			}
			var u float64
			for l := 0; l < K; l++ {
				u += hrr[k*K+l] * (th[o+l] - hat[o+l])
			}
			quad += dk * u
			if grad != nil {
				grad[o+k] += t.ghat[o+k] + s + u
			}
		}
	}
	return val + quad/2
}

// Rest implements langevin.Taylor: Σ_{i∈batch} [ℓᵢ(θ) − qᵢ(θ)].
func (t *taylor) Rest(th []float64, batch []int, grad []float64) float64 {
	var val float64
	for _, i := range batch {
		f, d1, _ := t.f(i, t.eta(th, i))
		fh, d1h, d2h := t.f(i, t.eta(t.hat, i))
		de := t.deta(th, i)
		val += (f - fh) - d1h*de - d2h*de*de/2
		if grad == nil {
			continue
		}
		e := d1 - d1h - d2h*de
		for j, c := range t.xcols {
			grad[t.pidx[j]] += e * c[i]
		}
		if len(t.xcols) < len(t.pidx) {
			grad[t.pidx[len(t.pidx)-1]] += e
		}
		if t.K > 0 {
			o := t.roff + t.codes[i]*t.K
			for k, c := range t.zcols {
				grad[o+k] += e * c[i]
			}
		}
	}
	return val
}
