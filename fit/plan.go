package fit

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// PlanOptions are the settings of [NewPlan]. A zero field means its
// documented default.
type PlanOptions struct {
	// Kind forces the sampler: "nuts" or "sgld"; "" lets the cost rule
	// choose.
	Kind string
	// Batch is the minibatch size of SGLD; 0 means min(N, 100).
	Batch int
	// Replace draws SGLD's minibatches with replacement; the default,
	// shuffled epochs, keeps a permutation of the N indices per chain (8N
	// bytes), too much for data streamed from a store larger than memory.
	Replace bool
	// CV: "" lets ChooseEstimator decide whether control variates pay,
	// "on" or "off" forces them.
	CV string
	// Rule holds the step rule's targets.
	Rule sampler.StepRule
	// NUTSBudget is the work (observation gradients × parameters per chain)
	// below which NUTS is chosen; 0 means 2e9 (a few seconds on one core).
	NUTSBudget float64
	// DenseMax is the largest dimension given a dense preconditioner or
	// metric; 0 means 100.
	DenseMax int
	// DenseCurvatureMax is the largest dimension at which the plan forms
	// the dense d×d curvature; above it the plan is diagonal
	// (DiagPlanned); 0 means DenseCurvatureMax (2,500).
	DenseCurvatureMax int
	// ChainESS is the bulk-ESS each chain is to bring, for the predicted
	// cost of the SG-MCMC plan (CostPlanned models); 0 means 100 (a target
	// of 400 over 4 chains).
	ChainESS float64
	// Seed seeds the noise measurements.
	Seed uint64
	// MAP and NegHess, when set, are the mode and −∇²log p(θ|D) there,
	// computed already (for example by approx.RunLaplace); otherwise NewPlan
	// finds them.
	MAP     []float64
	NegHess *mat.SymDense
}

// nutsGradsPerChain is the full-data gradients of a default NUTS chain:
// 1,000 warm-up iterations and 1,000 draws at about 7 leapfrog steps each
// (tree depth 3 on a well-preconditioned posterior).
const nutsGradsPerChain = 14000

// Plan is the sampler chosen for a model by [NewPlan], with every setting
// and the rule that chose it.
type Plan struct {
	Kind       string // "nuts" or "sgld"
	Why        string // the rule that chose Kind
	MAP        []float64
	NegHess    *mat.SymDense // −∇²log p(θ|D) at the MAP
	Cov        *mat.SymDense // the Laplace covariance H⁻¹ (nil when H is not positive definite)
	Dense      bool          // dense preconditioner (metric) H⁻¹; otherwise diagonal
	Precond    []float64     // the diagonal preconditioner (when not Dense)
	PrecondWhy string

	// Arrow is the negative Hessian at the MAP in block-arrow form, and the
	// preconditioner M = Arrow⁻¹, on the path for hierarchical models at
	// scale (BlockPlanned); then NegHess, Cov and Precond are nil.
	Arrow *langevin.BlockArrow

	// SGLD only.
	BatchWhy string // the batch rule, when the plan chose the batch
	Step     *sampler.StepChoice
	CV       *sampler.CVChoice // nil when forced
	Batch    sampler.Minibatch
	BurnIn   int // burn-in rule: StepChoice.BurnIn, at least 100

	Sampler langevin.Sampler

	// Fallback, when not empty, says why the SG-MCMC plan was not trusted
	// and what runs instead (CostPlanned models).
	Fallback string
	// Start, when not nil, gives the chains' initial points (NUTS off a
	// degenerate mode: rescaledStart).
	Start langevin.Initializer
}

// String prints the plan, one rule per line.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sampler: %s (%s)\n", p.Kind, p.Why)
	if p.Fallback != "" {
		fmt.Fprintf(&b, "fallback: %s\n", p.Fallback)
	}
	fmt.Fprintf(&b, "preconditioner: %s\n", p.PrecondWhy)
	if p.Kind == "sgld" {
		if p.BatchWhy != "" {
			fmt.Fprintf(&b, "%s\n", p.BatchWhy)
		}
		fmt.Fprintf(&b, "%v\n", p.Step)
		if p.CV != nil {
			fmt.Fprintf(&b, "%v\n", p.CV)
		}
		fmt.Fprintf(&b, "burn-in: %d iterations from the MAP (3/(η·λmin(MH)): the slowest direction's variance within e⁻⁶ of stationary)\n", p.BurnIn)
	}
	return b.String()
}

