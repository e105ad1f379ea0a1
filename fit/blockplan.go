package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// BlockPlanned reports whether NewPlan takes its block-arrow path on m
// (nil opt: the defaults): m has group-level blocks
// (langevin.BlockStructured) and either chooses its sampler by predicted
// cost (CostPlanned, opt.Kind ""), or has more than DenseMax parameters
// and the cost rule chooses stochastic gradients (or opt.Kind asks for
// them). A caller
// that computes the dense Laplace approximation for the plan must then
// not: it costs 2d full-data gradients and d² memory that the plan does
// not use.
func BlockPlanned(m langevin.Model, opt *PlanOptions) bool {
	var o PlanOptions
	if opt != nil {
		o = *opt
	}
	bs, ok := m.(langevin.BlockStructured)
	if !ok || len(bs.HessianBlocks()) == 0 {
		return false
	}
	if o.NUTSBudget == 0 {
		o.NUTSBudget = 2e9
	}
	if o.DenseMax == 0 {
		o.DenseMax = 100
	}
	d, n := m.Dim(), m.Len()
	if o.Kind == "" && CostPlanned(m) {
		return true // newCostPlan: the block-arrow plan, or NUTS with its own metric and start
	}
	if d <= o.DenseMax {
		return false
	}
	switch o.Kind {
	case "sgld":
		return true
	case "":
		return float64(nutsGradsPerChain)*float64(n)*float64(d) > o.NUTSBudget
	}
	return false
}

// BlockStability and BlockNoiseRatio are the block plan's step targets κ
// and ρ, half the general rule's: predicted variance inflation
// (1 + ρ)/(1 − κ/2) ≤ 5.1%, sd ≤ 2.5% — the group scales of a
// hierarchical model are what its users read, and in the whitened
// coordinates the autocorrelation 2/η = 40 steps still costs little next
// to exact NUTS on the same data.
const (
	BlockStability  = 0.05
	BlockNoiseRatio = 0.025
)

// Power iterations of the block plan's curvature and noise measurements.
const (
	blockCurvIters  = 12
	blockNoiseIters = 30
	blockNoiseObs   = 2000
	blockProbes     = 2
)

