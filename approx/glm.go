package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// GLMNetwork is what the linearised Laplace approximation needs of a
// regression network with a Gaussian likelihood (model.MLP has it).
type GLMNetwork interface {
	langevin.Model
	// OutputJacobian writes f(xᵢ; θ) into f[i−i0] and Jᵢ = ∂f(xᵢ; θ)/∂θ into
	// row i−i0 of jac ((i1−i0) × Dim, row-major) for the rows i0 ≤ i < i1 of
	// X (nil X: the model's training inputs, Len rows), in the response's
	// units.
	OutputJacobian(theta []float64, X *mat.Dense, i0, i1 int, f, jac []float64)
	// NoiseVar returns the Gaussian noise variance σ² at θ in the
	// response's units (0: not a Gaussian likelihood).
	NoiseVar(theta []float64) float64
	// LearnsNoise reports whether the last parameter is γ = log σ².
	LearnsNoise() bool
}

// HeteroNetwork is a [GLMNetwork] that may have a heteroscedastic noise,
// s(x) = log σ²(x) a second output of the network (model.MLP with Hetero
// has it). [NewGLMLaplace] then uses the Fisher information of the
// Gaussian in (μ, s), diag(e^{−s}, ½), so that
//
//	Λ = Σᵢ e^{−sᵢ} J_μᵢᵀ J_μᵢ + ½ Σᵢ J_sᵢᵀ J_sᵢ + P,
//
// and the linearised network predicts with σ̂²(x) = exp s(x; θ̂).
type HeteroNetwork interface {
	GLMNetwork
	// Hetero reports whether the noise is heteroscedastic.
	Hetero() bool
	// NoiseJacobian is OutputJacobian for s(x) = log σ²(x), in the
	// response's units.
	NoiseJacobian(theta []float64, X *mat.Dense, i0, i1 int, s, jac []float64)
	// NoiseVars writes σ²(xᵢ) at θ of the rows of X into dst.
	NoiseVars(theta []float64, X *mat.Dense, dst []float64)
}

// heteroOf returns net as a heteroscedastic network, or nil.
func heteroOf(net GLMNetwork) HeteroNetwork {
	if h, ok := net.(HeteroNetwork); ok && h.Hetero() {
		return h
	}
	return nil
}

// GLMFullMax is the largest number of parameters for which [NewGLMLaplace]
// keeps the full d × d precision (8·d² bytes: 200 MB at 5,000, and O(d³)
// to factorise); above it the precision is diagonal.
const GLMFullMax = 5000

// glmFullMax is GLMFullMax; tests lower it to check the diagonal variant.
var glmFullMax = GLMFullMax