// NewPlan chooses a sampler and all its settings for m:
//
//   - the MAP (L-BFGS) and the negative Hessian there (central differences,
//     2d full gradients) — the Laplace approximation N(θ̂, H⁻¹);
//   - the sampler by cost: NUTS needs about 14,000 full-data gradients per
//     chain; when that work, 14,000·N·d, is below opt.NUTSBudget, exact NUTS
//     is cheap and is chosen; otherwise SGLD, whose cost per effective draw
//     does not grow with N when control variates pay. A model with group
//     terms that reports its gradient's work (CostPlanned: a formula model)
//     is planned by newCostPlan instead: the cheaper of NUTS and the
//     block-arrow SGLD plan by predicted work, and NUTS off the mode when
//     the SG-MCMC plan's checks fail (opt.Kind "" or "nuts");
//   - the preconditioner (NUTS's metric): the dense Laplace covariance H⁻¹
//     when d ≤ DenseMax and H is positive definite, so that MH ≈ I;
//     otherwise the diagonal 1/max(Hⱼⱼ, Fⱼⱼ), F the empirical Fisher
//     information N·mean ∇ⱼlog p(zᵢ|θ̂)² (in the style of Fisher-diagonal
//     preconditioning; it stays positive where the Hessian is not, as in
//     neural networks);
//   - for SGLD: control variates where they pay and the step
//     ([sampler.ChooseEstimator]), the burn-in (StepChoice.BurnIn).
func NewPlan(ctx context.Context, m langevin.Model, opt PlanOptions) (*Plan, error) {
	d, n := m.Dim(), m.Len()
	userBatch := opt.Batch != 0
	if opt.NUTSBudget == 0 {
		opt.NUTSBudget = 2e9
	}
	if opt.DenseMax == 0 {
		opt.DenseMax = 100
	}
	if opt.Batch == 0 {
		opt.Batch = min(n, 100)
	}
	mp := opt.MAP
	if mp == nil {
		var err error
		find := approx.FindMAP
		if BlockMAPApplies(m) {
			find = func(ctx context.Context, m langevin.Model, _ []float64) ([]float64, error) { return BlockMAP(ctx, m) }
		}
		if mp, err = find(ctx, m, nil); err != nil {
			return nil, err
		}
	}
	if (opt.Kind == "" || opt.Kind == "nuts") && CostPlanned(m) {
		return newCostPlan(ctx, m, mp, opt, userBatch)
	}
	work := float64(nutsGradsPerChain) * float64(n) * float64(d)
	if BlockPlanned(m, &opt) {
		why := "asked for"
		if opt.Kind == "" {
			why = fmt.Sprintf("minibatches: exact NUTS would need about 14,000 full gradients per chain, 14,000·N·d = %.2g > %.2g", work, opt.NUTSBudget)
		}
		return newBlockPlan(ctx, m, m.(langevin.BlockStructured), mp, opt, userBatch, why)
	}
	if DiagPlanned(m, &opt) {
		kind, why := opt.Kind, "asked for"
		switch {
		case kind != "" && kind != "nuts" && kind != "sgld":
			return nil, fmt.Errorf("sampler: plan: sampler %q: expected nuts, sgld or empty", opt.Kind)
		case kind != "":
		case work <= opt.NUTSBudget:
			kind, why = "nuts", fmt.Sprintf("exact NUTS is cheap here: about 14,000 full gradients per chain, 14,000·N·d = %.2g ≤ %.2g", work, opt.NUTSBudget)
		default:
			kind, why = "sgld", fmt.Sprintf("minibatches: exact NUTS would need about 14,000 full gradients per chain, 14,000·N·d = %.2g > %.2g", work, opt.NUTSBudget)
		}
		return newDiagPlan(ctx, m, mp, opt, kind, why, cmp.Or(opt.DenseCurvatureMax, DenseCurvatureMax))
	}
	p := &Plan{MAP: mp, NegHess: opt.NegHess}
	if p.NegHess == nil {
		h := make([]float64, d*d)
		if err := langevin.HessianFDContext(ctx, m, mp, h); err != nil {
			return nil, err
		}
		p.NegHess = mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				p.NegHess.SetSym(i, j, -h[i*d+j])
			}
		}
	}
	var chol mat.Cholesky
	if chol.Factorize(p.NegHess) {
		p.Cov = mat.NewSymDense(d, nil)
		if err := chol.InverseTo(p.Cov); err != nil {
			p.Cov = nil
		}
	}
	switch opt.Kind {
	case "nuts", "sgld":
		p.Kind, p.Why = opt.Kind, "asked for"
	case "":
		if work <= opt.NUTSBudget {
			p.Kind = "nuts"
			p.Why = fmt.Sprintf("exact NUTS is cheap here: about 14,000 full gradients per chain, 14,000·N·d = %.2g ≤ %.2g", work, opt.NUTSBudget)
		} else {
			p.Kind = "sgld"
			p.Why = fmt.Sprintf("minibatches: exact NUTS would need about 14,000 full gradients per chain, 14,000·N·d = %.2g > %.2g", work, opt.NUTSBudget)
		}
	default:
		return nil, fmt.Errorf("sampler: plan: sampler %q: expected nuts, sgld or empty", opt.Kind)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x706c616e))
	if p.Cov != nil && d <= opt.DenseMax {
		p.Dense = true
		p.PrecondWhy = fmt.Sprintf("dense Laplace covariance H⁻¹ at the MAP (d = %d ≤ %d), so that MH ≈ I", d, opt.DenseMax)
	} else {
		p.Precond = fisherDiag(m, mp, p.NegHess, rng)
		why := "H is not positive definite at the MAP"
		if p.Cov != nil {
			why = fmt.Sprintf("d = %d > %d", d, opt.DenseMax)
		}
		p.PrecondWhy = "diagonal 1/max(Hⱼⱼ, Fⱼⱼ), F the empirical Fisher information (" + why + ")"
	}
	var M mat.Symmetric
	if p.Dense {
		M = p.Cov
	} else {
		M = mat.NewDiagDense(d, p.Precond)
	}
	if p.Kind == "nuts" {
		s := sampler.NUTS{}
		if p.Dense {
			s.PrecondFull = p.Cov
			s.Adapt.Metric = sampler.MetricDense
		} else {
			s.Precond = p.Precond
		}
		p.Sampler = s
		return p, nil
	}
	mb := sampler.Minibatch{Size: opt.Batch, Replace: opt.Replace}
	switch opt.CV {
	case "":
		v, chosen, err := sampler.ChooseEstimator(m, mp, p.NegHess, M, mb, opt.Rule, rng)
		if err != nil {
			return nil, err
		}
		p.CV, mb = v, chosen
		p.Step = v.Plain
		if mb.CV != nil {
			p.Step = v.CV
		}
	case "on", "off":
		if opt.CV == "on" {
			mb.CV = append([]float64(nil), mp...)
		}
		var err error
		if p.Step, err = sampler.ChooseStep(m, mp, p.NegHess, M, mb, opt.Rule, rng); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("sampler: plan: control variates %q: expected on, off or empty", opt.CV)
	}
	p.Batch = mb
	p.BurnIn = max(100, p.Step.BurnIn(p.Step.Eta))
	s := sampler.SGLD{Step: schedule.Constant(p.Step.Eta), Batch: mb}
	if p.Dense {
		s.PrecondFull = p.Cov
	} else {
		s.Precond = p.Precond
	}
	p.Sampler = s
	return p, nil
}

