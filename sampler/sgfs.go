package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/schedule"
)

// SGFS is stochastic gradient Fisher scoring (Ahn, Korattikara & Welling
// 2012) in the form analysed by Mandt et al. (2017, Theorem 5 and Corollary
// 6): preconditioned SGD with injected Gaussian noise,
//
//	θ ← θ + M (ĝ(θ) + ζ),   ζ ~ N(0, E),   M = 2 (C + E)⁻¹,
//
// where C = Cov(ĝ) = (N²/S)·V is the minibatch gradient noise (V = GradCov,
// Mandt et al.'s BBᵀ, estimated once at the mode) and E the injected noise.
// On a quadratic log posterior the stationary covariance solves
// MΛΣ + ΣΛM = M(C + E)M, so Σ = Λ⁻¹ exactly for every E: the preconditioner
// absorbs the step size, and no step size has to vanish (Mandt et al.'s
// H* = (2/N)(εBBᵀ + EEᵀ)⁻¹ in their units, H = NM).
//
// Following Ahn et al. (injected noise proportional to the Fisher
// information, B ∝ C, step ε), E = (4/ε)·C, so that M = (2ε/(ε + 4))·C⁻¹: ε → ∞ is
// the optimal full-preconditioned constant SGD, small ε an SGLD-like chain
// driven mostly by injected noise.
//
// Diag keeps only the diagonals (SGFS-d): M_kk = 2/(C_kk + E_kk), with
// E_kk = (4/ε)C_kk, or with the h_max stabilisation when Hmax > 0:
// E_kk = max(0, 2/Hmax − C_kk), so that M_kk = min(Hmax, 2/C_kk) (Mandt et
// al.'s EEᵀ_kk = 2/(h_max N) − εBBᵀ_kk; our Hmax is their h_max/N). Its
// stationary covariance is not the posterior's when C is not diagonal.
//
// Scalar keeps the full injected noise E = (4/ε)C but restricts the
// preconditioner to a multiple of the identity, M = m·I, at the KL-optimal
// scalar of Mandt et al.'s Corollary 6 (their H = (2D/N)/Tr(εBBᵀ + EEᵀ)):
//
//	m = 2D / Tr(C + E) = (2ε/(ε + 4)) · D / Tr C,
//
// see [SGFSScalarStep]. On a quadratic log posterior its stationary
// covariance solves ΛΣ + ΣΛ = m(C + E) in the small-step limit (exactly,
// Σ = (I − mΛ)Σ(I − mΛ) + m²(C + E)); it is the posterior's only when C ∝ Λ.
//
// Per-draw statistics: lp__ and stepsize__ (the mean of M_kk).
type SGFS struct {
	Batch   Minibatch     // Size ≥ 1
	GradCov *mat.SymDense // V at the mode (see GradCov)
	Eps     float64       // ε > 0 of the injected noise E = (4/ε)C (ignored with Hmax)
	Diag    bool          // SGFS-d
	Scalar  bool          // scalar SGFS (Corollary 6); excludes Diag
	Hmax    float64       // diagonal only: largest M_kk; 0: off
}

// SGFSScalarStep returns scalar SGFS's preconditioner m = 2D/Tr(C + E)
// with C = (N²/S)·V and E = (4/ε)·C (Mandt et al. 2017, Corollary 6, in
// our units): the m that minimises KL(stationary ‖ posterior) among
// multiples of the identity, since by the Lyapunov equation
// Tr(ΛΣ) = (m/2)Tr(C + E) and log|Σ| = D log m + const, so
// KL = ¼ m Tr(C + E) − (D/2) log m + const.
func SGFSScalarStep(V mat.Symmetric, n, s int, eps float64) float64 {
	d := V.SymmetricDim()
	var tr float64
	for k := 0; k < d; k++ {
		tr += V.At(k, k)
	}
	nf := float64(n)
	trC := nf * nf / float64(s) * tr
	return 2 * float64(d) / ((1 + 4/eps) * trC)
}

// StatNames implements langevin.Sampler.
func (s SGFS) StatNames() []string { return []string{"lp__", "stepsize__"} }

