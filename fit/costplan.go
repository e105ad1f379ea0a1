package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// gradientWorker is a model whose full-data gradient costs GradientWork
// multiply-adds, less than N·d when its rows are sparse in θ (a formula's
// group effects: a row touches only its own level's).
type gradientWorker interface {
	GradientWork() float64
}

// rowWorker is a model whose minibatch gradient costs RowWork
// multiply-adds a row — not GradientWork/N when its full-data passes read
// a collapsed form of the rows (a gaussian formula's sufficient
// statistics).
type rowWorker interface {
	RowWork() float64
}

// modeChecker is a model that can tell a degenerate joint mode (one that
// is no centre for a Laplace approximation) and move off it to a point
// with the mode's effects on the posterior's scale (formula.Model).
type modeChecker interface {
	DegenerateMode(theta []float64) string
	RescaleMode(dst, mode []float64)
}

// CostPlanned reports whether NewPlan chooses m's sampler by predicted
// cost (newCostPlan): m has group-level blocks (langevin.BlockStructured)
// and reports the work of its gradient (a formula model with group-level
// terms). Its plan brings its own metric and initial points, so a caller
// need not compute the dense Laplace approximation for it.
func CostPlanned(m langevin.Model) bool {
	bs, ok := m.(langevin.BlockStructured)
	if !ok || len(bs.HessianBlocks()) == 0 {
		return false
	}
	_, ok = m.(gradientWorker)
	return ok
}

// Pilot of the SG-MCMC plan before it is trusted: its chains' first
// iterations, from the plan's own initial points.
const (
	pilotChains = 2
	pilotIters  = 200
)

// nutsCheapWork is the predicted NUTS work per chain, in multiply-adds,
// at or below which the cost plan runs exact NUTS without predicting the
// SG-MCMC plan's: about a second of CPU or less (a gaussian formula's
// gradient from its collapsed statistics on small data: 14,000 × 64 on
// 150 rows in 6 levels), where an approximate sampler's saving is
// nothing worth its bias.
const nutsCheapWork = 1e7

// sgWorkPerRowCV is the work of one row of a minibatch with first-order
// control variates relative to one without: the row's gradient at θ and at
// the MAP θ̂.
const sgWorkPerRowCV = 2

