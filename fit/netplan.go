package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// Network is what [NewNetPlan] needs of a neural network (model.MLP has it):
// a random start that breaks the symmetry of the hidden units, the prior sd
// of every parameter, groups of parameters exchanged by permutations of
// hidden units, and the predictions on which convergence is judged.
type Network interface {
	langevin.Model
	// InitPoint writes a random initial point (scaled by fan-in, never 0).
	InitPoint(dst []float64, rng *rand.Rand)
	// PriorSDs writes the prior sd of each parameter.
	PriorSDs(dst []float64)
	// Groups returns each parameter's group (a layer's weights, its biases,
	// the noise): permuting hidden units maps a parameter into its group.
	Groups() []int
	// Inputs returns the training inputs of the rows (all when nil).
	Inputs(rows []int) *mat.Dense
	// FunctionWidth and FunctionValues: the predictive quantities at the rows
	// of X (FunctionWidth per row), e.g. the mean or the class probabilities.
	FunctionWidth() int
	FunctionValues(theta []float64, X *mat.Dense, dst []float64)
}

// NetPlanOptions are the settings of [NewNetPlan]; a zero field means the
// documented rule.
type NetPlanOptions struct {
	// Starts is the number of MAP starts, one chain at each mode; 0 means 4.
	Starts int
	// Batch is the minibatch size; 0 means min(N, 32).
	Batch int
	// MAPIters is Adam's iterations per start; 0 means the rule: 300
	// epochs, at least 2,000 and at most 20,000 iterations.
	MAPIters int
	// Budget is the stability budget η·λmax(MH); 0 means 0.1 (the
	// discretisation inflates the stationary variance by at most
	// 1/(1 − 0.05) along the stiffest direction).
	Budget float64
	// Points are the inputs at which convergence is judged (held-out points);
	// nil means up to 100 training inputs drawn at random.
	Points *mat.Dense
	// Seed seeds the starts and the measurements.
	Seed uint64
	// Kind is the sampler: "sghmc" (the default) or "sgld".
	Kind string
	// OutputBlock preconditions the output layer's parameters with a dense
	// block per mode (sghmc, networks that name their output layer, at most
	// netBlockMax parameters): the inverse of the layer's block of the
	// Hessian at the mode (outputBlockCov). Off by default: on gap1d it
	// widens the band in the gap (ratio 1.18 → 1.55 at the default prior)
	// but the validation rows of yacht lose log-likelihood (docs/validation.md).
	OutputBlock bool
	// GibbsEvery: the output layer of a homoscedastic Gaussian network is
	// drawn exactly from its conditional every GibbsEvery SGHMC steps
	// (netGibbs); 0 means the rule (on, at a period set by cost), < 0 off,
	// > 0 that period.
	GibbsEvery int
	// UnitMoves > 0 makes each Gibbs draw first propose that many
	// Metropolis–Hastings moves of the last hidden layer's units (each
	// redrawn from its prior, the output layer integrated out) and as many
	// random-walk moves of log σ² (model.OutputConditional.SetUnitMoves).
	// Off (0) by default: on gap1d one sweep per draw widens the band in the
	// gap from 2.08× to about 2.8× the band over the data, but on yacht the
	// SGHMC steps between the sweeps heat up (σ² grows run-long, validation
	// log-likelihood −0.75 → −1.48; docs/validation.md "Unit moves").
	UnitMoves int
}