// newBlockPlan is NewPlan's path for a hierarchical model at scale (see
// BlockPlanned): SGLD with control variates and the preconditioner
// M = H⁻¹, H the negative Hessian at the MAP in block-arrow form
// (langevin.HessianBlockArrowFD: each group's K×K block of effects, the
// population and group-scale parameters as the dense border, and the
// coupling between them). The funnel's correlations (between a group
// scale and all its group's effects, and between the population intercept
// and every group's intercept) are in H, so in the coordinates M makes the
// Laplace approximation N(0, I): with ~1,000 rows per group the posterior
// is close to Gaussian and one step suits all directions. Then:
//
//   - λmax and λmin of MH by power iteration on Hessian-vector products
//     (central differences of full-data gradients), Rayleigh quotients in
//     the H-inner product (MH is self-adjoint there);
//   - λmax(VM), V the covariance of the control-variate terms
//     ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂) over 2,000 observations at 2 probes
//     θ̂ + L⁻ᵀξ (power iteration);
//   - the batch: the smallest |B| ≥ 100 (at most N) at which the
//     gradient-noise rule 2ρ/λmax(CM) no longer binds below the stability
//     step κ/λmax(MH) — beyond it a larger batch costs more per step and
//     mixes no faster; below it the step would shrink like |B|;
//   - the step by sampler.NewStepChoice, the burn-in 3/(η·λmin(MH)).
//
// It costs 2·(p + ΣK) gradients for H, 4·12 for the eigenvalues and
// 2·2·2,000 per-observation gradients, instead of the dense path's 2d
// gradients and d³ eigendecompositions. With a second-order control
// variate (langevin.TaylorModel) H and the eigenvalues come from the
// likelihood's Taylor expansion at the MAP instead — its Hessian is the
// exact XᵀŴX, its gradients O(d) — so the plan costs one pass over the
// rows.
func newBlockPlan(ctx context.Context, m langevin.Model, bs langevin.BlockStructured, mp []float64, opt PlanOptions, userBatch bool, why string) (*Plan, error) {
	d, n := m.Dim(), m.Len()
	if opt.Rule.Stability == 0 {
		opt.Rule.Stability = BlockStability
	}
	if opt.Rule.NoiseRatio == 0 {
		opt.Rule.NoiseRatio = BlockNoiseRatio
	}
	// The curvature's model: with a second-order control variate, the
	// likelihood's Taylor expansion at the MAP, whose Hessian is the
	// exact XᵀŴX and whose gradients cost O(d), not a pass over the rows.
	cv := opt.CV != "off"
	var tay langevin.Taylor
	hm := m
	if tm, ok := m.(langevin.TaylorModel); ok && cv && tm.HasTaylor() {
		var err error
		if tay, err = tm.TaylorAt(mp); err != nil {
			return nil, err
		}
		hm = quadModel{m, tay}
	}
	H, err := langevin.HessianBlockArrowFD(ctx, hm, mp, bs.HessianBlocks())
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x626c6f63))
	p := &Plan{MAP: mp, Kind: "sgld", Why: why, Arrow: H}
	terms := bs.HessianBlocks()
	nb := 0
	for _, t := range terms {
		nb += t.K
	}
	p.PrecondWhy = fmt.Sprintf("block-arrow Laplace H⁻¹ at the MAP: %d parameters, %d group blocks of %d plus a dense border of %d (population, group scales, correlations), so that MH ≈ I in O(d) per step; H from %d full gradients (2·(border + K)) instead of 2d = %d",
		d, terms[0].Levels, terms[0].K, len(H.Border()), 2*(len(H.Border())+nb), 2*d)
	if tay != nil {
		p.PrecondWhy = fmt.Sprintf("block-arrow Laplace H⁻¹ at the MAP: %d parameters, %d group blocks of %d plus a dense border of %d (population, group scales, correlations), so that MH ≈ I in O(d) per step; H = XᵀŴX from the likelihood's Taylor expansion at the MAP (one pass over the rows) plus the prior's by central differences",
			d, terms[0].Levels, terms[0].K, len(H.Border()))
	}

	// Curvature: λmax and λmin of MH.
	hv := make([]float64, d)
	hvp := negHessVec(ctx, hm, mp, hv)
	dot := func(a, b []float64) float64 {
		var s float64
		for j := range a {
			s += a[j] * b[j]
		}
		return s
	}
	hav := make([]float64, d)
	v := make([]float64, d)
	w := make([]float64, d)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	// rayleigh returns vᵀHv / vᵀH_arrow v and leaves MHv in w.
	rayleigh := func() (float64, error) {
		if err := hvp(v); err != nil {
			return 0, err
		}
		H.MulVec(hav, v)
		lam := dot(v, hv) / dot(v, hav)
		H.MulPrecond(w, hv)
		return lam, nil
	}
	normalise := func(x []float64) {
		s := math.Sqrt(dot(x, x))
		for j := range x {
			x[j] /= s
		}
	}
	var lmax float64
	for k := 0; k < blockCurvIters; k++ {
		lam, err := rayleigh()
		if err != nil {
			return nil, err
		}
		lmax = math.Max(lmax, lam)
		copy(v, w)
		normalise(v)
	}
	if !(lmax > 0) {
		return nil, fmt.Errorf("fit: plan: the log posterior has no negative curvature at the MAP (λmax(MH) = %.3g)", lmax)
	}
	// λmin: power iteration on I − MH/λmax (eigenvalues 1 − λ/λmax ≥ 0).
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	lmin := lmax
	for k := 0; k < blockCurvIters; k++ {
		lam, err := rayleigh()
		if err != nil {
			return nil, err
		}
		lmin = math.Min(lmin, lam)
		for j := range v {
			v[j] -= w[j] / lmax
		}
		normalise(v)
	}

	// Gradient noise of the estimator: control variates unless asked off,
	// of second order where the model has an expansion at the MAP (tay).
	k := min(n, blockNoiseObs)
	idx := sampler.SubsetIndex(n, k, rng)
	probes := blockProbes
	if !cv {
		probes = 1
	}
	G := make([][]float64, 0, probes*k)
	xi := make([]float64, d)
	probe := make([]float64, d)
	gi := make([]float64, d)
	g0 := make([]float64, d)
	for pr := 0; pr < probes; pr++ {
		copy(probe, mp)
		if cv {
			for j := range xi {
				xi[j] = rng.NormFloat64()
			}
			H.MulPrecondRoot(xi, xi)
			for j := range probe {
				probe[j] += xi[j]
			}
		}
		mean := make([]float64, d)
		start := len(G)
		terms := langevin.RowTerms{Taylor: tay}
		if cv && tay == nil {
			terms.Centre = mp
		}
		err := langevin.RowGrads(m, probe, idx, terms, gi, g0, func(_ int, gi []float64) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			g := slices.Clone(gi)
			for j, x := range g {
				mean[j] += x / float64(k)
			}
			G = append(G, g)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, g := range G[start:] {
			for j := range g {
				g[j] -= mean[j]
			}
		}
	}
	// λmax(VM), V = (1/|G|) Σ gᵢgᵢᵀ, by power iteration on MV, Rayleigh
	// quotient vᵀVv / vᵀM⁻¹v.
	vv := make([]float64, d)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	var lvm float64
	for it := 0; it < blockNoiseIters; it++ {
		clear(vv)
		for _, g := range G {
			c := dot(g, v) / float64(len(G))
			for j, x := range g {
				vv[j] += c * x
			}
		}
		H.MulVec(hav, v)
		lvm = math.Max(lvm, dot(v, vv)/dot(v, hav))
		H.MulPrecond(w, vv)
		copy(v, w)
		normalise(v)
	}
	rule, err := sampler.NewStepChoice(opt.Rule, lmax, lmin, 1, 1, n, cv) // the rule's defaults
	if err != nil {
		return nil, err
	}
	kappa, rho := rule.Stability, rule.NoiseRatio
	nf := float64(n)
	noise := func(b int) float64 { // λmax(CM) at batch b
		bf := float64(b)
		f := nf * nf / bf
		if !opt.Replace {
			f *= (nf - bf) / math.Max(nf-1, 1)
		}
		return f * lvm
	}
	b := opt.Batch
	batchWhy := "asked for"
	if !userBatch {
		// Smallest b with 2ρ/λmax(CM(b)) ≥ κ/λmax(MH).
		T := 2 * rho * lmax / (kappa * lvm)
		var need float64
		if opt.Replace {
			need = nf * nf / T
		} else {
			need = nf * nf * nf / (T*(nf-1) + nf*nf)
		}
		b = int(math.Min(nf, math.Max(100, math.Ceil(need))))
		est := "control variates"
		if tay != nil {
			est = "the second-order control variate: each row's log-likelihood less its quadratic Taylor expansion at the MAP"
		} else if !cv {
			est = "no control variate"
		}
		batchWhy = fmt.Sprintf("the smallest ≥ 100 at which the gradient noise no longer limits the step (2ρ/λmax(CM) ≥ κ/λmax(MH); λmax(VM) = %.3g per observation, %s)", lvm, est)
	}
	step, err := sampler.NewStepChoice(opt.Rule, lmax, lmin, noise(b), b, n, cv && b < n)
	if err != nil {
		return nil, err
	}
	mb := sampler.Minibatch{Size: b, Replace: opt.Replace}
	if cv && b < n {
		mb.CV = append([]float64(nil), mp...)
		mb.Taylor = tay != nil
	}
	p.Step, p.Batch = step, mb
	p.BatchWhy = fmt.Sprintf("batch: %d of %d rows, %s", b, n, batchWhy)
	p.BurnIn = max(100, step.BurnIn(step.Eta))
	p.Sampler = sampler.SGLD{Step: schedule.Constant(step.Eta), Batch: mb, PrecondOp: H}
	return p, nil
}