// newCostPlan is NewPlan's path for a model whose gradient is sparse
// (CostPlanned, opt.Kind "" or "nuts"): it predicts the work per chain of
// each sampler, in multiply-adds W of one full-data gradient (GradientWork:
// N × the nonzeros of a row, not N·d), and runs the cheaper:
//
//   - NUTS: nutsGradsPerChain full gradients, 14,000·W;
//   - the SG-MCMC plan, the block-arrow one (newBlockPlan) whatever d —
//     the SG-MCMC set-up validated on hierarchical models against NUTS
//     (TestBlockPlanAgainstNUTS; the dense plan's SGLD was 41–47% too wide
//     on 3,000 bernoulli rows in 30 groups): burn-in plus the
//     iterations for the per-chain bulk-ESS at its slowest direction's
//     autocorrelation 2/(η·λmin(MH)), each |B|/N·W (twice with control
//     variates, which evaluate each row at θ and at the MAP) plus 4d for
//     the preconditioner and the update.
//
// The SG-MCMC plan is trusted only when its own checks pass; otherwise NUTS
// runs and a fallback note says why: the model calls the joint mode
// degenerate (modeChecker: a group scale far above the spread of its
// effects, or at its boundary 0), the Laplace approximation there cannot be
// built (the negative Hessian is not positive definite), or a pilot of 200
// iterations of 2 of its chains diverges. On a degenerate mode NUTS starts
// from RescaleMode's point (the mode's effects, each group sd at their
// spread) with a diagonal metric from min(1, 1/Fⱼⱼ) adapted in Stan's
// windows, not from the failing Laplace approximation.
func newCostPlan(ctx context.Context, m langevin.Model, mp []float64, opt PlanOptions, userBatch bool) (*Plan, error) {
	d, n := m.Dim(), m.Len()
	W := m.(gradientWorker).GradientWork()
	nutsWork := float64(nutsGradsPerChain) * W
	nutsText := fmt.Sprintf("NUTS %s full gradients × %.3g = %.2g", groupThousands(nutsGradsPerChain), W, nutsWork)
	chainESS := opt.ChainESS
	if chainESS == 0 {
		chainESS = 100
	}
	// untrusted says why the SG-MCMC plan cannot be trusted ("" while it
	// can); why is the sampler line's rule.
	untrusted := ""
	if mc, ok := m.(modeChecker); ok {
		if w := mc.DegenerateMode(mp); w != "" {
			untrusted = "the joint mode is degenerate: " + w
		}
	}
	why := fmt.Sprintf("predicted work per chain in multiply-adds: %s; SGLD not predicted (see fallback)", nutsText)
	if opt.Kind == "nuts" {
		why = "asked for"
	}
	if opt.Kind == "" && untrusted == "" && nutsWork <= nutsCheapWork {
		why = fmt.Sprintf("predicted work per chain in multiply-adds: %s ≤ %.0e, under a second: exact NUTS, whatever SGLD would cost", nutsText, nutsCheapWork)
	}
	if opt.Kind == "" && untrusted == "" && nutsWork > nutsCheapWork {
		sg, err := newBlockPlan(ctx, m, m.(langevin.BlockStructured), mp, opt, userBatch, "")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			untrusted = "the block-arrow SG-MCMC plan cannot be built: " + err.Error()
		} else {
			st := sg.Step
			iters := float64(sg.BurnIn) + chainESS*st.AutocorrSteps(st.Eta)
			rows, per := float64(sg.Batch.Size), ""
			if sg.Batch.CV != nil && !sg.Batch.Taylor {
				rows *= sgWorkPerRowCV
				per = " × 2 (control variates)"
			}
			perRow := W / float64(n)
			if rw, ok := m.(rowWorker); ok {
				perRow = rw.RowWork()
			}
			sgWork := iters * (rows*perRow + 4*float64(d))
			why = fmt.Sprintf("predicted work per chain in multiply-adds: %s, SGLD (block-arrow plan) %.2g iterations × (%d rows%s + 4d) = %.2g (one full gradient W = N × nonzeros of a row + d: the group effects are sparse)",
				nutsText, iters, sg.Batch.Size, per, sgWork)
			if sgWork >= nutsWork {
				why += "; NUTS is cheaper"
			} else {
				msg, err := pilot(ctx, m, sg, opt.Seed)
				if err != nil {
					return nil, err
				}
				if msg == "" {
					sg.Kind, sg.Why = "sgld", why+"; SGLD is cheaper"
					return sg, nil
				}
				why += "; SGLD is cheaper but not trusted (see fallback)"
				untrusted = "the SG-MCMC plan was cheaper but " + msg
			}
		}
	}
	p, lapWhy, err := costNUTS(ctx, m, mp, opt, untrusted != "")
	if err != nil {
		return nil, err
	}
	p.Why = why
	switch {
	case untrusted != "" && opt.Kind == "nuts":
		p.Fallback = untrusted + ": NUTS starts off the mode, its metric adapted in warm-up"
	case untrusted != "":
		p.Fallback = untrusted + ", so exact NUTS runs, started off the mode with its metric adapted in warm-up"
	case lapWhy != "":
		p.Fallback = lapWhy + ": NUTS starts off the mode, its metric adapted in warm-up"
	}
	return p, nil
}

// costNUTS returns the NUTS plan of newCostPlan. Unless off is set (the
// SG-MCMC plan's checks failed), the metric starts at the Laplace
// approximation at the mode — dense H⁻¹ when d ≤ DenseMax, the diagonal of
// the block-arrow H⁻¹ otherwise — and the chains at draws from it; when
// that approximation cannot be built (lapWhy says why), or off is set,
// the metric starts at min(1, 1/Fⱼⱼ) and the chains at rescaledStart.
func costNUTS(ctx context.Context, m langevin.Model, mp []float64, opt PlanOptions, off bool) (p *Plan, lapWhy string, err error) {
	d := m.Dim()
	p = &Plan{MAP: mp, Kind: "nuts"}
	if !off && d <= opt.DenseMax {
		H := opt.NegHess
		if H == nil {
			h := make([]float64, d*d)
			if err := langevin.HessianFDContext(ctx, m, mp, h); err != nil {
				return nil, "", err
			}
			H = mat.NewSymDense(d, nil)
			for i := 0; i < d; i++ {
				for j := i; j < d; j++ {
					H.SetSym(i, j, -h[i*d+j])
				}
			}
		}
		var chol mat.Cholesky
		if chol.Factorize(H) {
			cov := mat.NewSymDense(d, nil)
			if err := chol.InverseTo(cov); err == nil {
				p.NegHess, p.Cov, p.Dense = H, cov, true
				p.PrecondWhy = fmt.Sprintf("dense Laplace covariance H⁻¹ at the MAP (d = %d ≤ %d), adapted in warm-up (dense_e)", d, opt.DenseMax)
				p.Sampler = sampler.NUTS{PrecondFull: cov, Adapt: sampler.Adapt{Metric: sampler.MetricDense}}
				return p, "", nil
			}
		}
		lapWhy = "the negative Hessian at the mode is not positive definite"
	} else if !off {
		bs := m.(langevin.BlockStructured)
		H, err := langevin.HessianBlockArrowFD(ctx, m, mp, bs.HessianBlocks())
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if err == nil {
			p.Arrow = H
			p.Precond = make([]float64, d)
			H.PrecondDiag(p.Precond)
			p.PrecondWhy = fmt.Sprintf("diagonal of the block-arrow Laplace covariance H⁻¹ at the MAP (d = %d > %d), adapted in warm-up (diag_e)", d, opt.DenseMax)
			p.Sampler = sampler.NUTS{Precond: p.Precond}
			return p, "", nil
		}
		lapWhy = "the block-arrow negative Hessian at the mode is not positive definite"
	}
	start := rescaledStart(m, mp, opt.Seed)
	p.Start = start
	p.Precond = make([]float64, d)
	for j, s := range start.Scale {
		p.Precond[j] = s * s
	}
	// Not dense_e: from the identity, on 3,000 bernoulli rows in 30 groups
	// (d = 65), its first windows' estimates cost 2.5× the CPU of diag_e's
	// run (85 s against 35 s) for the same answer. Not the identity alone:
	// with 12,573 rows a population-level sd is 100× below a standardised
	// effect's, and the first window's trees ran to depth 10.
	p.PrecondWhy = "min(1, 1/Fⱼⱼ) at the start, F the empirical Fisher information, adapted to the posterior variances in Stan's warm-up windows (diag_e) — not the Laplace approximation at the mode (see fallback); the chains start at the mode's effects with each group sd at their spread"
	p.Sampler = sampler.NUTS{Precond: p.Precond}
	return p, lapWhy, nil
}

