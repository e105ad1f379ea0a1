package experiment

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/internal/lyap"
	"github.com/langevin-go/langevin/sampler"
)

// sdMCSE returns the pooled sample sd of the chains and its Monte Carlo
// standard error: with z = (x − x̄)², se(s²) = sd(z)/√ESS(z) (ESS of the mean
// of z, diag.ESSMean) and se(s) = se(s²)/(2s).
func sdMCSE(chains [][]float64) (sd, se float64) {
	_, sd = meanSD(pool(chains))
	m, _ := meanSD(pool(chains))
	z := make([][]float64, len(chains))
	for c, ch := range chains {
		z[c] = make([]float64, len(ch))
		for i, v := range ch {
			z[c][i] = (v - m) * (v - m)
		}
	}
	_, sdz := meanSD(pool(z))
	ess := diag.ESSMean(z)
	return sd, sdz / math.Sqrt(ess) / (2 * sd)
}

// negHessian returns H = −∇²log p(θ|D) at theta by central finite differences
// of the full-data gradient (langevin.HessianFD), symmetrised.
func negHessian(m langevin.Model, theta []float64) *mat.SymDense {
	d := m.Dim()
	h := make([]float64, d*d)
	langevin.HessianFD(m, theta, h)
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2)
		}
	}
	return s
}

// obsGradCov returns the covariance over the N observations of the
// per-observation log-likelihood gradients ∇log p(zᵢ|θ) (divided by N):
// sampler.GradCov, Mandt et al.'s BBᵀ.
func obsGradCov(m langevin.Model, theta []float64) *mat.SymDense {
	s := mat.NewSymDense(m.Dim(), nil)
	if err := sampler.GradCov(m, theta, s); err != nil {
		panic(err) // programmer error: theta of the wrong length
	}
	return s
}

// covMCSE returns the sample covariance of the pooled draws (chains[c][i]
// is the point i of chain c) and the Monte Carlo standard error of each
// entry: with zᵢ = (x_a − x̄_a)(x_b − x̄_b), se = sd(z)/√ESS(z) (diag.ESSMean
// over the chains).
func covMCSE(chains [][][]float64) (cov, se *mat.SymDense) {
	d := len(chains[0][0])
	mean := make([]float64, d)
	var n float64
	for _, ch := range chains {
		for _, x := range ch {
			for a, v := range x {
				mean[a] += v
			}
			n++
		}
	}
	for a := range mean {
		mean[a] /= n
	}
	cov = mat.NewSymDense(d, nil)
	se = mat.NewSymDense(d, nil)
	z := make([][]float64, len(chains))
	for c, ch := range chains {
		z[c] = make([]float64, len(ch))
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			for c, ch := range chains {
				for i, x := range ch {
					z[c][i] = (x[a] - mean[a]) * (x[b] - mean[b])
				}
			}
			m, sd := meanSD(pool(z))
			cov.SetSym(a, b, m*n/(n-1))
			se.SetSym(a, b, sd/math.Sqrt(diag.ESSMean(z)))
		}
	}
	return cov, se
}

// minibatchCov returns the covariance of the minibatch estimate
// (N/B) Σ_{i∈B} ∇log p(zᵢ|θ) of the full-data gradient, for batches of size
// b drawn without replacement: N²/B · (N − B)/(N − 1) · cov, cov the
// per-observation covariance (obsGradCov).
func minibatchCov(cov *mat.SymDense, n, b int) *mat.SymDense {
	var c mat.SymDense
	f := float64(n) * float64(n) / float64(b) * float64(n-b) / float64(n-1)
	c.ScaleSym(f, cov)
	return &c
}

// sgldStationaryCov returns the stationary covariance of preconditioned SGLD
// θ ← θ + ηM ĝ + √(2ητM) ξ on a Gaussian posterior with negative Hessian H
// and gradient-estimate covariance C: the solution of the discrete Lyapunov
// equation Σ = AΣAᵀ + Q with A = I − ηMH and Q = η²MCM + 2ητM (M diagonal,
// nil for the identity; C nil for full-batch gradients; τ = 0 for SGD).
func sgldStationaryCov(h, c *mat.SymDense, eta, tau float64, precond []float64) (*mat.SymDense, error) {
	d := h.SymmetricDim()
	mdiag := make([]float64, d)
	for i := range mdiag {
		mdiag[i] = 1
		if precond != nil {
			mdiag[i] = precond[i]
		}
	}
	a := mat.NewDense(d, d, nil)
	q := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := -eta * mdiag[i] * h.At(i, j)
			if i == j {
				v++
				q.Set(i, j, 2*eta*tau*mdiag[i])
			}
			a.Set(i, j, v)
			if c != nil {
				q.Set(i, j, q.At(i, j)+eta*eta*mdiag[i]*c.At(i, j)*mdiag[j])
			}
		}
	}
	s, err := lyap.Discrete(a, q)
	if err != nil {
		return nil, fmt.Errorf("stationary covariance at η = %g: %w", eta, err)
	}
	return s, nil
}
