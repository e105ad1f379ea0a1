package fit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// Job is what to fit: a model of the training data and, optionally, the
// held-out rows its posterior predictive is scored on.
type Job struct {
	Model langevin.Model
	Test  *data.Dataset // nil or empty: no test-set scores
	// Problem, when not nil, is the job of langevin run: its configuration,
	// its data and its model, as the command read and built them (Model and
	// Test are then not read).
	Problem *Problem
}

// Settings are the settings of [Run]. A zero field means the rule, stated
// in the result's notes.
type Settings struct {
	Chains int    // 0: 4
	Seed   uint64 // 0: 1
	// TargetESS is the smallest bulk-ESS over the parameters at which the
	// run stops (with max R̂ ≤ 1.01); 0: 400; negative: no ESS rule, run to
	// Iters.
	TargetESS float64
	// MaxTime stops the sampling after this time even if TargetESS is not
	// reached (0: no limit; not reproducible).
	MaxTime time.Duration
	Iters   int // the most iterations per chain, burn-in included; 0: 10⁷
	BurnIn  int // 0: the plan's rule (NUTS: Stan's 1000 warm-up iterations; SGLD: 3/(η·λmin(MH)))
	Batch   int // SGLD's minibatch; 0: the plan's rule, min(N, 100)
	// ChainWeights is how a network's chains make its posterior predictive
	// (the test-set scores): "stacking" or empty (StackChains), or "equal".
	ChainWeights string

	// Progress, when not nil, is called by each chain with the iterations
	// it has done (langevin.Options.Progress).
	Progress func(chain, done int)
	// Sink, when not nil, receives each chain's draws as they come
	// (langevin.Options.Sink), for example a run directory's files.
	Sink func(chain int) langevin.DrawSink

	// Control, when not nil, follows and stops a Problem's run (the
	// command's signals, time line and progress).
	Control Control
	// RunWriter, when not nil, receives a Problem's draws as they come, its
	// checkpoints, summary and model (langevin run's: its run directory).
	RunWriter RunWriter
	// Start is when the job began, from which MaxTime counts (zero: when Run
	// is called).
	Start time.Time
}

// Note is one line of a result's account: a rule and the reason it gave
// (Key "auto"), what the run did ("draws", "ksd"), or a warning.
type Note struct {
	Key  string
	Text string
}

// String is the note as langevin run prints it: the key and a colon padded
// to ten columns, then the text.
func (n Note) String() string {
	if n.Key == "" {
		return n.Text // a line of the account that continues another
	}
	k := n.Key + ":"
	if len(k) < 10 {
		k += strings.Repeat(" ", 10-len(k))
	} else {
		k += " "
	}
	return k + n.Text
}

// Result is what [Run] found.
type Result struct {
	Plan    *Plan    // the plan of a model other than a network
	NetPlan *NetPlan // the plan of a network (Network), then Plan is nil
	Trace   *langevin.Trace
	Table   diag.Table // the summary of the draws (diag.Summarize); empty when SummarySkipped
	// SummarySkipped says why an interrupted run has no summary (too many
	// parameters × draws to summarise within the seconds a signal allows),
	// "" when it has one.
	SummarySkipped string
	MAP            []float64 // the MAP, the baseline of the test-set scores
	// Test is the test-set table (nil without a test set); TestErr says
	// why the scores could not be computed.
	Test    *TestTable
	TestErr error
	Notes   []Note // the plan's rules, the length rule, the KSD check, SGLD's misfit check (MisfitNotes)
	// Weights are a network's chain weights in its posterior predictive
	// (nil for other models).
	Weights *ChainWeights

	// The account of a Problem's run, as langevin run prints it.
	Config      *Config       // the configuration as run (the auto sampler: the sampler it chose)
	MAPErr      error         // why the MAP baseline was not found (nil: found)
	Elapsed     time.Duration // the sampling's wall time
	Interrupted error         // the signal that stopped the run (nil: none)
	DrawsNote   string        // the chains left out or cut to a common length ("": none)
	Sigma2Note  string        // σ² put back in the response's units ("": not)
	Files       string        // the files written into the run directory ("": none)
	Account     string        // the account's lines: the plan's rules, where the draws went, the checks
}

