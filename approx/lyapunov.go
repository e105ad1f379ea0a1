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

// ReverseKLStep returns the constant-SGD step that minimises the reverse
// Kullback–Leibler divergence KL(p ‖ q) from the posterior p = N(θ̂, Λ⁻¹) to
// the stationary distribution q = N(θ̂, Σ(η)) of θ ← θ + ηĝ (Mandt, Hoffman
// & Blei 2017, Appendix C), where Λ = prec and C = Cov(ĝ) = (N²/S)·V is the
// minibatch gradient noise, in the Ornstein–Uhlenbeck limit (eq. 13).
//
// There Σ(η) = ηΣ₁ with ΛΣ₁ + Σ₁Λ = C, so
//
//	KL(p ‖ q) = ½[Tr(Σ⁻¹Λ⁻¹) − D + log|Σ| − log|Λ⁻¹|]
//	          = ½[(1/η) Tr(Σ₁⁻¹Λ⁻¹) + D log η] + const,
//
// minimised at
//
//	η_rev = Tr(Σ₁⁻¹Λ⁻¹) / D.
//
// Beside Theorem 1's η* = 2D/Tr C (the minimiser of KL(q ‖ p)): when C and
// Λ commute, η* = 2/mean(cᵢ) and η_rev = 2·mean(1/cᵢ) over C's eigenvalues
// cᵢ, so η_rev ≥ η* (harmonic against arithmetic mean), with equality when
// C ∝ I: the reverse KL is mass-covering and asks for a wider q.
func ReverseKLStep(prec, C mat.Symmetric) (float64, error) {
	d := prec.SymmetricDim()
	s1, err := SolveLyapunov(prec, C)
	if err != nil {
		return 0, err
	}
	var cs, cl mat.Cholesky
	if !cs.Factorize(s1) {
		return 0, fmt.Errorf("approx: reverse-KL step: the stationary covariance is not positive definite (is the gradient noise C singular?)")
	}
	if !cl.Factorize(prec) {
		return 0, fmt.Errorf("approx: reverse-KL step: the precision is not positive definite")
	}
	var si, li mat.SymDense
	if err := cs.InverseTo(&si); err != nil {
		return 0, fmt.Errorf("approx: reverse-KL step: %v", err)
	}
	if err := cl.InverseTo(&li); err != nil {
		return 0, fmt.Errorf("approx: reverse-KL step: %v", err)
	}
	var tr float64 // Tr(Σ₁⁻¹Λ⁻¹) = Σᵢⱼ (Σ₁⁻¹)ᵢⱼ(Λ⁻¹)ⱼᵢ
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tr += si.At(i, j) * li.At(j, i)
		}
	}
	return tr / float64(d), nil
}
