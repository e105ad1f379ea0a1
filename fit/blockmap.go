package fit

import (
	"context"
	"fmt"
	"math"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"gonum.org/v1/gonum/optimize"
)

// BlockMAP settings: the L-BFGS iterations before Newton's, the Newton
// decrement at which the mode is found, the Newton steps at most.
const (
	blockMAPLBFGS     = 20
	blockMAPDecrement = 1e-3
	blockMAPNewton    = 40
)

// blockMAPWarmup is the L-BFGS iterations before Newton's
// (blockMAPLBFGS; tests set fewer to start Newton far from the mode).
var blockMAPWarmup = blockMAPLBFGS

// blockMAPHandOver, when set (tests: fit/export_test.go), is told why
// BlockMAP's Newton iterations stopped short of the mode and the point
// from which L-BFGS goes on.
var blockMAPHandOver func(why string, theta []float64)

// BlockMAPApplies reports whether BlockMAP finds m's mode: m has
// group-level blocks, more than 100 parameters and 14,000·N·d above 2e9
// (the scale at which the block plan was first taken) and a second-order
// expansion of its likelihood (langevin.TaylorModel).
func BlockMAPApplies(m langevin.Model) bool {
	tm, ok := m.(langevin.TaylorModel)
	if !ok || !tm.HasTaylor() {
		return false
	}
	bs, ok := m.(langevin.BlockStructured)
	d, n := m.Dim(), m.Len()
	return ok && len(bs.HessianBlocks()) > 0 && d > 100 && float64(nutsGradsPerChain)*float64(n)*float64(d) > 2e9
}

// BlockMAP finds the mode of a hierarchical model on the block plan
// (BlockMAPApplies) in a few dozen full-data passes instead of L-BFGS's
// hundreds: 20 L-BFGS iterations from θ = 0 — its fast start — then
// Newton's method with the exact block-arrow curvature, H_k = −∇²log p at
// θ_k from the likelihood's Taylor expansion there (XᵀWX, one pass:
// langevin.TaylorModel) and central differences of the prior (O(d) each),
// the step δ = H_k⁻¹∇log p(θ_k) in O(d) (langevin.BlockArrow), halved
// until log p rises by at least ¼ of the Newton decrement λ² = ∇log pᵀδ,
// until λ ≤ 10⁻³: the mode to within 10⁻³ posterior sd in the Laplace
// metric (L-BFGS from zero took 458 passes at 10⁶ rows, 150 of them to
// reach 0.1 sd and 330 to 0.01, the last 50 idle under its convergence
// test; BlockMAP took 39). Where the curvature is not positive definite
// (a centred term's prior far from the mode) the step is
// Levenberg–Marquardt's, (H + μI)⁻¹∇log p with the least μ ∈ {10⁻², 10⁻¹,
// …, 10⁸} that makes it so. If none does, a step fails, the model has no expansion there or 40 Newton steps do not
// converge, L-BFGS (approx.FindMAP) goes on from the best point, as before
// (TestBlockMAPHandOver); its error says why Newton stopped. Newton after
// 10 L-BFGS iterations also converged on the 10⁵- and 10⁶-row cases, after
// 1 (gonum's first evaluates the start: Newton from θ = 0) it did not (and
// L-BFGS finished): 20 leaves a margin.
func BlockMAP(ctx context.Context, m langevin.Model) ([]float64, error) {
	tm := m.(langevin.TaylorModel)
	terms := m.(langevin.BlockStructured).HessianBlocks()
	d := m.Dim()
	p := approx.MAPProblem(ctx, func(x, grad []float64) float64 { return langevin.LogPosterior(m, x, grad) })
	x0 := make([]float64, d)
	res, err := optimize.Minimize(p, x0, &optimize.Settings{MajorIterations: blockMAPWarmup, GradientThreshold: 1e-12}, &optimize.LBFGS{})
	if res == nil || err != nil && ctx.Err() != nil {
		return approx.FindMAP(ctx, m, nil)
	}
	th := append([]float64(nil), res.X...)
	g := make([]float64, d)
	lp := langevin.LogPosterior(m, th, g)
	delta, trial, gt := make([]float64, d), make([]float64, d), make([]float64, d)
	why := fmt.Sprintf("%d Newton steps did not converge", blockMAPNewton)
	for it := 0; it < blockMAPNewton; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tay, err := tm.TaylorAt(th)
		if err != nil || tay == nil {
			why = "no Taylor expansion"
			if err != nil {
				why += ": " + err.Error()
			}
			break
		}
		H, err := langevin.HessianBlockArrowFD(ctx, quadModel{m, tay}, th, terms)
		damped := 0.0
		// Away from the mode a centred term's prior makes −∇²log p
		// indefinite (in (r, log sd) the normal's Hessian has the
		// determinant −2r²/sd⁴ per effect until the data's curvature
		// outweighs 1/sd²): Levenberg–Marquardt's H + μI, μ from 10⁻²
		// by tens, gives an ascent direction; the mode is declared only
		// on an undamped step.
		for mu := 1e-2; err != nil && ctx.Err() == nil && mu <= 1e8; mu *= 10 {
			H, err = langevin.HessianBlockArrowFD(ctx, dampedModel{quadModel{m, tay}, th, mu}, th, terms)
			damped = mu
		}
		if err != nil {
			why = fmt.Sprintf("Newton step %d: %v", it+1, err)
			break // not positive definite here: L-BFGS goes on
		}
		H.MulPrecond(delta, g)
		var dec float64
		for j := range g {
			dec += g[j] * delta[j]
		}
		if !(dec >= 0) {
			why = fmt.Sprintf("Newton step %d: decrement %g", it+1, dec)
			break
		}
		if damped == 0 && math.Sqrt(dec) <= blockMAPDecrement {
			return th, nil
		}
		ok := false
		for t := 1.0; t > 1e-3; t /= 2 {
			for j := range trial {
				trial[j] = th[j] + t*delta[j]
			}
			clear(gt)
			lt := langevin.LogPosterior(m, trial, gt)
			if lt >= lp+0.25*t*dec {
				copy(th, trial)
				copy(g, gt)
				lp, ok = lt, true
				break
			}
		}
		if !ok {
			why = fmt.Sprintf("Newton step %d: no step length raised log p", it+1)
			break
		}
	}
	if blockMAPHandOver != nil {
		blockMAPHandOver(why, th)
	}
	mp, err := approx.FindMAP(ctx, m, th)
	if err != nil {
		return nil, fmt.Errorf("%w (L-BFGS after Newton's iterations on the block-arrow curvature stopped: %s)", err, why)
	}
	return mp, nil
}

// quadModel is m with its likelihood replaced by a Taylor expansion's
// full-data quadratic: its Hessian is the exact XᵀWX.
type quadModel struct {
	langevin.Model
	t langevin.Taylor
}

func (q quadModel) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if batch != nil {
		panic("fit: quadModel on a batch")
	}
	return q.t.Full(theta, grad)
}

// dampedModel is m with −μ/2·‖θ − c‖² added to its log prior: its
// negative Hessian is m's plus μI (Levenberg–Marquardt's damping).
type dampedModel struct {
	langevin.Model
	c  []float64
	mu float64
}

func (q dampedModel) LogPrior(theta, grad []float64) float64 {
	lp := q.Model.LogPrior(theta, grad)
	var s float64
	for j, x := range theta {
		dx := x - q.c[j]
		s += dx * dx
		if grad != nil {
			grad[j] -= q.mu * dx
		}
	}
	return lp - 0.5*q.mu*s
}