// rescaledStart returns the initial points of costNUTS on a degenerate
// mode: the model's RescaleMode point (the mode itself for a model
// without one), each coordinate moved by U(−½, ½)·min(1, sⱼ), sⱼ =
// 1/√Fⱼⱼ, F the empirical Fisher information there — dispersed by at most
// the posterior scale the data give, so that R̂ can see chains that do not
// mix, and never by more than 1/2 in the unconstrained units of a scale or
// a standardised effect.
func rescaledStart(m langevin.Model, mp []float64, seed uint64) *InitJitter {
	d, n := m.Dim(), m.Len()
	c := make([]float64, d)
	copy(c, mp)
	if mc, ok := m.(modeChecker); ok {
		mc.RescaleMode(c, mp)
	}
	rng := rand.New(rand.NewPCG(seed, 0x73746172))
	idx := sampler.SubsetIndex(n, min(n, 20000), rng)
	f := make([]float64, d)
	rowGradMoments(m, c, idx, make([]float64, d), f)
	sc := make([]float64, d)
	scale := float64(n) / float64(len(idx))
	for j := range sc {
		sc[j] = 1
		if fj := f[j] * scale; fj > 1 {
			sc[j] = 1 / math.Sqrt(fj)
		}
	}
	return &InitJitter{Centre: c, Scale: sc}
}

// InitJitter starts chain k at Centre + U(−½, ½)ⱼ·Scaleⱼ from the chain's
// own stream.
type InitJitter struct {
	Centre, Scale []float64
}

// Init implements langevin.Initializer.
func (in *InitJitter) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	if len(in.Centre) != m.Dim() || len(in.Scale) != m.Dim() {
		return fmt.Errorf("fit: initial points of dimension %d, model has %d parameters", len(in.Centre), m.Dim())
	}
	for j := range dst {
		dst[j] = in.Centre[j] + (rng.Float64()-0.5)*in.Scale[j]
	}
	return nil
}

// pilot runs pilotIters iterations of pilotChains of the SG-MCMC plan p
// from its initial points, draws discarded, and returns why the plan cannot
// be trusted ("" when it can): a chain that diverged.
func pilot(ctx context.Context, m langevin.Model, p *Plan, seed uint64) (string, error) {
	s, _, _ := p.Configure(pilotIters, 0, 0, 0)
	o := langevin.Options{Chains: pilotChains, Iters: pilotIters, Thin: 1, Seed: seed ^ 0x70696c6f74, Init: p.Init()}
	_, err := langevin.Run(ctx, m, s, o)
	if err == nil {
		return "", nil
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var de *langevin.DivergenceError
	if errors.As(err, &de) {
		return fmt.Sprintf("a pilot of %d iterations of %d of its chains diverged (chain %d at iteration %d, %s = %v)", pilotIters, pilotChains, de.Chain, de.Iter, de.Param, de.Value), nil
	}
	return "its pilot failed: " + err.Error(), nil
}

// groupThousands writes n with a comma every three digits (14,000).
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