// InitBlockArrow starts each chain at an independent draw from the
// Laplace approximation N(Mean, H⁻¹), H in block-arrow form.
type InitBlockArrow struct {
	Mean []float64
	H    *langevin.BlockArrow
}

// Init implements langevin.Initializer.
func (in InitBlockArrow) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	d := m.Dim()
	if len(in.Mean) != d || in.H == nil || in.H.Dim() != d {
		return fmt.Errorf("fit: block-arrow initial points of dimension %d, model has %d parameters", len(in.Mean), d)
	}
	for j := range dst {
		dst[j] = rng.NormFloat64()
	}
	in.H.MulPrecondRoot(dst, dst)
	for j := range dst {
		dst[j] += in.Mean[j]
	}
	return nil
}

// ExplainDivergence turns a divergence of the block-arrow plan's chains
// into what it means there: the chains start at draws from N(θ̂, H⁻¹) and
// step at η ≈ 0.05/λmax(MH) with λmax(MH) measured, so "try a smaller step
// size" is the wrong advice. A hierarchical model's joint mode with its
// effects non-centred (few rows per level) can be degenerate — a group
// scale far above its posterior mass (16.7 for a true 0.8 with 1,000
// groups of 100 rows, docs/formulas.md) — and then neither the centre nor
// the curvature of the Laplace approximation describes the posterior. The
// error names the group scales at the MAP and what to run instead. Other
// errors, and divergences on other plans, are returned unchanged.
func (p *Plan) ExplainDivergence(m langevin.Model, err error) error {
	var de *langevin.DivergenceError
	if p == nil || p.Arrow == nil || p.Kind != "sgld" || !errors.As(err, &de) {
		return err
	}
	scales := ""
	if dv, ok := m.(langevin.Deriver); ok {
		names := dv.DerivedNames()
		vals := make([]float64, len(names))
		dv.Derive(p.MAP, vals)
		var parts []string
		for i, nm := range names {
			if strings.HasPrefix(nm, "sd_") {
				parts = append(parts, fmt.Sprintf("%s %.3g", nm, vals[i]))
			}
		}
		if len(parts) > 0 {
			scales = " (at the MAP: " + strings.Join(parts, ", ") + ")"
		}
	}
	return fmt.Errorf("%w — on the block-arrow plan a smaller step would not help (the step is 0.05/λmax of the preconditioned curvature, measured): the chains left the Laplace approximation N(θ̂, H⁻¹) of the joint MAP%s, which with few rows per group level and non-centred effects can be degenerate, a group scale far above the posterior mass; this plan cannot be trusted on these data: run exact NUTS ({sampler} nuts), or with fewer groups or more rows per level", err, scales)
}
