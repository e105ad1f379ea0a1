package formula

import (
	"fmt"
	"math"
	"strings"
)

// GradientWork returns the multiply-adds of one full-data gradient, about:
// each row reads its population-level columns and the K coefficients of
// its own level in each grouping term (the group design is sparse: a row
// touches none of the other levels' effects), and the prior reads each
// parameter once — N·(P + 1 + ΣK) + d, not N·d. A cost rule that counts
// the group effects as dimensions of every row overstates the gradient
// of a hierarchical model by the number of levels.
//
// A gaussian model whose full-data likelihood collapses to sufficient
// statistics (collapsed) reads its M pseudo-rows instead: M·(P + 1 + K) + d,
// whatever N.
func (m *Model) GradientWork() float64 {
	n := m.n
	if m.coll != nil {
		n = len(m.coll.y)
	}
	return float64(n)*float64(m.rowNonzeros()) + float64(m.Dim())
}

// RowWork returns the multiply-adds of one row of a minibatch's gradient:
// the row's nonzeros plus its share d/N of the prior's — the rows
// themselves, also when full-data passes read the collapsed statistics.
func (m *Model) RowWork() float64 {
	return (float64(m.n)*float64(m.rowNonzeros()) + float64(m.Dim())) / float64(m.n)
}

// rowNonzeros returns the multiply-adds of one row: its population-level
// columns, the intercept, and its level's K coefficients in each term.
func (m *Model) rowNonzeros() int {
	_, p := m.x.Dims()
	per := p
	if m.intercept {
		per++
	}
	for _, g := range m.groups {
		per += g.K
	}
	return max(per, 1)
}

// rmsFloor is the root mean square of a non-centred term's standardised
// effects (L z)_k at a mode below which the mode is degenerate: the sd sits
// more than twice above the spread of the effects it scales.
const rmsFloor = 0.5

// sdFloorFrac is the fraction of the sd prior's scale below which a group
// sd at a mode counts as collapsed onto its boundary at 0.
const sdFloorFrac = 1e-3

// DegenerateMode returns why the joint mode theta is no centre for a
// Laplace approximation of the posterior, or "" when no check fails:
//
//   - a non-centred term (r_j = diag(sd)·L·z_j, z_j ~ N(0, I)) whose
//     standardised effects (L z_j)_k = r_jk/sd_k have root mean square over
//     the levels below 0.5 — far below the 1 of their prior: along the
//     ridge sd·z = r that the data fix, the joint density rises as z
//     shrinks towards its prior mode and sd grows to keep r, so the mode
//     puts sd where its own prior stops it (ΣⱼR²/sd² ≈ 3 for a half
//     student_t(3), sd ≈ √(J/3)·the true sd), not where the posterior
//     mass is (docs/formulas.md: 16.7 for a true 0.8 with 1,000 levels);
//   - a centred term whose sd is more than twice the spread of its effects
//     (given the effects, the mode of a centred term's sd has sd² about
//     their mean square, ΣⱼR²/(J − 1)): an optimiser stopped on a plateau,
//     not a mode;
//   - a centred term whose sd is below 10⁻³ of its prior's scale: the
//     mode has fallen into the funnel's neck (sd → 0 with the effects);
//   - a value that is not finite.
func (m *Model) DegenerateMode(theta []float64) string {
	if len(m.groups) == 0 || len(theta) != m.Dim() {
		return ""
	}
	for _, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "the mode has a value that is not finite"
		}
	}
	vals := make([]float64, len(m.gen.Names()))
	m.Derive(theta, vals)
	scale := m.sdScale()
	var why []string
	for _, g := range m.groups {
		sd := vals[g.genSD.Off : g.genSD.Off+g.K]
		r := vals[g.genR.Off : g.genR.Off+g.J*g.K]
		for k := 0; k < g.K; k++ {
			name := "sd_" + g.name + "__" + g.coefs[k]
			rms := rmsCoef(r, g.J, g.K, k)
			switch {
			case !g.centred && sd[k] > 0 && rms < rmsFloor*sd[k]:
				why = append(why, fmt.Sprintf("%s = %.3g is %.3g× the spread %.3g of its effects (non-centred: the mode trades the scale against the effects)", name, sd[k], sd[k]/rms, rms))
			case g.centred && sd[k] > 0 && rms < rmsFloor*sd[k]:
				why = append(why, fmt.Sprintf("%s = %.3g is %.3g× the spread %.3g of its effects (centred: not the mode of the scale given the effects, whose sd² is about their mean square)", name, sd[k], sd[k]/rms, rms))
			case g.centred && sd[k] < sdFloorFrac*scale:
				why = append(why, fmt.Sprintf("%s = %.3g is at its boundary 0 (below 10⁻³ of its prior's scale %.3g)", name, sd[k], scale))
			}
		}
	}
	return strings.Join(why, "; ")
}

// rmsCoef returns the root mean square over the J levels of coefficient k
// of the J×K row-major effects r.
func rmsCoef(r []float64, J, K, k int) float64 {
	var s float64
	for j := 0; j < J; j++ {
		s += r[j*K+k] * r[j*K+k]
	}
	return math.Sqrt(s / float64(J))
}

// sdScale returns the scale of the group sds' prior (its last argument:
// student_t(ν, 0, s), normal(0, s), exponential(λ) as 1/λ), 1 when it
// has none.
func (m *Model) sdScale() float64 {
	p, ok := m.prior["sd"]
	if !ok || len(p.Args) == 0 {
		return 1
	}
	s := p.Args[len(p.Args)-1]
	if p.Dist == "exponential" && s > 0 {
		s = 1 / s
	}
	if !(s > 0) {
		return 1
	}
	return s
}

// RescaleMode writes to dst a point with the effects of the mode but not
// its degenerate scales: each group sd set to the spread (root mean
// square over the levels) of its effects r_·k at the mode, at least 1/10 of
// the sd prior's scale (both in the data's units); the correlation at the identity (L = I); and, for
// a non-centred term, z_jk = r_jk/sd_k, so that every r_j is unchanged.
// The population-level and family parameters stay at the mode. From there
// an exact sampler starts on the posterior's scale of the group sds
// instead of where the joint mode put them.
func (m *Model) RescaleMode(dst, mode []float64) {
	copy(dst, mode)
	if len(m.groups) == 0 {
		return
	}
	vals := make([]float64, len(m.gen.Names()))
	m.Derive(mode, vals)
	floor := 0.1 * m.sdScale()
	for _, g := range m.groups {
		r := vals[g.genR.Off : g.genR.Off+g.J*g.K]
		lsd := g.sd.Free(dst)
		sd := make([]float64, g.K)
		for k := range sd {
			// sd and r in the data's units; θ's sd is that of the
			// scaled column, sd·s_k (Model's doc: scaled design).
			sd[k] = math.Max(rmsCoef(r, g.J, g.K, k), floor)
			lsd[k] = math.Log(sd[k] * g.scales[k])
		}
		if g.corr && g.K > 1 {
			clear(g.L.Free(dst))
		}
		if g.centred {
			continue
		}
		z := g.zb.Free(dst)
		for j := 0; j < g.J; j++ {
			for k := 0; k < g.K; k++ {
				z[j*g.K+k] = r[j*g.K+k] / sd[k]
			}
		}
	}
}