// NetPlan is the sampler chosen for a network by [NewNetPlan], every choice
// with its reason in Notes (the command prints them on its auto: lines).
type NetPlan struct {
	Modes   [][]float64 // the MAP of each start (Adam), chain c starts at Modes[c mod len]
	ModeLP  []float64   // log p(θ|D) (full data) at each mode
	Precond []float64   // the diagonal preconditioner M, constant within each group
	// OutputBlocks[c] is mode c's dense preconditioner of the output layer
	// (sghmc only; nil: the diagonal Precond there too): the inverse of the
	// output layer's block of the Hessian at the mode, so that directions of
	// the output layer that the data leave to the prior move at the prior's
	// scale (see outputBlockCov).
	OutputBlocks [][]sampler.DenseBlock
	// Gibbs makes each chain's exact draw of the output layer, every
	// GibbsEvery steps (sghmc only; nil: none, see netGibbs).
	Gibbs      func() (sampler.Conditional, error)
	GibbsEvery int
	LambdaMax  []float64 // λmax(MH) at each mode (power iteration on Hessian-vector products)
	Eta        float64   // SGLD's step
	Ratio      float64   // gradient-noise to injected-noise variance at the best mode
	Batch      sampler.Minibatch
	BurnIn     int
	MaxIters   int // the cap on the run length (burn-in included)
	Points     *mat.Dense
	Kind       string           // "sghmc" or "sgld"
	Friction   float64          // SGHMC's α (netFriction)
	Sampler    langevin.Sampler // with restarts of diverging chains
	Notes      []string
	// Restarts says which chains diverged and were restarted with a smaller
	// step (filled during the run).
	Restarts []string
	// Lo and Hi bound the plausible region (see [NetPlan.Plausible]): a
	// chain whose coordinate j leaves [Lo[j], Hi[j]] has diverged. Nil: only
	// finiteness is checked.
	Lo, Hi []float64

	inner       langevin.Sampler
	mu          sync.Mutex
	names       []string // parameter names, for the restart notes
	budget      float64
	temperature float64 // τ of the sampler (0: 1); tests set 2 to show a slip is caught
}

// Budget returns the planned η·λmax(MH).
func (p *NetPlan) Budget() float64 { return p.budget }

// Init starts chain c at Modes[c mod len(Modes)].
func (p *NetPlan) Init() langevin.Initializer { return langevin.InitAt{Points: p.Modes} }

// String prints the notes one per line.
func (p *NetPlan) String() string { return strings.Join(p.Notes, "\n") + "\n" }

func (p *NetPlan) note(format string, a ...any) { p.Notes = append(p.Notes, fmt.Sprintf(format, a...)) }