// NewChain implements langevin.Sampler.
func (s SGFS) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	d := m.Dim()
	if s.GradCov == nil || s.GradCov.SymmetricDim() != d {
		return nil, fmt.Errorf("sampler: SGFS needs the gradient covariance V as a %d×%d matrix", d, d)
	}
	if s.Hmax < 0 || math.IsNaN(s.Hmax) || math.IsInf(s.Hmax, 0) || (s.Hmax > 0 && !s.Diag) {
		return nil, fmt.Errorf("sampler: SGFS h_max = %v: expected h_max > 0 with the diagonal form (0 turns it off)", s.Hmax)
	}
	if s.Hmax == 0 && (!(s.Eps > 0) || math.IsInf(s.Eps, 0)) {
		return nil, fmt.Errorf("sampler: SGFS ε = %v: expected a positive finite number", s.Eps)
	}
	if s.Batch.Size < 1 {
		return nil, fmt.Errorf("sampler: SGFS needs a minibatch size ≥ 1")
	}
	if s.Scalar && (s.Diag || s.Hmax > 0) {
		return nil, fmt.Errorf("sampler: SGFS: Scalar excludes Diag and Hmax")
	}
	g, err := newGradChain(m, theta0, s.Batch, schedule.Constant(1), Clipping{}, rng)
	if err != nil {
		return nil, err
	}
	nf, sf := float64(m.Len()), float64(s.Batch.Size)
	c := mat.NewSymDense(d, nil)
	c.ScaleSym(nf*nf/sf, s.GradCov)
	ch := &sgfsChain{gradChain: g, rng: rng, d: d, xi: make([]float64, d), z: make([]float64, d)}
	if s.Diag {
		ch.pre = make([]float64, d)
		ch.noiseSD = make([]float64, d)
		for k := 0; k < d; k++ {
			ckk := c.At(k, k)
			if !(ckk > 0) {
				return nil, fmt.Errorf("sampler: SGFS: gradient variance of parameter %d is %v: expected > 0", k+1, ckk)
			}
			e := 4 / s.Eps * ckk
			if s.Hmax > 0 {
				e = max(0, 2/s.Hmax-ckk)
			}
			ch.pre[k] = 2 / (ckk + e)
			ch.noiseSD[k] = math.Sqrt(e)
			ch.preMean += ch.pre[k] / float64(d)
		}
		return ch, nil
	}
	var chol mat.Cholesky
	if !chol.Factorize(c) {
		return nil, fmt.Errorf("sampler: SGFS: the gradient covariance is not positive definite")
	}
	inv := mat.NewSymDense(d, nil)
	if err := chol.InverseTo(inv); err != nil {
		return nil, fmt.Errorf("sampler: SGFS: %v", err)
	}
	f := 2 * s.Eps / (s.Eps + 4)
	ch.cholE = make([]float64, d*d)
	var l mat.TriDense
	chol.LTo(&l)
	se := math.Sqrt(4 / s.Eps)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			ch.cholE[i*d+j] = se * l.At(i, j)
		}
	}
	if s.Scalar {
		ch.scalar = SGFSScalarStep(s.GradCov, m.Len(), s.Batch.Size, s.Eps)
		ch.preMean = ch.scalar
		return ch, nil
	}
	ch.full = &metric{d: d, dense: true, m: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			ch.full.m[i*d+j] = f * inv.At(i, j)
		}
		ch.preMean += ch.full.m[i*d+i] / float64(d)
	}
	return ch, nil
}

type sgfsChain struct {
	*gradChain
	rng     *rand.Rand
	d       int
	pre     []float64 // diagonal M
	noiseSD []float64 // diagonal √E
	full    *metric   // full M (dense; mul only)
	scalar  float64   // scalar M = m·I (with cholE), when full and pre are nil
	cholE   []float64 // lower Cholesky factor of E, row-major
	xi, z   []float64
	preMean float64
}

func (c *sgfsChain) Step() error {
	c.gradient()
	if c.pre != nil {
		for j, g := range c.grad {
			c.theta[j] += c.pre[j] * (g + c.noiseSD[j]*c.rng.NormFloat64())
		}
	} else {
		d := c.d
		for j := range c.xi {
			c.xi[j] = c.rng.NormFloat64()
		}
		for i := 0; i < d; i++ {
			s := c.grad[i]
			for j, v := range c.cholE[i*d : i*d+i+1] {
				s += v * c.xi[j]
			}
			c.z[i] = s
		}
		if c.full == nil {
			for j, v := range c.z {
				c.theta[j] += c.scalar * v
			}
		} else {
			c.full.mul(c.xi, c.z)
			for j, v := range c.xi {
				c.theta[j] += v
			}
		}
	}
	return diverged("SGFS", c.t, c.theta, "")
}

func (c *sgfsChain) Position() []float64 { return c.theta }

func (c *sgfsChain) Stats(dst []float64) { dst[0], dst[1] = c.lp, c.preMean }
