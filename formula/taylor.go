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
	if !m.HasTaylor() {
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

// HasTaylor implements langevin.TaylorModel: the family is bernoulli,
// binomial or poisson, and the model has no group term or one, centred.
func (m *Model) HasTaylor() bool {
	switch m.Family {
	case "bernoulli", "binomial", "poisson":
	default:
		return false
	}
	return len(m.groups) == 0 || len(m.groups) == 1 && m.groups[0].centred
}

// taylor is Model.TaylorAt's expansion. Read-only after newTaylor.
type taylor struct {
	m      *Model
	hat    []float64
	family int   // famBernoulli, …
	pidx   []int // θ indices of the population coefficients: b…, Intercept
	icpt   bool  // the model has the intercept (the last of pidx)
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
		t.icpt = true
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
	r := trow{x: make([]float64, len(t.xcols)), z: make([]float64, K)}
	for i := 0; i < m.n; i++ {
		t.rowAt(i, false, &r)
		f, d1, d2 := t.f(&r, t.eta(hat, &r))
		t.value += f
		for a := 0; a < np; a++ {
			x := t.px(&r, a)
			t.ghat[t.pidx[a]] += d1 * x
			for b := 0; b < np; b++ {
				t.hpp[a*np+b] += d2 * x * t.px(&r, b)
			}
		}
		if K > 0 {
			j := r.code
			for k, z := range r.z {
				t.ghat[t.roff+j*K+k] += d1 * z
				for a := 0; a < np; a++ {
					t.hpr[(j*np+a)*K+k] += d2 * t.px(&r, a) * z
				}
				for l, u := range r.z {
					t.hrr[(j*K+k)*K+l] += d2 * z * u
				}
			}
		}
	}
	return t
}

// px returns the row's population design at a: x_a, or 1 for the
// intercept (the last).
func (t *taylor) px(r *trow, a int) float64 {
	if a < len(r.x) {
		return r.x[a]
	}
	return 1
}

// trow is one row's data: the population design (b…; the intercept's 1
// is implied by taylor.icpt), the group term's design and level, the
// response, the trials and the offset.
type trow struct {
	x, z      []float64
	code, y   int
	n, offset float64
}

// rowAt reads row i from the columns, or, for a scattered row of a
// packed model, from its record (one cache line instead of one per
// column): the same values either way.
func (t *taylor) rowAt(i int, packed bool, r *trow) {
	m := t.m
	r.n, r.offset = 1, 0
	if packed && m.packed != nil {
		pk, h := m.packed, &m.handles
		rec := pk.Record(i)
		if len(t.xcols) > 0 {
			o := pk.MatrixOffset(h.x)
			r.x = rec[o : o+len(t.xcols)]
		}
		if t.K > 0 {
			g := m.groups[0]
			o := pk.MatrixOffset(g.hz)
			r.z = rec[o : o+t.K]
			r.code = pk.Int(rec, g.hcodes)
		}
		r.y = pk.Int(rec, h.yi)
		if m.trials != nil {
			r.n = float64(pk.Int(rec, h.trials))
		}
		if m.offset != nil {
			r.offset = rec[pk.FloatOffset(h.offset)]
		}
		return
	}
	for j, c := range t.xcols {
		r.x[j] = c[i]
	}
	for k, c := range t.zcols {
		r.z[k] = c[i]
	}
	if t.K > 0 {
		r.code = t.codes[i]
	}
	r.y = m.yi[i]
	if m.trials != nil {
		r.n = float64(m.trials[i])
	}
	if m.offset != nil {
		r.offset = m.offset[i]
	}
}

// eta returns the row's η at θ.
func (t *taylor) eta(th []float64, r *trow) float64 {
	s := r.offset
	for j, x := range r.x {
		s += x * th[t.pidx[j]]
	}
	if t.icpt {
		s += th[t.pidx[len(t.pidx)-1]]
	}
	if t.K > 0 {
		o := t.roff + r.code*t.K
		for k, z := range r.z {
			s += z * th[o+k]
		}
	}
	return s
}

// deta returns the row's x̃ᵀ(θ − θ̂).
func (t *taylor) deta(th []float64, r *trow) float64 {
	var s float64
	for j, x := range r.x {
		k := t.pidx[j]
		s += x * (th[k] - t.hat[k])
	}
	if t.icpt {
		k := t.pidx[len(t.pidx)-1]
		s += th[k] - t.hat[k]
	}
	if t.K > 0 {
		o := t.roff + r.code*t.K
		for k, z := range r.z {
			s += z * (th[o+k] - t.hat[o+k])
		}
	}
	return s
}

// f returns the row's log-likelihood at η (without the terms free of η)
// and its first two derivatives in η.
func (t *taylor) f(r *trow, eta float64) (f, d1, d2 float64) {
	y := float64(r.y)
	if t.family == famPoisson {
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
	return y*eta - r.n*sp, y - r.n*p, -r.n * p * (1 - p)
}

// diff returns f(η̂ + Δη) − f(η̂) and f′(η̂ + Δη) − f′(η̂), and f′ and f″
// at η̂, for the row: the differences without cancellation, by expm1 and
// log1p (for the logit link, with u = p̂·(e^Δη − 1): f(η) − f(η̂) =
// yΔη − n·log(1 + u), σ(η) − σ(η̂) = u(1 − p̂)/(1 + u)); three
// transcendental functions instead of two evaluations' four.
func (t *taylor) diff(r *trow, etaHat, de float64) (df, dd1, d1h, d2h float64) {
	y := float64(r.y)
	if t.family == famPoisson {
		mu := math.Exp(etaHat)
		m := math.Expm1(de)
		return y*de - mu*m, -mu * m, y - mu, -mu
	}
	if math.Abs(de) > 30 { // e^Δη could overflow below: the direct difference
		f, d1, _ := t.f(r, etaHat+de)
		fh, d1h, d2h := t.f(r, etaHat)
		return f - fh, d1 - d1h, d1h, d2h
	}
	e := math.Exp(-math.Abs(etaHat))
	p, q := 1/(1+e), e/(1+e) // σ(η̂), 1 − σ(η̂)
	if etaHat < 0 {
		p, q = q, p
	}
	u := p * math.Expm1(de)
	return y*de - r.n*math.Log1p(u), -r.n * u * q / (1 + u), y - r.n*p, -r.n * p * q
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

// Rest implements langevin.Taylor: Σ_{i∈batch} [ℓᵢ(θ) − qᵢ(θ)]. Each row
// is read once, from its packed record when the model has them.
func (t *taylor) Rest(th []float64, batch []int, grad []float64) float64 {
	var val float64
	var r trow // a packed model's rows are read in place
	var xb, zb [8]float64
	if t.m.packed == nil {
		if len(t.xcols) <= len(xb) && t.K <= len(zb) {
			r.x, r.z = xb[:len(t.xcols)], zb[:t.K]
		} else {
			r.x, r.z = make([]float64, len(t.xcols)), make([]float64, t.K)
		}
	}
	if t.m.packed != nil && len(batch) > 1 {
		val += 0 * t.m.packed.Touch(batch) // the records' cache misses overlapped
	}
	for _, i := range batch {
		t.rowAt(i, true, &r)
		de := t.deta(th, &r)
		df, dd1, d1h, d2h := t.diff(&r, t.eta(t.hat, &r), de)
		val += df - d1h*de - d2h*de*de/2
		if grad == nil {
			continue
		}
		e := dd1 - d2h*de
		for j, x := range r.x {
			grad[t.pidx[j]] += e * x
		}
		if t.icpt {
			grad[t.pidx[len(t.pidx)-1]] += e
		}
		if t.K > 0 {
			o := t.roff + r.code*t.K
			for k, z := range r.z {
				grad[o+k] += e * z
			}
		}
	}
	return val
}