// NewNetPlan chooses every setting of a run of SGLD on network m, by rules:
//
//   - Starts random initial points (model's InitPoint: weights scaled by
//     fan-in; θ = 0 is a saddle), each taken to a mode by Adam with a
//     learning rate decaying from 10⁻² to 10⁻³ (minibatches of Batch); the
//     chains start at these modes, so that they see several of the
//     posterior's modes (an ensemble of local posteriors, as deep ensembles,
//     but each sampled);
//   - the preconditioner M: for each group of parameters (a layer's
//     weights, its biases, log σ²), 1/mean(1/sⱼ² + Fⱼ), s the prior sd and F
//     the empirical Fisher information N·mean ∇ⱼlog p(zᵢ|θ̂)² at the modes;
//     constant within groups, so it suits every permutation of the hidden
//     units alike;
//   - the step η = Budget/λmax(MH), λmax the largest over the modes of the
//     preconditioned curvature, by power iteration on Hessian-vector products
//     (central differences of two full-data gradients), and smaller when the
//     minibatch gradient noise would exceed a tenth of the injected noise
//     (η·tr(M C M)/(2 tr M) ≤ 0.1, C the covariance of ĝ);
//   - SGHMC's friction α = 2√η, raised to keep the minibatch noise within
//     a tenth of SGHMC's injected noise ([netFriction]);
//   - for a homoscedastic Gaussian network (sghmc), an exact draw of the
//     output layer from its Gaussian conditional every GibbsEvery steps
//     (netGibbs, model.OutputConditional): the directions the data leave
//     to the prior relax at once instead of in ~10⁷ steps; the gradient
//     noise of the friction rule is then the largest over the best mode
//     and netGibbsProbes such draws from each mode (where the chains go:
//     larger output weights, larger per-row gradients of the hidden
//     layers);
//   - the burn-in: 3/η iterations (the relaxation time of a direction of
//     unit preconditioned curvature, 1/(η·λ), three times: within e⁻³ of
//     stationary), at least 200;
//   - the length: until the predictions at Points converge
//     ([NetPlan.Until]), at most MaxIters = max(20,000, 3 burn-ins).
func NewNetPlan(ctx context.Context, m Network, opt NetPlanOptions) (*NetPlan, error) {
	d, n := m.Dim(), m.Len()
	if opt.Starts == 0 {
		opt.Starts = 4
	}
	if opt.Starts < 1 {
		return nil, fmt.Errorf("sampler: network plan: %d starts: expected at least 1", opt.Starts)
	}
	if opt.Batch == 0 {
		opt.Batch = min(n, 32)
	}
	if opt.Budget == 0 {
		opt.Budget = 0.1
	}
	if !(opt.Budget > 0 && opt.Budget < 2) {
		return nil, fmt.Errorf("sampler: network plan: budget η·λmax %v: expected a number in (0, 2)", opt.Budget)
	}
	p := &NetPlan{Batch: sampler.Minibatch{Size: opt.Batch}, budget: opt.Budget}
	iters := opt.MAPIters
	if iters == 0 {
		iters = NetMAPIters(n, opt.Batch)
	}
	if ps, ok := m.(interface{ PriorString() string }); ok {
		p.note("prior: %s", ps.PriorString())
	}
	p.note("init: %d random starts, weights scaled by fan-in (θ = 0 is a saddle of the network: every hidden unit alike)", opt.Starts)
	for s := 0; s < opt.Starts; s++ {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x6e6574+uint64(s)))
		th := make([]float64, d)
		m.InitPoint(th, rng)
		if allZero(th) {
			return nil, fmt.Errorf("sampler: network plan: start %d is θ = 0, a saddle of a network (every hidden unit alike): InitPoint must draw a random point", s+1)
		}
		mode, err := adamDecay(ctx, m, th, iters, opt.Batch, rng)
		if err != nil {
			return nil, fmt.Errorf("sampler: network plan: MAP start %d: %w", s+1, err)
		}
		p.Modes = append(p.Modes, mode)
		p.ModeLP = append(p.ModeLP, logPost(m, mode, nil))
	}
	lps := append([]float64(nil), p.ModeLP...)
	sort.Float64s(lps)
	p.note("MAP: Adam from each start, %d iterations (300 epochs, 2,000 to 20,000) of batch %d, learning rate 10⁻² decaying to 10⁻³: log p(θ̂|D) %.1f to %.1f over the modes; chain c starts at mode c",
		iters, opt.Batch, lps[0], lps[len(lps)-1])

	// Preconditioner: per group, 1/mean(prior precision + Fisher).
	rng := rand.New(rand.NewPCG(opt.Seed, 0x707265))
	sd := make([]float64, d)
	m.PriorSDs(sd)
	groups := m.Groups()
	ng := 0
	for _, g := range groups {
		ng = max(ng, g+1)
	}
	prec := make([]float64, ng)
	cnt := make([]float64, ng)
	idx := sampler.SubsetIndex(n, min(n, 2000), rng)
	fisher := make([]float64, d)
	gvar := make([]float64, d) // per-observation gradient variance at the best mode
	best := 0
	for k := range p.Modes {
		if p.ModeLP[k] > p.ModeLP[best] {
			best = k
		}
	}
	for k, mode := range p.Modes {
		mean := make([]float64, d)
		rowGradMoments(m, mode, idx, mean, fisher)
		sc := float64(n) / float64(len(idx))
		for j, g := range groups {
			prec[g] += 1/(sd[j]*sd[j]) + fisher[j]*sc
			cnt[g]++
			if k == best {
				mu := mean[j] / float64(len(idx))
				gvar[j] = fisher[j]/float64(len(idx)) - mu*mu
			}
		}
	}
	p.Precond = make([]float64, d)
	for j, g := range groups {
		p.Precond[j] = cnt[g] / prec[g]
	}
	p.note("preconditioner: per group of parameters (a layer's weights, its biases, log σ²) 1/mean(1/s² + F), s the prior sd, F the empirical Fisher information at the modes; constant in a group, so it suits every permutation of the hidden units")

	// Curvature at each mode, on a subsample of rows when the data are
	// large (curvatureRows).
	rows := curvatureRows(n, d, rng)
	if rows != nil {
		p.note("curvature: Hessian-vector products on %d of the %d rows (likelihood scaled by N/%d): a full-data product would cost N·d = %.2g multiply-adds, above the budget of %.0e", len(rows), n, len(rows), float64(n)*float64(d), curvatureBudget)
	}
	kind := opt.Kind
	if kind == "" {
		kind = "sghmc"
	}
	if ol, ok := m.(outputLayered); ok && kind == "sghmc" && opt.OutputBlock && len(ol.OutputLayer()) <= netBlockMax {
		idx := ol.OutputLayer()
		brows := rows
		if brows == nil && n > netBlockRows {
			brows = sampler.SubsetIndex(n, netBlockRows, rng)
		}
		for _, mode := range p.Modes {
			cov, err := outputBlockCov(ctx, m, mode, idx, sd, brows)
			if err != nil {
				return nil, err
			}
			p.OutputBlocks = append(p.OutputBlocks, []sampler.DenseBlock{{Index: idx, Cov: cov}})
		}
		on := "all the rows"
		if brows != nil {
			on = fmt.Sprintf("%d rows (likelihood scaled by N/%d)", len(brows), len(brows))
		}
		p.note("preconditioner, output layer: dense, per mode, the inverse of the output layer's %d×%d block of the Hessian at the mode (on %s; eigenvalues at least the prior precision): the network is linear in it, and the directions the data leave to the prior (the function where there are no data) are combinations of its weights, which a diagonal preconditioner set by the data-informed weights moves orders of magnitude too slowly", len(idx), len(idx), on)
	}
	if kind == "sghmc" && opt.GibbsEvery >= 0 {
		var why string
		p.Gibbs, p.GibbsEvery, why = netGibbs(m, opt.Batch, opt.GibbsEvery, opt.UnitMoves)
		if why != "" {
			p.note("gibbs: %s", why)
		}
	}
	lmax := 0.0
	for k, mode := range p.Modes {
		var l float64
		var err error
		if p.OutputBlocks != nil {
			h, herr := newHalfPrecond(p.Precond, p.OutputBlocks[k])
			if herr != nil {
				return nil, herr
			}
			l, err = lambdaMaxHalf(ctx, m, mode, h, rows, rng)
		} else {
			l, err = lambdaMaxHVP(ctx, m, mode, p.Precond, rows, rng)
		}
		if err != nil {
			return nil, err
		}
		p.LambdaMax = append(p.LambdaMax, l)
		lmax = max(lmax, l)
	}
	var probes [][]float64
	var lprobe float64
	if p.Gibbs != nil {
		l, pr, err := gibbsProbes(ctx, m, p, rows, opt.Seed)
		if err != nil {
			return nil, err
		}
		lprobe, probes = l, pr
	}
	p.Eta = opt.Budget / lmax
	// Gradient noise at the best mode: Var(ĝⱼ) = N²/B (1 − B/N) var_i.
	fpc := 1 - float64(opt.Batch)/float64(n)
	var num, den float64
	var inBlock []bool
	if p.OutputBlocks != nil {
		inBlock = make([]bool, d)
		blk := p.OutputBlocks[best][0]
		for a, j := range blk.Index {
			inBlock[j] = true
			den += blk.Cov.At(a, a)
		}
		num += float64(n) * float64(n) / float64(opt.Batch) * fpc * blockNoiseTrace(m, p.Modes[best], blk, idx)
	}
	for j, v := range gvar {
		if inBlock != nil && inBlock[j] {
			continue
		}
		c := float64(n) * float64(n) / float64(opt.Batch) * fpc * v
		num += p.Precond[j] * p.Precond[j] * c
		den += p.Precond[j]
	}
	noiseAt := ""
	if probes != nil && p.OutputBlocks == nil {
		// The gradient noise at the Gibbs probes: output weights at the
		// prior's scale make the hidden layers' per-row gradients larger.
		nb := num
		for _, th := range probes {
			num = max(num, float64(n)*float64(n)/float64(opt.Batch)*fpc*precondGradVar(m, th, idx, p.Precond))
		}
		noiseAt = fmt.Sprintf(" (the largest over the best mode, %.3g, and the Gibbs probes)", p.Eta*nb/(2*den))
	}
	ratio := p.Eta * num / (2 * den)
	why := fmt.Sprintf("η·λmax(MH) = %.2g, λmax = %.3g the largest over the modes (power iteration on Hessian-vector products)", opt.Budget, lmax)
	if ratio > 0.1 {
		p.Eta *= 0.1 / ratio
		why = fmt.Sprintf("lowered from %.3g so that the minibatch noise is a tenth of the injected noise (η·tr(MCM)/(2 tr M) = 0.1); λmax(MH) = %.3g", opt.Budget/lmax, lmax)
		ratio = 0.1
	}
	p.Ratio = ratio
	if probes != nil {
		why += fmt.Sprintf("; at the Gibbs probes (%d exact draws of the output layer from each mode) η·λmax = %.2g, λmax = %.3g: output weights at their conditional's scale stiffen the hidden layers, well inside SGHMC's stability bound 2(2 − α) (the step stays set at the modes: a step set at the probes cost 2–4× the iterations and lost validation log-likelihood on wine)", netGibbsProbes, p.Eta*lprobe, lprobe)
	}
	p.note("step: η = %.3g (%s); gradient-noise/injected-noise variance %.3f at batch %d%s", p.Eta, why, ratio, opt.Batch, noiseAt)
	p.BurnIn = max(200, int(math.Ceil(3/p.Eta)))
	p.MaxIters = max(20000, 3*p.BurnIn)
	p.note("burn-in: %d iterations from the modes (3/η: a direction of unit preconditioned curvature within e⁻³ of stationary, at least 200); at most %d iterations in all", p.BurnIn, p.MaxIters)
	p.setBounds(sd, langevin.ParamNames(m))
	p.note("divergence: a chain whose position is not finite, or leaves the plausible region (a coordinate more than %d prior sds beyond the modes' range, where the prior's density is below e^-%d of its value at the nearest mode: a chain at stationarity does not go there), is restarted from its mode with η/4", plausibleSDs, plausibleSDs*plausibleSDs/2)
	p.Points = opt.Points
	if p.Points == nil {
		p.Points = m.Inputs(sampler.SubsetIndex(n, min(n, 100), rng))
	}
	p.Kind = opt.Kind
	if p.Kind == "" {
		p.Kind = "sghmc"
	}
	p.setSampler()
	return p, nil
}