// fisherDiag returns 1/max(Hⱼⱼ, Fⱼⱼ, tiny), F the empirical Fisher
// information N·mean over (up to 20,000) observations of ∇ⱼlog p(zᵢ|θ)².
func fisherDiag(m langevin.Model, theta []float64, negHess *mat.SymDense, rng *rand.Rand) []float64 {
	d, n := m.Dim(), m.Len()
	idx := sampler.SubsetIndex(n, min(n, 20000), rng)
	f := make([]float64, d)
	rowGradMoments(m, theta, idx, make([]float64, d), f)
	out := make([]float64, d)
	scale := float64(n) / float64(len(idx))
	for j := range out {
		c := math.Max(negHess.At(j, j), f[j]*scale)
		if !(c > 1e-12) {
			c = 1e-12
		}
		out[j] = 1 / c
	}
	return out
}

// InitGaussian starts each chain at an independent draw from
// N(Mean, Scale²·Cov) from the chain's own stream (Scale 0 means 1): with the
// Laplace approximation, chains that start spread like the posterior, so
// that R̂ can see a chain that does not mix, and burn-in only has to correct
// the posterior's departure from the Gaussian.
type InitGaussian struct {
	Mean  []float64
	Cov   *mat.SymDense
	Scale float64
}

// Init implements langevin.Initializer.
func (in InitGaussian) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	d := m.Dim()
	if len(in.Mean) != d || in.Cov == nil || in.Cov.SymmetricDim() != d {
		return fmt.Errorf("sampler: Gaussian initial points of dimension %d, model has %d parameters", len(in.Mean), d)
	}
	x, err := gaussianDraws(in.Mean, in.Cov, 1, rng)
	if err != nil {
		return err
	}
	sc := in.Scale
	if sc == 0 {
		sc = 1
	}
	for j := range dst {
		dst[j] = in.Mean[j] + sc*(x[0][j]-in.Mean[j])
	}
	return nil
}

