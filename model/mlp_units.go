package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
)

// unitMaxFloats bounds the activations an OutputConditional with unit moves
// keeps (n × H of the last hidden layer, and n × the layer's fan-in below it
// in a deeper network): 2²² floats, 32 MiB a chain.
const unitMaxFloats = 1 << 22

// SetUnitMoves makes each Draw at τ = 1 first propose k Metropolis–Hastings
// moves of the last hidden layer's units (k = 0: none, the default) with
// the output layer integrated out, then draw the output layer from its
// conditional given the moved hidden layer.
//
// A move picks unit j (in turn: j = 0, 1, …, H − 1, 0, …) and proposes its
// incoming weights and bias u′ = (w′ⱼ, b′ⱼ) afresh from their prior,
// N(0, s²/fan-in) and N(0, s_b²). With the output layer β ~ N(0, P⁻¹)
// integrated out, the hidden layers' likelihood given σ² is
//
//	log p(z | h, σ²) = −½ log|A| + ½ rᵀA⁻¹r + const,  A = ΦᵀΦ/σ² + P,  r = Φᵀz/σ²
//
// (Φ the n × (H + 1) activations and a column of ones, as in
// [OutputConditional]; the constant does not depend on h), so the move is
// accepted with probability min(1, p(z | h′)/p(z | h)): the prior of u′
// cancels its proposal's. Each move leaves the marginal law of the hidden
// layers p(h | z, σ²) invariant, and the output layer's exact draw that
// follows makes the composition leave the joint law p(h, β | z, σ²)
// invariant whatever β was. Units the data leave to the prior (the kinks
// and slopes of the function where there are no data) are redrawn from it
// at once; a unit the data pin down keeps its value, moved by the
// stochastic-gradient steps. With a learned noise the unit moves are
// followed by UnitNoiseMoves random-walk moves of γ = log σ² with the output
// layer integrated out (see noiseMoves), before the output layer's draw. At
// τ ≠ 1 no move is made (the conditional draw alone).
//
// A move costs n·(fan-in + 1) multiply-adds for the proposed unit's
// activations, n·(H + 1) for its row of ΦᵀΦ, and (H+1)³/6 for the factor
// of A; see Flops. SetUnitMoves returns an error when the activations kept
// would exceed 2²² floats (32 MiB) a chain.
func (c *OutputConditional) SetUnitMoves(k int) error {
	if k < 0 {
		return fmt.Errorf("model: MLP unit moves %d: expected ≥ 0", k)
	}
	if k > 0 {
		if err := c.allocUnits(); err != nil {
			return err
		}
	}
	c.moves = k
	return nil
}

// SetLocalMoves makes each Draw (at τ = 1) also propose k random-walk
// moves of one unit's incoming weights and bias (units in turn, after the
// unit moves of SetUnitMoves): u′ = u + r_j·s·ξ, s the prior sds and r_j the
// unit's scale relative to them (starting at r0; r0 ≤ 0 keeps the current
// scales), accepted with probability min(1, p(z | h′)p(u′)/(p(z | h)p(u))),
// the output layer integrated out as for the unit moves. Units the data pin
// down, which a draw from the prior rarely replaces, move by these. With
// adapt, each r_j is tuned toward 30% acceptance (Robbins–Monro steps of
// size (0.3 − accepted)/√(moves + 10) on log r_j): the chain is then not
// stationary, so adapt belongs to a burn-in and is turned off after it.
func (c *OutputConditional) SetLocalMoves(k int, r0 float64, adapt bool) error {
	if k < 0 {
		return fmt.Errorf("model: MLP local unit moves %d: expected ≥ 0", k)
	}
	if k > 0 {
		if err := c.allocUnits(); err != nil {
			return err
		}
	}
	h := c.k - 1
	c.local, c.adapt = k, adapt
	if len(c.localScale) != h {
		c.localScale = make([]float64, h)
		c.adaptN = make([]int, h)
	}
	if r0 > 0 {
		for j := range c.localScale {
			c.localScale[j] = r0
		}
	}
	return nil
}

// allocUnits allocates the workspace of the unit moves, or says why the
// network has none.
func (c *OutputConditional) allocUnits() error {
	m := c.m
	L := len(m.sizes) - 1
	if L < 2 {
		return errors.New("model: MLP unit moves: the network has no hidden layer")
	}
	h, in := m.sizes[L-1], m.sizes[L-2]
	keep := m.n * h
	if L > 2 {
		keep += m.n * in
	}
	if keep > unitMaxFloats {
		return fmt.Errorf("model: MLP unit moves: %d rows × %d units would keep %d activations a chain, over %d", m.n, h, keep, unitMaxFloats)
	}
	if len(c.phi) < m.n*h {
		c.phi = make([]float64, m.n*h)
		c.col = make([]float64, m.n)
		c.g = make([]float64, c.k*c.k)
		c.gj = make([]float64, c.k)
		c.z0 = make([]float64, c.k)
		c.a2 = make([]float64, c.k*c.k)
		c.r2 = make([]float64, c.k)
		c.u = make([]float64, in+1)
		if L > 2 {
			c.prev = make([]float64, m.n*in)
		}
	}
	return nil
}

