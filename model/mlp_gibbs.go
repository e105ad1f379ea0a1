package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin/internal/linalg"
	"gonum.org/v1/gonum/blas"
)

// OutputConditional draws the output layer of a homoscedastic Gaussian
// [MLP] exactly from its conditional law given the other parameters: a
// Gibbs block that a stochastic-gradient sampler composes with its steps
// (sampler.SGHMC's Gibbs field).
//
// Given the hidden layers and σ², the network is linear in its output layer
// β = (w, b) (W⁽ᴸ⁾'s one row, then b⁽ᴸ⁾): f(xᵢ) = φᵢᵀβ with φᵢ = (a⁽ᴸ⁻¹⁾(xᵢ), 1)
// the last hidden layer's activations and a one (the inputs themselves
// without a hidden layer). With the prior β ~ N(0, P⁻¹), P = diag(1/s_w²,
// …, 1/s_b²) (the output layer's scales, by fan-in), and z the responses
// (standardised with StandardizeY), the conditional is Gaussian,
//
//	β | rest, D ~ N(μ, τ A⁻¹),  A = ΦᵀΦ/σ² + P,  μ = A⁻¹ Φᵀz/σ²,
//
// on all n rows (no minibatch: the draw is exact), at temperature τ (the
// target p(θ|D)^{1/τ}; τ = 0 gives the conditional mode μ). With the
// Cholesky factor A = LLᵀ the draw is β = L⁻ᵀ(L⁻¹Φᵀz/σ² + √τ ξ), ξ ~ N(0, I):
// its covariance is L⁻ᵀL⁻¹ = A⁻¹. The cost is a forward pass over the n
// rows, n·k² multiply-adds for ΦᵀΦ (k = H + 1) and k³/6 for the factor.
//
// It is not defined (NewOutputConditional returns an error) for the other
// likelihoods, the heteroscedastic network (the output layer's second unit
// enters through e^{−s(x)}: no conjugate form) and the hierarchical prior
// (ScaleShape: a Student-t prior). An OutputConditional holds its own
// workspace: one per chain; it allocates nothing per draw.
type OutputConditional struct {
	m    *MLP
	k    int       // H + 1
	off  int       // offset of W⁽ᴸ⁾ in θ
	a    []float64 // k×k, row-major: A, then its Cholesky factor L (lower)
	r    []float64 // k: Φᵀz/σ², then L⁻¹ of it plus √τ ξ
	prec []float64 // k: the prior precisions P

	// slipCov and slipData are test hooks: a draw's noise multiplied by
	// slipCov and ΦᵀΦ by slipData (1 and 1 in use).
	slipCov, slipData float64

	// Unit moves (SetUnitMoves; mlp_units.go).
	moves              int
	next               int       // the next unit proposed
	accepted, proposed int       // counts of the moves
	phi                []float64 // n×H: the last hidden layer's activations
	prev               []float64 // n×fan-in: its inputs (deeper networks)
	col                []float64 // n: a proposed unit's activations
	g                  []float64 // k×k: ΦᵀΦ, full
	gj, z0, r2, u      []float64 // a proposed row of ΦᵀΦ; Φᵀz; solve; the proposed unit
	a2                 []float64 // k×k: a proposed A's factor
	zz                 float64   // zᵀz (0: not yet computed)
	local, nextLocal   int       // random-walk unit moves a Draw; the next unit
	localScale         []float64 // per unit: the random walk's scale relative to the prior sd
	adaptN             []int     // per unit: moves adapted so far
	adapt              bool
	slipPrior          float64 // test hook: a random walk's log prior ratio times slipPrior (1 in use)
	slipMarg           float64 // test hook: the marginal's log-determinant times slipMarg (1 in use)
}

// NewOutputConditional returns the output layer's conditional of m, or an
// error saying why m has none.
func (m *MLP) NewOutputConditional() (*OutputConditional, error) {
	switch {
	case m.lik != LikGaussian:
		return nil, fmt.Errorf("model: MLP output layer: no conjugate conditional for the %v likelihood", m.lik)
	case m.het:
		return nil, errors.New("model: MLP output layer: no conjugate conditional for the heteroscedastic network (its noise is the output layer's second unit)")
	case m.shape > 0:
		return nil, errors.New("model: MLP output layer: no conjugate conditional with the hierarchical prior (ScaleShape: a Student-t prior)")
	}
	L := len(m.sizes) - 1
	k := m.sizes[L-1] + 1
	c := &OutputConditional{m: m, k: k, off: m.off[L-1], a: make([]float64, k*k), r: make([]float64, k), prec: make([]float64, k),
		slipCov: 1, slipData: 1, slipMarg: 1, slipPrior: 1}
	for j := range c.prec {
		c.prec[j] = 1 / (m.scale[L-1] * m.scale[L-1])
	}
	c.prec[k-1] = 1 / (m.bscale[L-1] * m.bscale[L-1])
	return c, nil
}