// GLMLaplace is the linearised ("GLM") Laplace approximation of a network's
// posterior (MacKay 1992; Immer, Korzepa & Bauer 2021, "Improving
// predictions of Bayesian neural nets via local linearization"). The
// network is replaced by its first-order Taylor expansion in the weights at
// the MAP θ̂,
//
//	f_lin(x; θ) = f(x; θ̂) + J(x)(θ − θ̂),   J(x) = ∂f(x; θ)/∂θ at θ̂,
//
// a linear model in θ, whose posterior under the Gaussian likelihood
// N(y; f_lin, σ̂²) (σ̂² the noise at θ̂) is Gaussian, N(θ̂, Λ⁻¹), with the
// generalised Gauss–Newton (GGN) precision plus the prior's:
//
//	Λ = Σᵢ Jᵢᵀ Jᵢ / σ̂² + P,   P = −∇²log p(θ) at θ̂,
//
// over the n training rows. The predictive at x* is then
//
//	y* | x*, D ≈ N(f(x*; θ̂), J(x*) Λ⁻¹ J(x*)ᵀ + σ̂²).
//
// Unlike N(θ̂, H⁻¹) pushed through the nonlinear network (the weight-space
// Laplace approximation, which predicts nonsense for networks: draws far
// along flat or negative-curvature directions of an inexact mode change f
// arbitrarily), the GGN is positive semi-definite by construction, so Λ is
// positive definite whenever the prior is proper, and the predictive mean
// is the MAP network's. With a learned noise, γ = log σ² gets the Fisher
// information of the Gaussian likelihood, n/2 (its cross-terms with the
// weights have expectation 0), plus its prior's precision; the predictive
// uses σ̂² as a plug-in (the γ uncertainty, relative sd ≈ √(2/n), is
// ignored). P is the prior's Hessian by central differences of its
// gradient (exact for a Gaussian prior). Up to [GLMFullMax] parameters Λ is
// full and factorised by Cholesky; above, only its diagonal is kept (the
// "diagonal GGN" variant, which ignores the correlations between weights
// and so under- or over-states the predictive variance; Diagonal says so).
//
// For a linear model f = wᵀx + b (a network without hidden layer) the
// linearisation is exact and GLMLaplace is Bayesian linear regression with
// known noise σ̂².
type GLMLaplace struct {
	Mode []float64 // θ̂
	// Sigma2 is σ̂², the noise variance at θ̂, in the response's units
	// (heteroscedastic: its mean over the training rows; the predictions
	// use σ̂²(x)).
	Sigma2   float64
	Diagonal bool // Λ kept as its diagonal (d > GLMFullMax)

	net  GLMNetwork
	het  HeteroNetwork // nil: homoscedastic
	d    int
	chol blas64.Triangular // full: L of Λ = L Lᵀ (lower)
	diag []float64         // diagonal: Λⱼⱼ
}

// NewGLMLaplace builds the linearised Laplace approximation of net's
// posterior at mode (its cost: one Jacobian per training row, n·d² for the
// GGN and d³/3 for the Cholesky factor). It fails when net's likelihood is
// not Gaussian or Λ is not positive definite (an improper prior).
func NewGLMLaplace(ctx context.Context, net GLMNetwork, mode []float64) (*GLMLaplace, error) {
	d, n := net.Dim(), net.Len()
	if len(mode) != d {
		return nil, fmt.Errorf("approx: GLM Laplace at a point of %d values, the network has %d parameters", len(mode), d)
	}
	s2 := net.NoiseVar(mode)
	if !(s2 > 0) || math.IsInf(s2, 0) {
		return nil, fmt.Errorf("approx: GLM Laplace: noise variance %v at the MAP: the linearised Laplace approximation needs a Gaussian likelihood with σ² > 0", s2)
	}
	g := &GLMLaplace{Mode: append([]float64(nil), mode...), Sigma2: s2, Diagonal: d > glmFullMax, net: net, d: d, het: heteroOf(net)}
	// The GGN, Σᵢ JᵢᵀJᵢ/σ̂², chunk by chunk of rows (heteroscedastic:
	// Σᵢ e^{−sᵢ} J_μᵢᵀJ_μᵢ + ½ J_sᵢᵀJ_sᵢ).
	const chunk = 256
	jac := make([]float64, chunk*d)
	f := make([]float64, chunk)
	var jacS, sv []float64
	if g.het != nil {
		jacS, sv = make([]float64, chunk*d), make([]float64, chunk)
	}
	var lam []float64 // full: upper triangle of Λ, row-major d×d; diagonal: Λⱼⱼ
	if g.Diagonal {
		lam = make([]float64, d)
	} else {
		lam = make([]float64, d*d)
	}
	for i0 := 0; i0 < n; i0 += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := min(chunk, n-i0)
		net.OutputJacobian(mode, nil, i0, i0+r, f, jac)
		alpha := 1 / s2
		if g.het != nil {
			// Rows scaled by √(e^{−sᵢ}) and √½: the Fisher of (μ, s).
			g.het.NoiseJacobian(mode, nil, i0, i0+r, sv, jacS)
			for k := 0; k < r; k++ {
				w := math.Exp(-sv[k] / 2)
				for j := range jac[k*d : (k+1)*d] {
					jac[k*d+j] *= w
					jacS[k*d+j] *= math.Sqrt2 / 2
				}
			}
			alpha = 1
		}
		for _, J := range [2][]float64{jac, jacS} {
			if J == nil {
				continue
			}
			if g.Diagonal {
				for k := 0; k < r; k++ {
					for j, v := range J[k*d : (k+1)*d] {
						lam[j] += v * v * alpha
					}
				}
				continue
			}
			blas64.Syrk(blas.Trans, alpha, blas64.General{Rows: r, Cols: d, Stride: d, Data: J[:r*d]},
				1, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: lam})
		}
	}
	at := func(i, j int) int {
		if g.Diagonal {
			return i
		}
		return min(i, j)*d + max(i, j)
	}
	if net.LearnsNoise() {
		lam[at(d-1, d-1)] += float64(n) / 2 // the Fisher information of γ = log σ²
	}
	// The prior's precision P by central differences of its gradient.
	th := append([]float64(nil), mode...)
	gp, gm := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		twoH := priorGradPair(net, mode, th, gp, gm, j)
		if g.Diagonal {
			lam[j] -= (gp[j] - gm[j]) / twoH
			continue
		}
		for i := 0; i <= j; i++ { // column j, upper triangle (i ≤ j); P symmetric
			lam[i*d+j] -= (gp[i] - gm[i]) / twoH
		}
	}
	if g.Diagonal {
		for j, v := range lam {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("approx: GLM Laplace: precision of %s is %v: expected > 0 (a proper prior)", langevin.ParamNames(net)[j], v)
			}
		}
		g.diag = lam
		return g, nil
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(d, lam)) {
		return nil, fmt.Errorf("approx: GLM Laplace: the precision (GGN + prior) is not positive definite: is the prior proper?")
	}
	var L mat.TriDense
	chol.LTo(&L)
	g.chol = L.RawTriangular()
	return g, nil
}

