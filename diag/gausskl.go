package diag

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// KLGaussian returns the Kullback–Leibler divergence KL(N₀ ‖ N₁) between the
// d-dimensional Gaussians N₀ = N(m0, S0) and N₁ = N(m1, S1), in nats:
//
//	KL(N₀‖N₁) = ½ [ tr(S1⁻¹S0) + (m1 − m0)ᵀ S1⁻¹ (m1 − m0) − d + log|S1| − log|S0| ].
//
// It is not symmetric: swap the arguments for the other direction.
// KL(q‖p) with q an approximation and p the posterior is the divergence that
// variational inference and Mandt et al.'s constant-SGD tuning minimise.
// Both covariances must be positive definite.
func KLGaussian(m0 []float64, S0 mat.Symmetric, m1 []float64, S1 mat.Symmetric) (float64, error) {
	d := len(m0)
	if len(m1) != d || S0.SymmetricDim() != d || S1.SymmetricDim() != d {
		return math.NaN(), fmt.Errorf("diag: KL between Gaussians of dimensions %d, %d with covariances %d×%d, %d×%d: expected equal dimensions",
			len(m0), len(m1), S0.SymmetricDim(), S0.SymmetricDim(), S1.SymmetricDim(), S1.SymmetricDim())
	}
	var c0, c1 mat.Cholesky
	if !c0.Factorize(S0) {
		return math.NaN(), fmt.Errorf("diag: KL between Gaussians: the first covariance is not positive definite")
	}
	if !c1.Factorize(S1) {
		return math.NaN(), fmt.Errorf("diag: KL between Gaussians: the second covariance is not positive definite")
	}
	var x mat.Dense
	if err := c1.SolveTo(&x, S0); err != nil {
		return math.NaN(), fmt.Errorf("diag: KL between Gaussians: %v", err)
	}
	tr := mat.Trace(&x)
	diff := mat.NewVecDense(d, nil)
	for j := range m0 {
		diff.SetVec(j, m1[j]-m0[j])
	}
	var y mat.VecDense
	if err := c1.SolveVecTo(&y, diff); err != nil {
		return math.NaN(), fmt.Errorf("diag: KL between Gaussians: %v", err)
	}
	q := mat.Dot(diff, &y)
	return 0.5 * (tr + q - float64(d) + c1.LogDet() - c0.LogDet()), nil
}

// FitGaussian returns the sample mean and covariance (divisor n − 1) of the
// draws, each a point of length d (the Gaussian fitted to SGD iterates in
// Mandt et al.'s Table 1). It needs at least two draws.
func FitGaussian(draws [][]float64) (mean []float64, cov *mat.SymDense, err error) {
	n := len(draws)
	if n < 2 {
		return nil, nil, fmt.Errorf("diag: fitting a Gaussian to %d draws: need at least 2", n)
	}
	d := len(draws[0])
	mean = make([]float64, d)
	for i, x := range draws {
		if len(x) != d {
			return nil, nil, fmt.Errorf("diag: fitting a Gaussian: draw %d has %d values, draw 1 has %d", i+1, len(x), d)
		}
		for j, v := range x {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	c := make([]float64, d*d)
	u := make([]float64, d)
	for _, x := range draws {
		for j, v := range x {
			u[j] = v - mean[j]
		}
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				c[a*d+b] += u[a] * u[b]
			}
		}
	}
	cov = mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			cov.SetSym(a, b, c[a*d+b]/float64(n-1))
		}
	}
	return mean, cov, nil
}