// plausibleSDs is how many prior sds beyond the modes' range a coordinate
// may go before its chain counts as diverged.
const plausibleSDs = 20

// setBounds sets the plausible region from the modes and the prior sds sd:
// coordinate j within [min mode_j − 20 s_j, max mode_j + 20 s_j]. The
// posterior is narrower than the prior along every direction the data
// inform and equal to it along the others, so a draw 20 prior sds beyond
// every mode has a prior density e⁻²⁰⁰ times smaller than at the mode that
// no likelihood at a mode compensates: the chain has left the posterior's
// mass (protein split 4: log σ² ran away to 400, prior sd 2, finite all the
// while).
func (p *NetPlan) setBounds(sd []float64, names []string) {
	d := len(sd)
	p.Lo, p.Hi = make([]float64, d), make([]float64, d)
	p.names = names
	for j := range sd {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, mode := range p.Modes {
			lo, hi = min(lo, mode[j]), max(hi, mode[j])
		}
		p.Lo[j], p.Hi[j] = lo-plausibleSDs*sd[j], hi+plausibleSDs*sd[j]
	}
}

// Plausible returns −1 when theta is finite and inside the plausible region
// [Lo, Hi], else the index of the first coordinate that is not (d when a
// coordinate is not finite and Lo is nil).
func (p *NetPlan) Plausible(theta []float64) int {
	for j, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return j
		}
		if p.Lo != nil && j < len(p.Lo) && (v < p.Lo[j] || v > p.Hi[j]) {
			return j
		}
	}
	return -1
}