// autoMaxKeep is the kept draws per chain above which the thinning doubles,
// unless the ESS target needs more (see MaxKeep).
const autoMaxKeep = 250

// MaxKeep returns the bound on kept draws per chain for an ESS target over
// K chains: a chain keeps between MaxKeep/2 and MaxKeep draws, and thinned
// draws give at most about one effective draw each, so the bound is at least
// 4·target/K (at least 2·target draws in all) — else a target above the
// kept draws could never be met and the run would go on to the most
// iterations.
func MaxKeep(target float64, chains int) int {
	return max(autoMaxKeep, int(math.Ceil(4*target/float64(chains))))
}

// Configure returns the plan's sampler for a run of at most iters
// iterations per chain, and its burn-in: NUTS warms up for Stan's 1000
// iterations (at most half the run), SGLD burns in for the plan's
// StepChoice.BurnIn (at most half the run). burnin ≥ 0 overrides the rule;
// step > 0 overrides NUTS's initial step or SGLD's constant step;
// noiseEvery is SGLD's NoiseEvery. For SGLD it also returns the step η.
func (p *Plan) Configure(iters, burnin int, step float64, noiseEvery int) (s langevin.Sampler, burn int, eta float64) {
	if p.Kind == "nuts" {
		burn = min(1000, iters/2)
		if burnin >= 0 {
			burn = burnin
		}
		n := p.Sampler.(sampler.NUTS)
		n.Adapt.Warmup = burn
		if step > 0 {
			n.Step = step
		}
		return n, burn, 0
	}
	burn = min(p.BurnIn, iters/2)
	if burnin >= 0 {
		burn = burnin
	}
	g := p.Sampler.(sampler.SGLD)
	if p.Arrow != nil && noiseEvery > 0 {
		// The noise statistic takes |B| per-observation gradients of O(d)
		// each, d/2 steps' work: every 5d steps it costs ≤ 10% of the run.
		noiseEvery = max(noiseEvery, 5*len(p.MAP))
	}
	eta = p.Step.Eta
	if step > 0 {
		eta = step
		g.Step = schedule.Constant(eta)
	}
	g.NoiseEvery = noiseEvery
	return g, burn, eta
}

// Init returns the plan's initial points, draws from the Laplace
// approximation N(MAP, H⁻¹), or nil when H is not positive definite.
func (p *Plan) Init() langevin.Initializer {
	if p.Start != nil {
		return p.Start
	}
	if p.Arrow != nil {
		return InitBlockArrow{Mean: p.MAP, H: p.Arrow}
	}
	if p.Cov == nil {
		return nil
	}
	return InitGaussian{Mean: p.MAP, Cov: p.Cov}
}

// CheckEvery is how often the run checks its ESS stop (and the rounds of
// MaxKeep's thinning): every 100 iterations, for SGLD at least every 10
// autocorrelation times of its step.
func (p *Plan) CheckEvery() int {
	if p.Kind == "sgld" {
		return max(100, int(10*p.Step.AutocorrSteps(p.Step.Eta)))
	}
	return 100
}

// Notes returns the plan's rules, one note per line of String.
func (p *Plan) Notes() []Note {
	var out []Note
	for _, line := range strings.Split(strings.TrimSpace(p.String()), "\n") {
		out = append(out, Note{"auto", line})
	}
	return out
}

// LengthNote says why the run stopped: why is what UntilESS recorded, or
// the rule's own reason when it did not stop the run.
func LengthNote(why string, target float64, maxTime time.Duration) Note {
	return Note{"auto", fmt.Sprintf("length: ran until %s ({target-ess} %.0f, {max-time} %v)", why, target, maxTime)}
}

