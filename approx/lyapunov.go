package approx

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// SolveLyapunov solves the continuous Lyapunov equation
//
//	ΣA + AΣ = Q
//
// for Σ, with A and Q symmetric, by diagonalising A (a Bartels–Stewart
// solution for symmetric A): with A = UΛUᵀ and Q̃ = UᵀQU,
// Σ̃ᵢⱼ = Q̃ᵢⱼ/(λᵢ + λⱼ) and Σ = UΣ̃Uᵀ. It needs λᵢ + λⱼ > 0 for all i, j (A
// positive definite suffices).
//
// With A = Λ = −∇²log p(θ|D) and Q = η·Cov(ĝ), Σ is the Ornstein–Uhlenbeck
// prediction of the stationary covariance of constant SGD θ ← θ + ηĝ on a
// quadratic log posterior (Mandt et al. 2017, eq. 13, in the units of
// package langevin: their ΣA + AΣ = (ε/S)BBᵀ with A = Λ/N, ε = Nη, and
// BBᵀ/S = Cov(ĝ)/N²; see package sampler). It neglects the O(ηΛ)
// discretisation correction.
func SolveLyapunov(A, Q mat.Symmetric) (*mat.SymDense, error) {
	d := A.SymmetricDim()
	if Q.SymmetricDim() != d {
		return nil, fmt.Errorf("approx: Lyapunov equation with A %d×%d and Q %d×%d: expected equal sizes", d, d, Q.SymmetricDim(), Q.SymmetricDim())
	}
	var eig mat.EigenSym
	if !eig.Factorize(A, true) {
		return nil, fmt.Errorf("approx: Lyapunov equation: eigendecomposition of A failed")
	}
	lam := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	var qt, tmp mat.Dense
	tmp.Mul(Q, &u)
	qt.Mul(u.T(), &tmp)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s := lam[i] + lam[j]
			if !(s > 0) {
				return nil, fmt.Errorf("approx: Lyapunov equation: eigenvalues %g and %g of A sum to %g: expected A positive definite", lam[i], lam[j], s)
			}
			qt.Set(i, j, qt.At(i, j)/s)
		}
	}
	tmp.Mul(&u, &qt)
	var sig mat.Dense
	sig.Mul(&tmp, u.T())
	out := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			out.SetSym(i, j, (sig.At(i, j)+sig.At(j, i))/2)
		}
	}
	return out, nil
}