// setSampler builds the plan's sampler: its kind at step p.Eta, with
// restarts.
func (p *NetPlan) setSampler() {
	var why string
	p.Friction, why = netFriction(p.Eta, p.Ratio)
	if p.Kind == "sghmc" {
		p.note("friction: %s", why)
	}
	p.inner = p.build(p.Eta, 0)
	p.Sampler = restartSampler{p}
}

// modeOf returns the index of the mode theta is (0 when it is none).
func (p *NetPlan) modeOf(theta []float64) int {
	for k, mode := range p.Modes {
		if len(mode) == len(theta) {
			same := true
			for j, v := range mode {
				if v != theta[j] {
					same = false
					break
				}
			}
			if same {
				return k
			}
		}
	}
	return 0
}

// build returns the sampler of the plan's kind at step eta. SGHMC's friction
// is netFriction's, fixed at the planned step: α = 2√η, critical damping of a
// direction of unit preconditioned curvature (its frequency per step is
// √(ηλ)), or more when the minibatch noise would heat the chains.
func (p *NetPlan) build(eta float64, mode int) langevin.Sampler {
	if p.Kind == "sgld" {
		return sampler.SGLD{Step: schedule.Constant(eta), Batch: p.Batch, Precond: p.Precond, Temperature: p.temperature}
	}
	mass := make([]float64, len(p.Precond))
	for j, v := range p.Precond {
		mass[j] = 1 / v
	}
	var blocks []sampler.DenseBlock
	if p.OutputBlocks != nil {
		blocks = p.OutputBlocks[mode%len(p.OutputBlocks)]
	}
	return sampler.SGHMC{Step: schedule.Constant(eta), Batch: p.Batch, Mass: mass, Friction: p.Friction, Temperature: p.temperature, Blocks: blocks,
		Gibbs: p.Gibbs, GibbsEvery: p.GibbsEvery}
}