// KSDNotes checks the draws of tr against the Laplace approximation of lap
// by the kernel Stein discrepancy (TraceKSD): a "ksd" note with both
// discrepancies, their ratio and its verdict by the rule of
// diag.KSDWorseFactor (pass at most 2, fail above), and a warning when the
// run's is clearly worse. None for networks, models of more than 200
// parameters or fewer than 10 draws.
func KSDNotes(ctx context.Context, lap *approx.RunLaplace, m langevin.Model, tr *langevin.Trace, seed uint64) []Note {
	notes, _ := ksdChecked(ctx, lap, m, tr, seed)
	return notes
}

// ksdChecked is KSDNotes with the check itself (nil when none was made).
func ksdChecked(ctx context.Context, lap *approx.RunLaplace, m langevin.Model, tr *langevin.Trace, seed uint64) ([]Note, *diag.KSDCheck) {
	if tr.NumDraws() < 10 {
		return nil, nil
	}
	if _, isMLP := m.(*model.MLP); isMLP || m.Dim() > 200 {
		return nil, nil
	}
	l, err := lap.Approx(ctx)
	if err != nil {
		return []Note{{"ksd", fmt.Sprintf("not computed (no Laplace reference: %v)", err)}}, nil
	}
	k, err := TraceKSD(lap.Model, tr, l.Mean, l.Cov, KSDOptions{Seed: seed})
	if err != nil {
		return []Note{{"ksd", fmt.Sprintf("not computed (%v)", err)}}, nil
	}
	verdict := fmt.Sprintf("pass (≤ %g: no further from the posterior than a Gaussian approximation's draws)", diag.KSDWorseFactor)
	if k.Worse {
		verdict = fmt.Sprintf("fail (> %g)", diag.KSDWorseFactor)
	}
	out := []Note{{"ksd", fmt.Sprintf("%.3g (IMQ kernel in Laplace-sd units, %d draws); %d Laplace draws: %.3g; ratio %.2f: %s", k.Run, k.N, k.N, k.Reference, k.Run/k.Reference, verdict)}}
	if k.Worse {
		out = append(out, Note{"warning", fmt.Sprintf("the kernel Stein discrepancy is %.1f× the Laplace reference's (> %g): the draws are further from the posterior than a Gaussian approximation's — the sampler is biased (a smaller {step}) or has not mixed", k.Run/k.Reference, diag.KSDWorseFactor)})
	}
	return out, &k
}

// Run does what langevin run does with no tuning flag, for a model and its
// test set: the MAP and the Laplace approximation (approx.RunLaplace, once),
// the plan (NewPlan, or NewNetPlan for a network; method nil lets the cost
// rule choose NUTS or SGLD), the burn-in, the growing thinning (MaxKeep)
// and the ESS stop, then the summary table, the test-set scores of the
// posterior predictive and of the MAP, and the kernel Stein discrepancy
// check. Every rule that chose a setting is a note of the result, with its
// reason. A method other than nil (Auto{}) draws with that entry of Methods
// instead, with its settings (fit.Exact{Kind: "mala", TargetAccept: 0.9}).
//
// Run is langevin run's one pipeline: the command calls it with the job it
// read (Job.Problem), so the same job and settings give the same draws as
// the command, bit for bit.
// Cancelling ctx stops the sampling; the result holds the draws so far,
// with ctx's error.
func Run(ctx context.Context, job Job, s Settings, method Method) (*Result, error) {
	if job.Problem != nil {
		return runProblem(ctx, job.Problem, s)
	}
	m := job.Model
	if m == nil {
		return nil, fmt.Errorf("fit: the job has no model")
	}
	c, err := s.config(m, method)
	if err != nil {
		return nil, err
	}
	j := &Problem{C: c, M: m, Test: job.Test, Train: &data.Dataset{}}
	res, runErr := runProblem(ctx, j, s)
	if res == nil {
		return nil, runErr
	}
	res.Notes = accountNotes(res.Account)
	net, isNet := m.(Network)
	if res.Weights != nil { // a network's chains (RunChainWeights)
		res.Notes = append(res.Notes, Note{"auto", res.Weights.String()})
	}
	if job.Test != nil && job.Test.Len() > 0 && runErr == nil {
		if isNet && res.Weights != nil && res.Weights.Method == "stacking" {
			res.Test, res.TestErr = scoreDraws(net, MixtureDraws(res.Trace, net.Dim(), res.Weights.W), res.MAP, job.Test)
		} else {
			res.Test, res.TestErr = ScoreTest(m, res.Trace, res.MAP, job.Test)
		}
	}
	return res, runErr
}

