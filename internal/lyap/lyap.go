// Package lyap solves the discrete Lyapunov equation of a linear Gaussian
// recursion, the exact stationary covariance of a constant-step sampler on a
// Gaussian target.
package lyap

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Discrete returns the solution Σ of Σ = A Σ Aᵀ + Q, the stationary
// covariance of xₜ₊₁ = A xₜ + wₜ with wₜ ~ N(0, Q) independent, which exists
// when the spectral radius of A is below 1. It solves the n²×n² linear
// system (I − A⊗A) vec Σ = vec Q directly, which suits the small n of toy
// problems (n ≤ 30 or so).
func Discrete(a, q mat.Matrix) (*mat.SymDense, error) {
	n, c := a.Dims()
	if n != c {
		return nil, fmt.Errorf("lyap: A is %d×%d: expected square", n, c)
	}
	if r, c := q.Dims(); r != n || c != n {
		return nil, fmt.Errorf("lyap: Q is %d×%d: expected %d×%d", r, c, n, n)
	}
	var k mat.Dense
	k.Kronecker(a, a)
	m := mat.NewDense(n*n, n*n, nil)
	for i := 0; i < n*n; i++ {
		for j := 0; j < n*n; j++ {
			v := -k.At(i, j)
			if i == j {
				v++
			}
			m.Set(i, j, v)
		}
	}
	vq := mat.NewVecDense(n*n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vq.SetVec(i*n+j, q.At(i, j))
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(m, vq); err != nil {
		return nil, fmt.Errorf("lyap: I − A⊗A is singular (is A stable?): %v", err)
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (x.AtVec(i*n+j)+x.AtVec(j*n+i))/2)
		}
	}
	return s, nil
}