// Predict writes the linearised predictive of the rows of X: the mean
// f(xᵢ; θ̂) into mean and the variance of f, J(xᵢ) Λ⁻¹ J(xᵢ)ᵀ, into varF
// (add Sigma2 for the variance of a new observation), in the response's
// units.
func (g *GLMLaplace) Predict(X *mat.Dense, mean, varF []float64) {
	n, _ := X.Dims()
	if len(mean) != n || len(varF) != n {
		panic(fmt.Sprintf("approx: GLM Laplace Predict: len(mean) %d, len(varF) %d, want %d", len(mean), len(varF), n))
	}
	const chunk = 256
	d := g.d
	jac := make([]float64, chunk*d)
	for i0 := 0; i0 < n; i0 += chunk {
		r := min(chunk, n-i0)
		g.net.OutputJacobian(g.Mode, X, i0, i0+r, mean[i0:i0+r], jac)
		if g.Diagonal {
			for k := 0; k < r; k++ {
				var v float64
				for j, x := range jac[k*d : (k+1)*d] {
					v += x * x / g.diag[j]
				}
				varF[i0+k] = v
			}
			continue
		}
		// V = J L⁻ᵀ (r × d): the variance of row k is ‖Vₖ‖².
		blas64.Trsm(blas.Right, blas.Trans, 1, g.chol, blas64.General{Rows: r, Cols: d, Stride: d, Data: jac[:r*d]})
		for k := 0; k < r; k++ {
			var v float64
			for _, x := range jac[k*d : (k+1)*d] {
				v += x * x
			}
			varF[i0+k] = v
		}
	}
}

// Sampler returns a sampler whose chains draw independently from N(θ̂, Λ⁻¹),
// θ = θ̂ + L⁻ᵀξ (ξ standard normal; diagonal: θⱼ = θ̂ⱼ + ξⱼ/√Λⱼⱼ). Its chains
// ignore the initial point. Per-draw statistic: lp__ = −½ξᵀξ. Draws are
// meant for the linearised network ([GLMLaplace.Linearized]): pushed through
// the network itself they are the weight-space Laplace approximation's
// failure again.
func (g *GLMLaplace) Sampler() langevin.Sampler { return glmSampler{g} }