// logPost returns log p(θ|D) on all the data and adds its gradient into
// grad (when not nil).
func logPost(m langevin.Model, theta, grad []float64) float64 {
	return m.LogPrior(theta, grad) + m.LogLik(theta, nil, grad)
}

// adamDecay runs Adam from theta0 with the learning rate 10⁻²·T/(T + 9t),
// from 10⁻² to 10⁻³ over T iterations.
func adamDecay(ctx context.Context, m langevin.Model, theta0 []float64, iters, batch int, rng *rand.Rand) ([]float64, error) {
	ch, err := sampler.Adam{Step: NetMAPSchedule(iters), Batch: sampler.Minibatch{Size: min(batch, m.Len())}}.NewChain(m, theta0, rng)
	if err != nil {
		return nil, err
	}
	for it := 1; it <= iters; it++ {
		if it%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := ch.Step(); err != nil {
			return nil, err
		}
	}
	out := append([]float64(nil), ch.Position()...)
	for j, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("Adam diverged: %s = %v", langevin.ParamNames(m)[j], v)
		}
	}
	return out, nil
}

// LambdaMaxHVP returns the largest |eigenvalue| of M^½ H M^½ (the spectrum
// of MH; nil precond means M = I), H = −∇²log p(θ|D) at theta, by 30 steps
// of power iteration; each product Hv is a central difference of two
// full-data gradients.
func LambdaMaxHVP(ctx context.Context, m langevin.Model, theta, precond []float64, rng *rand.Rand) (float64, error) {
	if precond == nil {
		precond = make([]float64, m.Dim())
		for j := range precond {
			precond[j] = 1
		}
	}
	return lambdaMaxHVP(ctx, m, theta, precond, nil, rng)
}

// curvatureBudget is the most multiply-adds (about N·d) that one
// Hessian-vector product of the network plan may cost on all the data.
const curvatureBudget = 1e8

// curvatureRows returns nil (all rows) when N·d ≤ curvatureBudget, and
// otherwise max(2,000, budget/d) rows drawn at random: the likelihood's
// Hessian on them, scaled by N/|S|, estimates the full one (λmax within a
// few per cent at 2,000 rows), at 1/30 of the cost for Fashion-MNIST's
// 60,000 images. Every UCI regression set is below the budget (protein:
// N·d = 4.5·10⁷), so its plan is unchanged.
func curvatureRows(n, d int, rng *rand.Rand) []int {
	if float64(n)*float64(d) <= curvatureBudget {
		return nil
	}
	k := max(2000, int(math.Ceil(curvatureBudget/float64(d))))
	if k >= n {
		return nil
	}
	return sampler.SubsetIndex(n, k, rng)
}

// logPostRows is logPost with the likelihood on the given rows scaled by
// N/|rows| (all rows when nil).
func logPostRows(m langevin.Model, theta, grad []float64, rows []int) float64 {
	if rows == nil {
		return logPost(m, theta, grad)
	}
	lp := m.LogPrior(theta, grad)
	sc := float64(m.Len()) / float64(len(rows))
	g := make([]float64, len(grad))
	ll := m.LogLik(theta, rows, g)
	for j, v := range g {
		grad[j] += sc * v
	}
	return lp + sc*ll
}

func lambdaMaxHVP(ctx context.Context, m langevin.Model, theta, precond []float64, rows []int, rng *rand.Rand) (float64, error) {
	d := m.Dim()
	u := make([]float64, d)
	for j := range u {
		u[j] = rng.NormFloat64()
	}
	normalize(u)
	tp, tm := make([]float64, d), make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	var lam float64
	var tn float64
	for _, v := range theta {
		tn += v * v
	}
	for it := 0; it < 30; it++ {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		// v = M^½ u; Hv ≈ −(g(θ+εv) − g(θ−εv))/(2ε).
		var vn float64
		for j := range u {
			v := math.Sqrt(precond[j]) * u[j]
			vn += v * v
		}
		eps := 1e-4 * (1 + math.Sqrt(tn)) / math.Sqrt(vn)
		for j := range u {
			v := math.Sqrt(precond[j]) * u[j]
			tp[j], tm[j] = theta[j]+eps*v, theta[j]-eps*v
		}
		clear(gp)
		clear(gm)
		logPostRows(m, tp, gp, rows)
		logPostRows(m, tm, gm, rows)
		for j := range u {
			u[j] = -math.Sqrt(precond[j]) * (gp[j] - gm[j]) / (2 * eps)
		}
		lam = normalize(u)
		if math.IsNaN(lam) || math.IsInf(lam, 0) {
			return 0, errors.New("sampler: network plan: the curvature at a mode is not finite")
		}
	}
	return lam, nil
}