// UnitMoves returns the number of unit moves a Draw proposes (SetUnitMoves).
func (c *OutputConditional) UnitMoves() int { return c.moves }

// UnitAccepted returns the number of unit moves accepted and proposed so far.
func (c *OutputConditional) UnitAccepted() (accepted, proposed int) {
	return c.accepted, c.proposed
}

// unitFlops returns the multiply-adds of the unit moves of one Draw.
func (c *OutputConditional) unitFlops() float64 {
	if c.moves+c.local == 0 {
		return 0
	}
	m := c.m
	L := len(m.sizes) - 1
	in, k := float64(m.sizes[L-2]), float64(c.k)
	return float64(c.moves+c.local) * (float64(m.n)*(in+1+k) + k*k*k/6 + k*k)
}

// unitSweep computes Φ (kept), ΦᵀΦ into c.g (full) and Φᵀz into c.z0 at
// theta, makes c.moves unit moves (updating theta's last hidden layer, Φ,
// c.g and c.z0), and leaves c.a and c.r as Draw's accumulation leaves them:
// the upper triangle of ΦᵀΦ and Φᵀz.
func (c *OutputConditional) unitSweep(theta []float64, sigma2 float64, rng *rand.Rand) float64 {
	m, k := c.m, c.k
	h := k - 1
	L := len(m.sizes) - 1
	in := m.sizes[L-2]
	w := m.pool.get()
	defer m.pool.put(w)
	for i0 := 0; i0 < m.n; i0 += mlpChunk {
		r := min(mlpChunk, m.n-i0)
		x := m.x[i0*m.p : (i0+r)*m.p]
		m.forwardHidden(theta, x, r, w)
		copy(c.phi[i0*h:(i0+r)*h], w.a[L-1][:r*h])
		if L > 2 {
			copy(c.prev[i0*in:(i0+r)*in], w.a[L-2][:r*in])
		}
	}
	prev := m.x
	if L > 2 {
		prev = c.prev
	}
	// G = ΦᵀΦ (full, with the ones column last) and Φᵀz.
	clear(c.g)
	clear(c.z0)
	native.Dsyrk(blas.Upper, blas.Trans, h, m.n, 1, c.phi, h, 0, c.g, k)
	for i := 0; i < m.n; i++ {
		zi := m.y[i]
		for j, v := range c.phi[i*h : (i+1)*h] {
			c.g[j*k+h] += v
			c.z0[j] += v * zi
		}
		c.z0[h] += zi
	}
	c.g[h*k+h] = float64(m.n)
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			c.g[j*k+i] = c.g[i*k+j]
		}
	}
	cur, ok := c.logMarginal(-1, sigma2)
	if ok {
		sw, sb := m.scale[L-2], m.bscale[L-2]
		off := m.off[L-2]
		for t := 0; t < c.moves; t++ {
			j := c.next
			c.next = (c.next + 1) % h
			for q := 0; q < in; q++ {
				c.u[q] = sw * rng.NormFloat64()
			}
			c.u[in] = sb * rng.NormFloat64()
			cur, _ = c.tryUnit(theta, prev, j, sigma2, cur, 0, rng)
		}
		for t := 0; t < c.local; t++ {
			j := c.nextLocal
			c.nextLocal = (c.nextLocal + 1) % h
			r := c.localScale[j]
			var logPrior float64
			for q := 0; q < in; q++ {
				old := theta[off+j*in+q]
				c.u[q] = old + r*sw*rng.NormFloat64()
				logPrior -= 0.5 * (c.u[q]*c.u[q] - old*old) / (sw * sw)
			}
			old := theta[off+h*in+j]
			c.u[in] = old + r*sb*rng.NormFloat64()
			logPrior -= 0.5 * (c.u[in]*c.u[in] - old*old) / (sb * sb)
			var acc bool
			cur, acc = c.tryUnit(theta, prev, j, sigma2, cur, logPrior, rng)
			if c.adapt {
				c.adaptN[j]++
				a := 0.0
				if acc {
					a = 1
				}
				c.localScale[j] *= math.Exp((a - 0.3) / math.Sqrt(float64(c.adaptN[j])+10))
			}
		}
	}
	if ok && m.learn {
		sigma2, _ = c.noiseMoves(theta, sigma2, cur, rng)
	}
	// Hand Draw ΦᵀΦ's upper triangle and Φᵀz.
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			c.a[i*k+j] = c.g[i*k+j]
		}
	}
	copy(c.r, c.z0)
	return sigma2
}

// UnitNoiseMoves is the number of random-walk Metropolis moves of γ = log σ²
// (learned noise) after a Draw's unit moves.
const UnitNoiseMoves = 4