type glmSampler struct{ g *GLMLaplace }

func (glmSampler) StatNames() []string { return []string{"lp__"} }

func (s glmSampler) NewChain(m langevin.Model, _ []float64, rng *rand.Rand) (langevin.Chain, error) {
	if m.Dim() != s.g.d {
		return nil, fmt.Errorf("approx: GLM Laplace sampler of dimension %d for a model with %d parameters", s.g.d, m.Dim())
	}
	return &glmChain{g: s.g, rng: rng, xi: make([]float64, s.g.d), theta: append([]float64(nil), s.g.Mode...)}, nil
}

type glmChain struct {
	g         *GLMLaplace
	rng       *rand.Rand
	xi, theta []float64
	lp        float64
}

func (c *glmChain) Step() error {
	var ss float64
	for j := range c.xi {
		c.xi[j] = c.rng.NormFloat64()
		ss += c.xi[j] * c.xi[j]
	}
	c.lp = -ss / 2
	if c.g.Diagonal {
		for j, x := range c.xi {
			c.theta[j] = c.g.Mode[j] + x/math.Sqrt(c.g.diag[j])
		}
		return nil
	}
	// Lᵀ u = ξ: u = L⁻ᵀξ has covariance (L Lᵀ)⁻¹ = Λ⁻¹.
	blas64.Trsv(blas.Trans, c.g.chol, blas64.Vector{N: c.g.d, Inc: 1, Data: c.xi})
	for j, u := range c.xi {
		c.theta[j] = c.g.Mode[j] + u
	}
	return nil
}

func (c *glmChain) Position() []float64 { return c.theta }

func (c *glmChain) Stats(dst []float64) { dst[0] = c.lp }

// Linearized returns the network linearised at θ̂ as a regressor (package
// predict's Regressor): RegressionMean(θ, X) = f(X; θ̂) + J(X)(θ − θ̂), and
// NoiseVar σ̂² whatever θ. The posterior predictive of the draws of
// [GLMLaplace.Sampler] through it is a Monte Carlo estimate of the closed
// form of [GLMLaplace.Predict]. J(X) of the last X is kept (the test set's
// is reused for every draw); safe for concurrent use.
func (g *GLMLaplace) Linearized() *Linearized { return &Linearized{g: g} }

// Linearized is the network linearised at the MAP; see [GLMLaplace.Linearized].
type Linearized struct {
	g   *GLMLaplace
	mu  sync.Mutex
	X   *mat.Dense
	f   []float64
	jac []float64
}

// RegressionMean writes f(xᵢ; θ̂) + J(xᵢ)(θ − θ̂) for the rows of X into dst.
func (l *Linearized) RegressionMean(theta []float64, X *mat.Dense, dst []float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, _ := X.Dims()
	d := l.g.d
	if l.X != X || len(l.f) != n {
		l.X, l.f, l.jac = X, make([]float64, n), make([]float64, n*d)
		if n > 0 {
			l.g.net.OutputJacobian(l.g.Mode, X, 0, n, l.f, l.jac)
		}
	}
	for i := range dst[:n] {
		v := l.f[i]
		for j, x := range l.jac[i*d : (i+1)*d] {
			v += x * (theta[j] - l.g.Mode[j])
		}
		dst[i] = v
	}
}

// NoiseVar returns σ̂², the noise variance at the MAP.
func (l *Linearized) NoiseVar([]float64) float64 { return l.g.Sigma2 }

// NoiseVars writes σ̂²(xᵢ) at the MAP of the rows of X (package predict's
// PointNoise): the heteroscedastic network's plug-in noise, or σ̂² on
// every row.
func (l *Linearized) NoiseVars(_ []float64, X *mat.Dense, dst []float64) {
	if l.g.het != nil {
		l.g.het.NoiseVars(l.g.Mode, X, dst)
		return
	}
	for i := range dst {
		dst[i] = l.g.Sigma2
	}
}
