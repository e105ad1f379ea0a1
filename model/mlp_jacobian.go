package model

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// OutputJacobian writes, for the rows i0 ≤ i < i1 of X (nil X: the training
// inputs), the network's regression output f(xᵢ; θ) in y's units (as
// [MLP.RegressionMean]) into f[i−i0] and its gradient with respect to θ,
//
//	Jᵢ = ∂f(xᵢ; θ)/∂θ,
//
// into row i−i0 of jac ((i1−i0) × Dim, row-major). J is the backward pass
// of [MLP.LogLik] with the output's δ set to ∂f/∂f⁽ᴸ⁾ = s_y (the response's
// sd with StandardizeY, else 1) instead of the likelihood's residual: the
// weight and bias entries as in the gradient, 0 in the log_sigma2 column (f
// does not depend on the noise). It is what the linearised (GLM) Laplace
// approximation needs (package approx's GLMLaplace). It panics for a
// likelihood other than Gaussian, a bad row range or wrong lengths
// (programmer errors).
func (m *MLP) OutputJacobian(theta []float64, X *mat.Dense, i0, i1 int, f, jac []float64) {
	if m.lik != LikGaussian {
		panic("model: MLP OutputJacobian: needs the Gaussian likelihood, not " + m.lik.String())
	}
	m.headJacobian("MLP OutputJacobian", 0, theta, X, i0, i1, f, jac)
}

// headJacobian writes, for the rows i0 ≤ i < i1 of X (nil: the training
// inputs), output unit head of the network in y's units (the mean, ȳ +
// s_y·f₀; the log-variance, f₁ + 2 log s_y) into v and its gradient into
// the rows of jac: the backward pass with δ = s_y (mean) or 1 (log σ²)
// on that unit and 0 on the other.
func (m *MLP) headJacobian(who string, head int, theta []float64, X *mat.Dense, i0, i1 int, v, jac []float64) {
	checkTheta(who, theta, m.dim)
	n, p := m.n, m.p
	if X != nil {
		n, p = X.Dims()
		if p != m.p {
			panic(fmt.Sprintf("model: %s: feature matrix has %d columns, model has %d features", who, p, m.p))
		}
	}
	r := i1 - i0
	if i0 < 0 || i1 > n || r < 0 || len(v) < r || len(jac) < r*m.dim {
		panic(fmt.Sprintf("model: %s: rows %d…%d of %d, len(values) %d, len(jac) %d (want ≥ %d, %d)", who, i0, i1, n, len(v), len(jac), r, r*m.dim))
	}
	w := m.pool.get()
	defer m.pool.put(w)
	L := len(m.sizes) - 1
	x := w.in[:p]
	for k := 0; k < r; k++ {
		if X == nil {
			copy(x, m.x[(i0+k)*p:(i0+k+1)*p])
		} else {
			mat.Row(x, i0+k, X)
		}
		m.forward(theta, x, 1, w)
		row := jac[k*m.dim : (k+1)*m.dim]
		clear(row)
		if head == 0 {
			v[k] = m.yMean + m.ySD*w.a[L][0]
			w.d1[0] = m.ySD
			if m.het {
				w.d1[1] = 0
			}
		} else {
			v[k] = w.a[L][1] + 2*m.logSDY
			w.d1[0], w.d1[1] = 0, 1
		}
		m.backward(theta, x, 1, w, row)
	}
}

// NoiseJacobian is [MLP.OutputJacobian] for the variance head of a
// heteroscedastic network (MLPOptions.Hetero): it writes s(xᵢ) = log σ²(xᵢ)
// in y's units (the second output plus 2 log s_y) into s[i−i0] and its
// gradient ∂s(xᵢ; θ)/∂θ into row i−i0 of jac. The linearised Laplace
// approximation of a heteroscedastic network needs both heads' Jacobians
// (approx.GLMLaplace). It panics without Hetero.
func (m *MLP) NoiseJacobian(theta []float64, X *mat.Dense, i0, i1 int, s, jac []float64) {
	if !m.het {
		panic("model: MLP NoiseJacobian: the network is not heteroscedastic")
	}
	m.headJacobian("MLP NoiseJacobian", 1, theta, X, i0, i1, s, jac)
}