// UntilESS returns a langevin.Options.Until rule: stop when the smallest
// bulk-ESS over the model's parameters (the first dim columns), over all
// chains, reaches target and the largest R̂ is at most 1.01 (Vehtari et al.
// 2021's threshold), or when maxTime (0: none) has passed since start. The
// ESS and R̂ rule alone is reproducible; the time budget is not. The reason
// for stopping is written to *why when why is not nil.
func UntilESS(dim int, target float64, start time.Time, maxTime time.Duration, why *string) func(tr *langevin.Trace) bool {
	return UntilRule(dim, target, RHatRule{}, start, maxTime, why)
}

// MaxRHat returns the largest R̂ ([diag.RHat]) over the first dim columns
// of tr and its column (NaN, −1 when undefined). Chains of different
// lengths are cut to the shortest.
func MaxRHat(tr *langevin.Trace, dim int) (float64, int) {
	worst, col := math.Inf(-1), -1
	forColumns(tr, dim, func(j int, chains [][]float64) {
		if r := diag.RHat(chains); r > worst {
			worst, col = r, j
		}
	})
	if col < 0 {
		return math.NaN(), -1
	}
	return worst, col
}

// forColumns calls f with the draws of each of the first dim columns, cut
// to the shortest chain (at least 8 draws).
func forColumns(tr *langevin.Trace, dim int, f func(j int, chains [][]float64)) {
	short := math.MaxInt
	for _, c := range tr.Draws {
		short = min(short, len(c))
	}
	if short < 8 {
		return
	}
	chains := make([][]float64, len(tr.Draws))
	for c := range chains {
		chains[c] = make([]float64, short)
	}
	for j := 0; j < dim; j++ {
		for c, rows := range tr.Draws {
			for i := 0; i < short; i++ {
				chains[c][i] = rows[i][j]
			}
		}
		f(j, chains)
	}
}

// MinESSBulk returns the smallest bulk-ESS over the first dim columns of tr
// and its column (NaN, −1 when undefined, for example with too few draws).
// Chains of different lengths are cut to the shortest.
func MinESSBulk(tr *langevin.Trace, dim int) (float64, int) {
	best, col := math.Inf(1), -1
	forColumns(tr, dim, func(j int, chains [][]float64) {
		if e := diag.ESSBulk(chains); e < best {
			best, col = e, j
		}
	})
	if col < 0 {
		return math.NaN(), -1
	}
	return best, col
}