// Size returns the number of parameters drawn, k = H + 1.
func (c *OutputConditional) Size() int { return c.k }

// Flops returns the multiply-adds of one draw: a forward pass through the
// hidden layers on the n rows, ΦᵀΦ (n·k(k+1)/2), the Cholesky factor (k³/6)
// and two triangular solves (k²).
func (c *OutputConditional) Flops() float64 {
	m := c.m
	var fwd float64
	for l := 1; l < len(m.sizes)-1; l++ {
		fwd += float64(m.sizes[l] * m.sizes[l-1])
	}
	k := float64(c.k)
	return float64(m.n)*(fwd+k*(k+1)/2) + k*k*k/6 + k*k + c.unitFlops()
}

// Draw overwrites the output layer's entries of theta with a draw from
// their conditional law at temperature tau (see [OutputConditional]), using
// rng's normals (k of them when tau > 0, none at tau = 0), after the unit
// and noise moves of SetUnitMoves if set. It returns an error, leaving the
// output layer unchanged, when A is not numerically positive definite (not
// finite σ² or activations).
func (c *OutputConditional) Draw(theta []float64, tau float64, rng *rand.Rand) error {
	m, k := c.m, c.k
	checkTheta("MLP OutputConditional", theta, m.dim)
	sigma2 := m.noiseVar
	if m.learn {
		sigma2 = math.Exp(theta[m.dim-1])
	}
	clear(c.a)
	clear(c.r)
	if c.moves+c.local > 0 && tau == 1 {
		sigma2 = c.unitSweep(theta, sigma2, rng)
	} else {
		c.accumulate(theta)
	}
	s := c.slipData / sigma2
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			c.a[j*k+i] = s * c.a[i*k+j] // lower triangle from the upper
		}
		c.a[i*k+i] += c.prec[i]
		c.r[i] /= sigma2
	}
	if !cholLower(c.a, k) {
		return fmt.Errorf("model: MLP output layer's conditional precision is not positive definite (σ² = %g)", sigma2)
	}
	// u = L⁻¹ Φᵀz/σ² (forward), then β = L⁻ᵀ(u + √τ ξ) (backward).
	linalg.SolveLower(c.r, c.a, c.r, k)
	if tau > 0 {
		sd := c.slipCov * math.Sqrt(tau)
		for i := range c.r {
			c.r[i] += sd * rng.NormFloat64()
		}
	}
	linalg.SolveLowerT(c.r, c.a, c.r, k)
	if !finiteAll(c.r) {
		return fmt.Errorf("model: MLP output layer's conditional draw is not finite (σ² = %g)", sigma2)
	}
	copy(theta[c.off:c.off+k], c.r)
	return nil
}

// accumulate adds ΦᵀΦ's upper triangle to c.a (stride k) and Φᵀz to c.r at
// theta, a forward pass over the n rows.
func (c *OutputConditional) accumulate(theta []float64) {
	m, k := c.m, c.k
	h := k - 1
	L := len(m.sizes) - 1
	w := m.pool.get()
	defer m.pool.put(w)
	for i0 := 0; i0 < m.n; i0 += mlpChunk {
		r := min(mlpChunk, m.n-i0)
		x := m.x[i0*m.p : (i0+r)*m.p]
		phi := x
		if L > 1 {
			m.forwardHidden(theta, x, r, w)
			phi = w.a[L-1][:r*h]
		}
		z := m.y[i0 : i0+r]
		// Upper triangle of the H×H block of ΦᵀΦ, in A's top-left (row-major, stride k).
		native.Dsyrk(blas.Upper, blas.Trans, h, r, 1, phi, h, 1, c.a, k)
		for q := 0; q < r; q++ {
			row := phi[q*h : (q+1)*h]
			zq := z[q]
			for j, v := range row {
				c.a[j*k+h] += v // the ones column
				c.r[j] += v * zq
			}
			c.r[h] += zq
		}
		c.a[h*k+h] += float64(r)
	}
}

// cholLower overwrites the lower triangle of the symmetric k×k matrix a
// (row-major; the lower triangle is read) with its Cholesky factor L, a =
// LLᵀ, and reports whether a is positive definite.
func cholLower(a []float64, k int) bool { return linalg.CholLower(a, a, k) }

func finiteAll(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