// config is the configuration of langevin run that s and method amount to
// on the model m: the command's defaults (DefaultConfig), with the
// settings s gives, resolved and checked.
func (s Settings) config(m langevin.Model, method Method) (*Config, error) {
	c := DefaultConfig()
	if _, ok := m.(Network); ok {
		c.Model = "mlp"
	}
	set := func(name string, given bool) {
		if given {
			c.Set[name] = true
		}
	}
	if s.Chains != 0 {
		c.Chains = s.Chains
		set("chains", true)
	}
	if s.Seed != 0 {
		c.Seed = s.Seed
		set("seed", true)
	}
	switch {
	case s.TargetESS > 0:
		c.TargetESS = s.TargetESS
		set("target-ess", true)
	case s.TargetESS < 0:
		c.TargetESS = 0 // no ESS rule
		set("target-ess", true)
	}
	c.MaxTime = s.MaxTime
	set("max-time", s.MaxTime != 0)
	if s.Iters > 0 {
		c.Iters = s.Iters
		set("iters", true)
	}
	if s.BurnIn > 0 {
		c.Burnin = s.BurnIn
		set("burnin", true)
	}
	if s.Batch > 0 {
		c.Batch = s.Batch
		set("batch", true)
	}
	if s.ChainWeights != "" {
		c.Mlp.ChainWeights = s.ChainWeights
		set("chain-weights", true)
	}
	if method != nil {
		if err := method.Configure(c); err != nil {
			return nil, err
		}
	}
	if err := c.Resolve(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// accountNotes are the lines of a run's account as notes: the key before
// the first colon of a line, the text after it.
func accountNotes(account string) []Note {
	var out []Note
	for _, line := range strings.Split(strings.TrimRight(account, "\n"), "\n") {
		k, text, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			out = append(out, Note{Text: line})
			continue
		}
		out = append(out, Note{k, strings.TrimLeft(text, " ")})
	}
	return out
}

// NewLaplace returns the run's one MAP and Laplace approximation of m: of
// the model without injected gradient noise (model.NoisyGradient).
func NewLaplace(m langevin.Model) *approx.RunLaplace {
	base := m
	if nm, ok := m.(model.NoisyGradient); ok {
		base = nm.Model
	}
	lap := &approx.RunLaplace{Model: base}
	switch {
	case CostPlanned(base):
		lap.FindMAP = costMAP // BlockMAP where it applies
	case BlockMAPApplies(base):
		lap.FindMAP = BlockMAP
	}
	return lap
}

// CommonLength returns the trace's draws per parameter, cut to the shortest
// chain when a chain stopped early (the diagnostics need equal lengths), and
// without the chains that hold no draw (a run stopped before they started),
// and a note saying what was left out.
func CommonLength(tr *langevin.Trace) ([][][]float64, string) {
	var chains []int
	n, longest := math.MaxInt, 0
	for c, d := range tr.Draws {
		if len(d) == 0 {
			continue
		}
		chains = append(chains, c)
		n = min(n, len(d))
		longest = max(longest, len(d))
	}
	params := make([][][]float64, len(tr.Names))
	for j := range params {
		params[j] = make([][]float64, len(chains))
		for i, c := range chains {
			col := make([]float64, n)
			for t := range col {
				col[t] = tr.Draws[c][t][j]
			}
			params[j][i] = col
		}
	}
	var notes []string
	if empty := tr.NumChains() - len(chains); empty > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d chains hold no draw and are left out", empty, tr.NumChains()))
	}
	if n < longest {
		notes = append(notes, fmt.Sprintf("a chain stopped early: the table uses the first %d draws of each chain", n))
	}
	if len(notes) == 0 {
		return params, ""
	}
	return params, "(" + strings.Join(notes, "; ") + ")"
}