// normalize scales u to unit length and returns its former length.
func normalize(u []float64) float64 {
	var s float64
	for _, v := range u {
		s += v * v
	}
	s = math.Sqrt(s)
	if s > 0 {
		for j := range u {
			u[j] /= s
		}
	}
	return s
}

// restartSampler is the plan's sampler, with restarts: a chain whose
// position stops being finite or leaves the plausible region
// ([NetPlan.Plausible]) starts again from its initial point with the step
// divided by 4 (at most 3 times, then it fails as a diverging chain), and
// the plan's notes say so.
type restartSampler struct {
	p *NetPlan
}

// StatNames implements langevin.Sampler.
func (s restartSampler) StatNames() []string { return s.p.inner.StatNames() }

// NewChain implements langevin.Sampler.
func (s restartSampler) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	mode := s.p.modeOf(theta0)
	in, err := s.p.build(s.p.Eta, mode).NewChain(m, theta0, rng)
	if err != nil {
		return nil, err
	}
	return &restartChain{p: s.p, m: m, start: append([]float64(nil), theta0...), rng: rng, inner: in, eta: s.p.Eta, mode: mode}, nil
}

type restartChain struct {
	p        *NetPlan
	m        langevin.Model
	start    []float64
	rng      *rand.Rand
	inner    langevin.Chain
	eta      float64
	t        int
	restarts int
	mode     int // the plan's mode the chain started at
}

func (c *restartChain) Step() error {
	c.t++
	err := c.inner.Step()
	j := -1
	if err == nil {
		if j = c.p.Plausible(c.inner.Position()); j < 0 {
			return nil
		}
	}
	what := "diverged"
	if err == nil {
		v := c.inner.Position()[j]
		name := fmt.Sprintf("θ[%d]", j)
		if j < len(c.p.names) {
			name = c.p.names[j]
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			what = fmt.Sprintf("diverged (%s = %v)", name, v)
		} else {
			what = fmt.Sprintf("left the plausible region (%s = %.3g, outside [%.3g, %.3g]: more than %d prior sds beyond the modes' range)", name, v, c.p.Lo[j], c.p.Hi[j], plausibleSDs)
		}
	}
	if c.restarts == 3 {
		if err == nil {
			err = fmt.Errorf("fit: a chain %s at iteration %d after 3 restarts with a smaller step", what, c.t)
		}
		return err // the run reports the divergence
	}
	c.restarts++
	c.eta /= 4
	c.p.mu.Lock()
	c.p.Restarts = append(c.p.Restarts, fmt.Sprintf("a chain %s at iteration %d (η = %.3g): restarted from its mode with η = %.3g", what, c.t, 4*c.eta, c.eta))
	c.p.mu.Unlock()
	in, err := c.p.build(c.eta, c.mode).NewChain(c.m, c.start, c.rng)
	if err != nil {
		return err
	}
	c.inner = in
	return nil
}

// State implements langevin.Resumable: the iteration, the restarts so far
// and their step, then the inner chain's state (remade with that step first
// when it restarted). The notes of restarts before the checkpoint are not
// kept.
func (c *restartChain) State(s *langevin.StateCoder) {
	s.Int(&c.t)
	restarts, eta := c.restarts, c.eta
	s.Int(&restarts)
	s.Float(&eta)
	if s.Decoding() && restarts != c.restarts {
		in, err := c.p.build(eta, c.mode).NewChain(c.m, c.start, c.rng) // draws from the stream: restored after
		if err != nil {
			s.Fail(err)
			return
		}
		c.inner, c.restarts, c.eta = in, restarts, eta
	}
	in, ok := c.inner.(langevin.Resumable)
	if !ok {
		s.Fail(fmt.Errorf("fit: a chain of type %T cannot save its state", c.inner))
		return
	}
	in.State(s)
}

func (c *restartChain) Position() []float64 { return c.inner.Position() }
func (c *restartChain) Stats(dst []float64) { c.inner.Stats(dst) }

func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
