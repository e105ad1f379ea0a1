package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// StabilityBudget is the default budget κ of [StableStep]: η·λmax(MH) ≤ 0.1,
// which inflates no stationary variance of preconditioned SGLD by more than
// 1/(1 − κ/2) − 1 ≈ 5.3% (without gradient noise).
const StabilityBudget = 0.1

// StableStep is the stability cap of the step of preconditioned SGLD
// θ ← θ + ηMĝ + √(2ηM)ξ with a constant preconditioner M. Near the MAP θ̂ of
// a posterior with negative Hessian H the update is the linear recursion
//
//	θ − θ̂ ← (I − ηMH)(θ − θ̂) + √(2ηM)ξ,
//
// stable only for η·λmax(MH) < 2; along an eigenvector of M^½HM^½ with
// eigenvalue λ its stationary variance is (1/λ)/(1 − ηλ/2): inflated by
// 1/(1 − ηλ/2) over the posterior's 1/λ, well before the stability limit
// (by 12% at ηλ = 0.2, 100% at ηλ = 1). A step within the budget κ,
// η·λmax(MH) ≤ κ, keeps every inflation within 1/(1 − κ/2). The rule
// η = 0.1·B/N ([StepNoiseFraction]) does not look at MH: with the diagonal
// Laplace preconditioner on a strongly correlated posterior (raw features
// with an interaction term) λmax(MH) is in the hundreds and that step is
// close to unstable. Gradient noise adds to the inflation (see [ChooseStep],
// which applies both rules).
type StableStep struct {
	LambdaMax float64 // λmax(MH)
	Budget    float64 // κ
}

// NewStableStep returns the stability cap for the negative Hessian
// negHess = −∇²log p(θ|D) at the MAP (the matrix already built for the
// Laplace preconditioner) and the diagonal preconditioner M = diag(precond)
// (nil: the identity), with the budget κ = budget (0: [StabilityBudget]).
// λmax(MH) is found by power iteration on M^½HM^½, which has the
// eigenvalues of MH (see [LambdaMaxMH]).
func NewStableStep(negHess mat.Symmetric, precond []float64, budget float64) (StableStep, error) {
	if budget == 0 {
		budget = StabilityBudget
	}
	if !(budget > 0 && budget < 2) {
		return StableStep{}, fmt.Errorf("sampler: stability budget %v: expected 0 < η·λmax < 2", budget)
	}
	l, err := LambdaMaxMH(negHess, precond)
	if err != nil {
		return StableStep{}, err
	}
	return StableStep{LambdaMax: l, Budget: budget}, nil
}

// Eta returns κ/λmax(MH), the largest step within the budget.
func (s StableStep) Eta() float64 { return s.Budget / s.LambdaMax }

// Limit returns 2/λmax(MH), the stability limit: larger steps diverge.
func (s StableStep) Limit() float64 { return 2 / s.LambdaMax }

// Cap returns min(eta, Eta()).
func (s StableStep) Cap(eta float64) float64 { return math.Min(eta, s.Eta()) }

// Inflation returns the largest stationary variance inflation
// 1/(1 − η·λmax(MH)/2) at step eta (+Inf at or beyond the stability limit).
func (s StableStep) Inflation(eta float64) float64 {
	den := 1 - eta*s.LambdaMax/2
	if den <= 0 {
		return math.Inf(1)
	}
	return 1 / den
}

// Warning returns "" if the step eta is within the budget, and otherwise a
// warning naming the step, λmax(MH), the variance inflation, the largest
// stable step and the budget's step.
func (s StableStep) Warning(eta float64) string {
	el := eta * s.LambdaMax
	switch {
	case el >= 2:
		return fmt.Sprintf("step %.3g is unstable: η·λmax(MH) = %.3g ≥ 2 (λmax(MH) = %.3g): the largest stable step is %.3g, and %.3g keeps the variance inflation within %.0f%%",
			eta, el, s.LambdaMax, s.Limit(), s.Eta(), 100*(s.Inflation(s.Eta())-1))
	case el > s.Budget:
		return fmt.Sprintf("step %.3g: η·λmax(MH) = %.3g > %g (λmax(MH) = %.3g) inflates a posterior variance by up to %.0f%%: the largest stable step is %.3g, and %.3g keeps the inflation within %.0f%%",
			eta, el, s.Budget, s.LambdaMax, 100*(s.Inflation(eta)-1), s.Limit(), s.Eta(), 100*(s.Inflation(s.Eta())-1))
	}
	return ""
}

// LambdaMaxMH returns λmax(MH) for a symmetric positive definite negHess = H
// and the diagonal preconditioner M = diag(precond) (nil: the identity), by
// power iteration on A = M^½HM^½ (similar to MH, so with the same
// eigenvalues): v ← Av/‖Av‖ from a fixed pseudo-random start, stopped when
// the Rayleigh quotient vᵀAv changes by less than 1e-10 relative, or after
// 10,000 iterations. The Rayleigh quotient approaches λmax from below, its
// error shrinking like (λ₂/λmax)^(2k) after k iterations. Each iteration
// costs one d×d matrix-vector product.
func LambdaMaxMH(negHess mat.Symmetric, precond []float64) (float64, error) {
	d := negHess.SymmetricDim()
	if err := checkDiag(precond, d, "λmax(MH): preconditioner"); err != nil {
		return 0, err
	}
	sq := make([]float64, d)
	for j := range sq {
		sq[j] = 1
		if precond != nil {
			sq[j] = math.Sqrt(precond[j])
		}
	}
	a := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			h := negHess.At(i, j)
			if math.IsNaN(h) || math.IsInf(h, 0) {
				return 0, fmt.Errorf("sampler: λmax(MH): Hessian entry (%d, %d) is %v", i+1, j+1, h)
			}
			a.SetSym(i, j, sq[i]*h*sq[j])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	v := mat.NewVecDense(d, nil)
	for j := 0; j < d; j++ {
		v.SetVec(j, 1+rng.Float64())
	}
	v.ScaleVec(1/mat.Norm(v, 2), v)
	w := mat.NewVecDense(d, nil)
	lambda := math.NaN()
	for k := 0; k < 10000; k++ {
		w.MulVec(a, v)
		rq := mat.Dot(v, w)
		nw := mat.Norm(w, 2)
		if !(nw > 0) || math.IsInf(nw, 0) {
			return 0, fmt.Errorf("sampler: λmax(MH): power iteration reached ‖Av‖ = %v", nw)
		}
		v.ScaleVec(1/nw, w)
		if math.Abs(rq-lambda) <= 1e-10*math.Abs(rq) {
			lambda = rq
			break
		}
		lambda = rq
	}
	if !(lambda > 0) {
		return 0, fmt.Errorf("sampler: λmax(MH) = %v: the negative Hessian is not positive definite (is θ a mode?)", lambda)
	}
	return lambda, nil
}