// noiseMoves makes UnitNoiseMoves random-walk Metropolis moves of γ = log σ²
// (theta's last entry) with the output layer integrated out, from cur, the
// hidden layers' logMarginal at σ²: the target is
//
//	log p(γ | h, z) = −(n/2)γ − zᵀz e^{−γ}/2 − ½ log|A| + ½ rᵀA⁻¹r + log p(γ) + const,
//
// the proposal γ′ = γ + 2.4·√(2/n)·ξ (2.4 times γ's posterior sd when the
// data fix σ², √(2/n)). It returns the final σ² = e^γ.
func (c *OutputConditional) noiseMoves(theta []float64, sigma2, cur float64, rng *rand.Rand) (float64, float64) {
	m := c.m
	n := float64(m.n)
	if c.zz == 0 {
		for _, v := range m.y[:m.n] {
			c.zz += v * v
		}
	}
	gamma := theta[m.dim-1]
	logp := func(g, marg float64) float64 {
		u := (g - m.lgMean) / m.lgSD
		return marg - 0.5*n*g - 0.5*c.zz*math.Exp(-g) - 0.5*u*u
	}
	lp, mg := logp(gamma, cur), cur
	step := 2.4 * math.Sqrt(2/n)
	for range UnitNoiseMoves {
		g := gamma + step*rng.NormFloat64()
		logU := math.Log(rng.Float64())
		marg, ok := c.logMarginal(-1, math.Exp(g))
		if !ok {
			continue
		}
		if lq := logp(g, marg); logU < lq-lp {
			gamma, lp, mg = g, lq, marg
		}
	}
	theta[m.dim-1] = gamma
	return math.Exp(gamma), mg
}

// tryUnit proposes c.u as unit j's incoming weights and bias: it computes
// the unit's activations, its row of ΦᵀΦ and its Φᵀz, and accepts with
// probability min(1, exp(logMarginal′ − cur + logExtra)) (logExtra: the log
// prior ratio of a random-walk proposal, 0 for a draw from the prior),
// updating theta, Φ, c.g and c.z0. It returns the log marginal of the state
// kept and whether the proposal was accepted.
func (c *OutputConditional) tryUnit(theta, prev []float64, j int, sigma2, cur, logExtra float64, rng *rand.Rand) (float64, bool) {
	m, k := c.m, c.k
	h := k - 1
	L := len(m.sizes) - 1
	in := m.sizes[L-2]
	off := m.off[L-2]
	logU := math.Log(rng.Float64())
	for i := 0; i < m.n; i++ {
		v := c.u[in]
		for q, x := range prev[i*in : (i+1)*in] {
			v += x * c.u[q]
		}
		c.col[i] = v
	}
	activate(m.act, c.col)
	clear(c.gj)
	var zj float64
	for i, v := range c.col {
		if v == 0 {
			continue
		}
		row := c.phi[i*h : (i+1)*h]
		for l, u := range row {
			c.gj[l] += v * u
		}
		c.gj[h] += v
		zj += v * m.y[i]
	}
	var jj float64
	for _, v := range c.col {
		jj += v * v
	}
	c.gj[j] = jj
	c.proposed++
	old := c.z0[j]
	c.z0[j] = zj
	prop, ok := c.logMarginal(j, sigma2)
	if !ok || !(logU < prop-cur+c.slipPrior*logExtra) {
		c.z0[j] = old
		return cur, false
	}
	c.accepted++
	for l := 0; l < k; l++ {
		c.g[j*k+l] = c.gj[l]
		c.g[l*k+j] = c.gj[l]
	}
	for i, v := range c.col {
		c.phi[i*h+j] = v
	}
	copy(theta[off+j*in:off+(j+1)*in], c.u[:in])
	theta[off+h*in+j] = c.u[in]
	return prop, true
}

// logMarginal returns −½ log|A| + ½ rᵀA⁻¹r (r = Φᵀz/σ²), the hidden layers'
// log-likelihood with the output layer integrated out up to a constant, from
// c.g with unit j's row and column replaced by c.gj (j < 0: none) and c.z0;
// false when A is not numerically positive definite.
func (c *OutputConditional) logMarginal(j int, sigma2 float64) (float64, bool) {
	k := c.k
	for i := 0; i < k; i++ {
		for l := 0; l <= i; l++ {
			v := c.g[i*k+l]
			switch {
			case i == j:
				v = c.gj[l]
			case l == j:
				v = c.gj[i]
			}
			c.a2[i*k+l] = v / sigma2
		}
		c.a2[i*k+i] += c.prec[i]
	}
	if !cholLower(c.a2, k) {
		return 0, false
	}
	var logDet, q float64
	for i := 0; i < k; i++ {
		v := c.z0[i] / sigma2
		for l := 0; l < i; l++ {
			v -= c.a2[i*k+l] * c.r2[l]
		}
		c.r2[i] = v / c.a2[i*k+i]
		q += c.r2[i] * c.r2[i]
		logDet += math.Log(c.a2[i*k+i])
	}
	return 0.5*q - c.slipMarg*logDet, !math.IsNaN(q) && !math.IsInf(q, 0)
}
