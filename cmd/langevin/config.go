package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// maxChains bounds --chains: each chain holds its own buffers and file.
const maxChains = 1024

// runConfig is the configuration of langevin run: parsed once from the
// command line by parseRun, with every default resolved, and only read
// afterwards. Scripts call the flags: extend them, do not rename.
type runConfig struct {
	// data
	data, test, target, format string
	columns                    columnFlags // --id, --drop, --categorical, --missing
	testFrac                   float64
	split                      int // --data a UCI benchmark folder: its split
	standardize                bool
	n, k                       int     // generated data: points, spiral arms
	noise                      float64 // generated data: noise
	// model
	formula    formulaConfig // --formula, --family, --priors
	model      string
	intercept  bool
	priorScale float64
	mlp        mlpConfig
	gradNoise  float64 // toy targets
	rho        float64 // gauss2
	offset     string  // poisson, negbin: offset column
	exposure   string  // poisson, negbin: exposure column (offset = log exposure)
	nu         float64 // robust: fixed degrees of freedom (0: estimated)
	// run
	sampler                     string
	def                         *samplerDef
	chains, iters, burnin, thin int
	chainID                     int // run only this chain (1-based) of the chains; 0: all
	seed                        uint64
	init, precond, out          string
	quiet, report, overwrite    bool
	targetESS                   float64       // --sampler auto: stop at this min bulk-ESS
	maxTime                     time.Duration // --sampler auto: time budget of the sampling (0: none)
	resume                      string        // --resume DIR (handled before the flags are parsed: resumeArgs)
	checkpoint                  time.Duration // --checkpoint: time between checkpoints (0: none)
	planned                     bool          // --sampler sgld untuned: auto's plan with SGLD forced (plannedSGLD)
	precondWhy                  string        // why --precond defaulted to none (multimodal target or cyclical sampler); printed with the result
	// step size
	step                float64
	stepSet             bool
	schedule            string
	stepB, decay        float64
	stepFloor           float64 // --step-floor: schedule.Floored on the polynomial schedule; 0: none
	cycles              int
	explore             float64
	temperature, tStart float64
	// stochastic gradients
	batch           int
	replace, cv     bool
	clip, clipValue float64
	noiseEvery      int

	set  map[string]bool // flags given on the command line
	opts map[string]any  // the sampler groups' own flags (flagGroup)
}

// mlpConfig are the flags of --model mlp.
type mlpConfig struct {
	hidden, activation, likelihood string
	classes                        int
	noiseVar                       float64
	learnNoise                     bool
	mapIters, mapBatch             int
	mapLR                          float64
}

// The groups of the common flags, in the order of run -h.
var commonGroups = []struct{ title, flags string }{
	{"data", "data split test test-frac target id drop categorical missing format standardize n noise k"},
	{"model", "formula family priors model intercept prior-scale offset exposure nu hidden activation likelihood classes noise-var learn-noise map-iters map-batch map-lr grad-noise rho"},
	{"run", "sampler target-ess max-time chains chain-id iters burnin thin seed init precond out overwrite resume checkpoint report quiet"},
	{"step size", "step schedule step-b decay step-floor cycles explore temperature temperature-start"},
	{"stochastic gradients", "batch replace cv clip clip-value noise-every"},
}

func newRunFlagSet(c *runConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&c.data, "data", "australian", "training data: a CSV, LIBSVM or Parquet `FILE` (.gz read transparently), a data store FILE.lvs (langevin convert; --model logistic streams it from disk), an embedded data set's NAME (see langevin datasets) or a generated one: moons|spirals|gap1d|fashion-mnist")
	fs.StringVar(&c.test, "test", "", "test data `FILE`; without it a seeded split of --data is held out (--test-frac; of a store: a hashed split by row)")
	fs.Float64Var(&c.testFrac, "test-frac", 0.2, "fraction of --data held out as test set when --test is not given (0: fit on all the data)")
	fs.StringVar(&c.target, "target", "", "target `COL`umn: a name, or a 1-based column number (-1 = last); default the last column")
	c.columns.register(fs)
	fs.StringVar(&c.format, "format", "auto", "data format: auto|csv|libsvm|parquet|store (a data.Store file)|uci (a folder of the UCI regression benchmark: data.txt, index_*.txt); auto tells them by content")
	fs.IntVar(&c.split, "split", 0, "--data a UCI benchmark folder: split `K` (0-based): its index_train_K rows are the data, its index_test_K rows the test set; an MLP gets the folder's n_hidden units unless --hidden is given")
	fs.BoolVar(&c.standardize, "standardize", true, "standardise features with the training set's mean and sd (and an MLP's Gaussian response: the test scores are reported in its units)")
	fs.IntVar(&c.n, "n", 1000, "generated data (--data moons|spirals|gap1d): number of points `N`; fashion-mnist: use the first N training images (default all)")
	fs.Float64Var(&c.noise, "noise", 0.1, "generated data: noise sd (moons: of the points, spirals: of the angle, gap1d: of y)")
	fs.IntVar(&c.k, "k", 3, "--data spirals: number of arms (classes)")

	registerFormulaFlags(fs, &c.formula)
	fs.StringVar(&c.model, "model", "logistic", "model: linear|logistic|mlp|softmax (integer class labels 0…K−1; --prior-scale σ₀ is precision λ = 1/σ₀²)|poisson|negbin (counts, log link; --offset/--exposure)|probit (0/1 labels)|robust (Student-t regression), or a toy target that needs no --data: gauss2|mixture25")
	fs.BoolVar(&c.intercept, "intercept", true, "add an intercept")
	fs.Float64Var(&c.priorScale, "prior-scale", 0, "prior scale `S`: σ₀ of the N(0, σ₀²I) prior (logistic, default 1), or √v of the N(μ, σ²vI) prior (linear, default 10)")
	fs.StringVar(&c.offset, "offset", "", "poisson, negbin: `COL`umn (name or 1-based number) of offsets oᵢ added to the linear predictor, taken out of the features")
	fs.StringVar(&c.exposure, "exposure", "", "poisson, negbin: `COL`umn of exposures uᵢ > 0 (offset log uᵢ: E[yᵢ] = uᵢ·exp(α + xᵢᵀβ)), taken out of the features")
	fs.Float64Var(&c.nu, "nu", 0, "robust: fix the Student-t degrees of freedom `ν` (default: estimated, ν ~ Gamma(2, 0.1) on ν > 1)")
	m := &c.mlp
	fs.StringVar(&m.hidden, "hidden", "50", "MLP hidden layer widths, comma-separated (\"\" or 0: no hidden layer); default one layer of 50 units, the protocol of the UCI regression benchmark")
	fs.StringVar(&m.activation, "activation", "relu", "MLP activation: relu|tanh|sigmoid|identity")
	fs.StringVar(&m.likelihood, "likelihood", "", "MLP likelihood: bernoulli|categorical|gaussian (default: bernoulli for 0/1 labels, categorical for more classes, gaussian otherwise)")
	fs.IntVar(&m.classes, "classes", 0, "categorical likelihood: number of classes `K` (0: largest label + 1)")
	fs.Float64Var(&m.noiseVar, "noise-var", 1, "Gaussian likelihood: noise variance σ², fixed with --learn-noise=false (with the learned noise, the default, --sampler auto starts σ² at the response's variance)")
	fs.BoolVar(&m.learnNoise, "learn-noise", true, "Gaussian likelihood: sample log σ² too (prior N(0, 2²) on log σ² of the standardised response; --learn-noise=false fixes σ² at --noise-var)")
	fs.IntVar(&m.mapIters, "map-iters", 20000, "MLP MAP (--init map, the ensemble's members, the MAP of swag and laplace): Adam iterations (unset: the network plan's rule, 300 epochs, 2,000 to 20,000)")
	fs.IntVar(&m.mapBatch, "map-batch", 32, "MLP --init map: Adam minibatch size")
	fs.Float64Var(&m.mapLR, "map-lr", 1e-3, "MLP MAP: a constant Adam learning rate (unset: the network plan's, 10⁻² decaying to 10⁻³)")
	fs.Float64Var(&c.gradNoise, "grad-noise", 0, "toy targets: sd `S` of the N(0, S²I) noise injected into the gradient")
	fs.Float64Var(&c.rho, "rho", 0.9, "gauss2: correlation `ρ` of the two coordinates")

	fs.StringVar(&c.sampler, "sampler", "auto", "algorithm `NAME`: "+strings.Join(samplerNames(), "|")+" (see the list above)")
	fs.Float64Var(&c.targetESS, "target-ess", 400, "--sampler auto: run until the smallest bulk-ESS over the parameters and chains reaches `E` (or --max-time, or --iters); 0: no ESS rule, run to --iters (what each process of --chain-id does)")
	fs.DurationVar(&c.maxTime, "max-time", 0, "--sampler auto: stop after `T` from the start of the job (for example 10m) even if --target-ess is not reached; a budget that ends before the sampling begins (MAP, plan) is an error (0: no limit; not reproducible)")
	fs.IntVar(&c.chains, "chains", 4, fmt.Sprintf("number of chains `K` (at most %d)", maxChains))
	fs.IntVar(&c.chainID, "chain-id", 0, "run only chain `C` (1 ≤ C ≤ --chains) of the analysis, for one process (a Slurm array task) per chain: its --out DIR/chain-C.csv is the file that the run of all --chains writes, and langevin summary|report|predict combine the directories (0: all chains)")
	fs.IntVar(&c.iters, "iters", 500000, "iterations `N` per chain, burn-in included")
	fs.IntVar(&c.burnin, "burnin", 50000, "burn-in iterations `N` discarded per chain")
	fs.IntVar(&c.thin, "thin", 450, "keep every `N`-th draw after burn-in")
	fs.Uint64Var(&c.seed, "seed", 1, "random `seed` of the run (split, initial points, chains)")
	fs.StringVar(&c.init, "init", "laplace", "initial points: zero|map|prior|laplace (the MAP plus a draw from the diagonal Laplace approximation, so chains start dispersed on the posterior's scale)|random (--model mlp: each chain its own random fan-in start)")
	fs.StringVar(&c.precond, "precond", "laplace", "constant diagonal preconditioner M of sgld, csgld, sghmc, csghmc, rwm, mala, nuts: laplace (diag of the inverse Hessian at the MAP) or none (the default for csgld, csghmc and --model mixture25, whose several modes one Laplace fit would hide; the output says so)")
	fs.StringVar(&c.out, "out", "", "write DIR/chain-1.csv … DIR/chain-K.csv (CmdStan format), DIR/summary.csv and DIR/model.json")
	fs.BoolVar(&c.overwrite, "overwrite", false, "let --out DIR hold another run's files: they are removed first (without it such a DIR is refused)")
	fs.StringVar(&c.resume, "resume", "", "continue the run of `DIR` (its --out) that a signal, a kill or a time limit stopped, from its last checkpoint, with the settings it started with (read from DIR/resume.json; other flags may only repeat them, except --quiet, --report, --max-time, --checkpoint): the draws equal those of a run never stopped, bit for bit")
	fs.DurationVar(&c.checkpoint, "checkpoint", 30*time.Second, "with --out DIR: save the chains' state to DIR/checkpoint.bin at most every `T` (at the end of a round of iterations), for --resume; 0: never")
	fs.BoolVar(&c.report, "report", false, "also write DIR/report.html (settings, summary, warnings, plots) into --out DIR (default "+defaultReportDir+")")
	fs.BoolVar(&c.quiet, "quiet", false, "print no progress")

	fs.Float64Var(&c.step, "step", 0, "step size `A`: η in θ ← θ + η ĝ + √(2ητ) ξ (Welling & Teh's ε = 2η); the a of a(b+t)^-γ, or η₀ of the cyclic schedule (default: each sampler's rule, printed with the result)")
	fs.StringVar(&c.schedule, "schedule", "const", "step-size schedule: const|poly (a(b+t)^-γ)|cyclic")
	fs.Float64Var(&c.stepB, "step-b", 1, "offset `B` of the polynomial schedule a(b+t)^-γ")
	fs.Float64Var(&c.decay, "decay", 0.55, "decay `G` (γ) of the polynomial schedule; Robbins–Monro needs 0.5 < γ ≤ 1")
	fs.Float64Var(&c.stepFloor, "step-floor", 0, "hold the polynomial schedule's step at `F` once it falls below (the lecture notes' floored schedule); 0: no floor")
	fs.IntVar(&c.cycles, "cycles", 1, "number of cycles `M` of the cyclic schedule")
	fs.Float64Var(&c.explore, "explore", 0, "fraction `F` of each cycle of the cyclic schedule spent exploring (no injected noise, draws not kept); csgld/csghmc default 0.5")
	fs.Float64Var(&c.temperature, "temperature", 1, "temperature `T`: the chain targets p(θ|D)^(1/T)")
	fs.Float64Var(&c.tStart, "temperature-start", 0, "anneal the temperature geometrically from `T0` to --temperature over the burn-in (0: off)")

	fs.IntVar(&c.batch, "batch", 10, "minibatch size `B` (0: full batch)")
	fs.BoolVar(&c.replace, "replace", false, "draw minibatches with replacement (default: shuffled epochs)")
	fs.BoolVar(&c.cv, "cv", false, "control-variate gradient estimator around the MAP (Baker et al. 2019), for every stochastic-gradient sampler")
	fs.Float64Var(&c.clip, "clip", 0, "clip the gradient's norm at `C`: v·min(1, C/‖v‖) (0: off)")
	fs.Float64Var(&c.clipValue, "clip-value", 0, "clip each gradient component to [-C, C] (0: off)")
	fs.IntVar(&c.noiseEvery, "noise-every", 10, "estimate the stochastic-gradient noise every `N` steps (0: never)")

	c.opts = map[string]any{}
	for _, g := range flagGroups {
		c.opts[g.name] = g.define(fs)
	}
	return fs
}

// runUsage prints run -h: the samplers by family, then the flags by group.
func runUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: langevin run [flags]\n\nSamplers (--sampler NAME):\n%s", samplerHelp())
	show := func(title string, names []string) {
		sub := flag.NewFlagSet(title, flag.ContinueOnError)
		sub.SetOutput(w)
		for _, n := range names {
			if f := fs.Lookup(n); f != nil {
				sub.Var(f.Value, f.Name, f.Usage)
				sub.Lookup(n).DefValue = f.DefValue
			}
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		sub.PrintDefaults()
	}
	for _, g := range commonGroups {
		show(strings.ToUpper(g.title[:1])+g.title[1:]+" flags", strings.Fields(g.flags))
	}
	for _, g := range flagGroups {
		var names []string
		sub := flag.NewFlagSet(g.name, flag.ContinueOnError)
		g.define(sub)
		sub.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		show(fmt.Sprintf("%s (%s)", g.title, strings.Join(readers(g.name), ", ")), names)
	}
}

// parseRun parses the flags of langevin run into a configuration, resolves
// the defaults that depend on the sampler and the model, and validates it.
func parseRun(args []string, stdout io.Writer) (*runConfig, error) {
	c := &runConfig{}
	fs := newRunFlagSet(c)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			runUsage(fs, stdout)
			return nil, errHelp
		}
		return nil, flagError(err)
	}
	if fs.NArg() > 0 {
		return nil, inputErrorf("unexpected argument %q: run takes only flags (see langevin run -h)", fs.Arg(0))
	}
	c.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { c.set[fl.Name] = true })
	c.stepSet = c.set["step"]
	if err := oneOf("model", c.model, model.Kinds...); err != nil {
		return nil, err
	}
	if err := oneOf("sampler", c.sampler, samplerNames()...); err != nil {
		return nil, err
	}
	c.def = samplerTable[c.sampler]
	// Flags of groups the sampler does not read.
	for _, g := range flagGroups {
		if c.def.reads(g.name) {
			continue
		}
		sub := flag.NewFlagSet(g.name, flag.ContinueOnError)
		g.define(sub)
		var bad string
		sub.VisitAll(func(f *flag.Flag) {
			if bad == "" && c.set[f.Name] {
				bad = f.Name
			}
		})
		if bad != "" {
			return nil, inputErrorf("--%s: only for --sampler %s", bad, strings.Join(readers(g.name), "|"))
		}
	}
	if err := c.checkApplies(); err != nil {
		return nil, err
	}
	if err := c.columns.check(); err != nil {
		return nil, err
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.def.check != nil {
		if err := c.def.check(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkApplies refuses a common flag that the chosen sampler, model or data
// would ignore: a flag given is a flag used, or an error naming it.
func (c *runConfig) checkApplies() error {
	k := c.def.kind
	generated := map[string]bool{"moons": true, "spirals": true, "gap1d": true, "fashion-mnist": true}
	toy := c.toy()
	for _, r := range []struct {
		flags   string
		applies bool
		why     string
	}{
		{"batch replace cv clip clip-value noise-every", !k.exact, "--sampler " + c.sampler + " uses all the data at every step (exact MCMC)"},
		{"schedule step-b decay cycles explore temperature temperature-start", !k.exact, "--sampler " + c.sampler + " tunes its own step and samples the posterior itself (τ = 1)"},
		{"batch replace", k.minibatch || k.exact || toy, "--sampler " + c.sampler + " uses all the data at every step"},
		{"temperature temperature-start", !k.optimiser, "--sampler " + c.sampler + " is an optimiser: it injects no noise to temper"},
		{"clip clip-value", c.sampler != "auto", "--sampler auto picks its sampler and step itself (it may pick NUTS, which has no gradient to clip); give --sampler sgld (or another SG-MCMC sampler) to clip"},
		{"temperature temperature-start", c.def.family == "SG-MCMC", "only the SG-MCMC samplers (" + strings.Join(familyMembers("SG-MCMC"), ", ") + ") take a temperature; --sampler " + c.sampler + " would sample at τ = 1"},
		{"hidden activation likelihood classes noise-var learn-noise map-iters map-batch map-lr", c.model == "mlp", "only for --model mlp"},
		{"data test test-frac target id drop categorical missing format standardize n noise k prior-scale intercept", !toy, "the toy target --model " + c.model + " has no data and a fixed density"},
		{"rho", c.model == "gauss2", "only for --model gauss2"},
		{"n", generated[c.data] || toy, "only for generated data (--data moons|spirals|gap1d|fashion-mnist)"},
		{"noise", c.data == "moons" || c.data == "spirals" || c.data == "gap1d" || toy, "only for generated data (--data moons|spirals|gap1d)"},
		{"k", c.data == "spirals" || toy, "only for --data spirals"},
		{"test-frac", c.test == "", "--test gives the test set"},
		{"split", !toy && c.isUCI(), "only for --data a UCI benchmark folder"},
		{"test test-frac", !c.isUCI(), "the UCI folder's split (--split) gives the test set"},
	} {
		if r.applies {
			continue
		}
		for _, f := range strings.Fields(r.flags) {
			if c.set[f] {
				return inputErrorf("--%s: not used here: %s", f, r.why)
			}
		}
	}
	return nil
}

func (d *samplerDef) reads(group string) bool {
	for _, g := range d.flags {
		if g == group {
			return true
		}
	}
	return false
}

// toy reports whether the model is a toy target that needs no data.
func (c *runConfig) toy() bool { return !(model.Spec{Kind: c.model}).NeedsData() }

// plannedTuning are the flags that tune SGLD by hand: any of them keeps
// --sampler sgld on its own rules (the noise-fraction step under the
// stability cap, the diagonal preconditioner, --iters iterations).
var plannedTuning = []string{"step", "iters", "precond", "schedule", "step-b", "decay", "step-floor",
	"temperature", "temperature-start", "replace", "clip", "clip-value", "chain-id"}

// plannedSGLD reports whether --sampler sgld runs on --sampler auto's plan
// with SGLD forced (fit.PlanOptions.Kind = "sgld"): the step by
// sampler.ChooseStep under the dense Laplace preconditioner, control
// variates where they pay, the plan's burn-in, and a run until
// --target-ess — the same rules as auto's SGLD branch, for the same reason
// (the old fixed 500,000 iterations at the capped step do not converge on
// correlated posteriors). Only for data models other than networks, and
// only when no flag of plannedTuning is given.
func (c *runConfig) plannedSGLD() bool {
	if c.sampler != "sgld" || c.toy() || c.model == "mlp" {
		return false
	}
	for _, f := range plannedTuning {
		if c.set[f] {
			return false
		}
	}
	return true
}

// resolve sets the defaults that depend on the model and the sampler.
func (c *runConfig) resolve() error {
	if c.toy() && !c.set["batch"] {
		c.batch = 0 // one observation: full batch
	}
	if c.sampler == "auto" && !c.set["sampler"] && (c.set["step"] || c.set["schedule"]) {
		// A step or schedule given without a sampler tunes SGLD, the
		// default before --sampler auto.
		c.sampler, c.def = "sgld", samplerTable["sgld"]
	}
	if c.model == "mlp" {
		// --sampler auto (the default) runs the network plan
		// (sampler.NewNetPlan): its own starts, modes and preconditioner.
		switch {
		case c.sampler != "auto" && !c.set["init"]:
			c.init = "map"
		case c.sampler == "auto" && c.set["init"]:
			return inputErrorf("--init %s: --sampler auto on a network starts each chain at its own mode (the network plan's multi-start MAP)", c.init)
		case c.sampler == "auto":
			c.init = "prior" // not used: the plan starts the chains at its modes
		}
		if c.sampler == "auto" && (c.set["map-batch"] || c.set["map-lr"]) {
			return inputErrorf("--map-batch/--map-lr: --sampler auto on a network runs Adam at --batch with its own learning rate (10⁻² decaying to 10⁻³); --map-iters sets its iterations")
		}
		if !c.set["precond"] {
			c.precond = "none"
		}
	}
	if why := multimodalWhy(c.model, c.sampler); why != "" && !c.set["precond"] && c.precond == "laplace" {
		c.precond, c.precondWhy = "none", why
	}
	c.planned = c.plannedSGLD()
	if c.sampler == "csgld" || c.sampler == "csghmc" {
		if c.set["schedule"] && c.schedule != "cyclic" {
			return inputErrorf("--schedule %s: --sampler %s runs on the cyclic schedule", c.schedule, c.sampler)
		}
		c.schedule = "cyclic"
		if !c.set["explore"] {
			c.explore = 0.5
		}
		if c.sampler == "csgld" && c.model == "mixture25" && !c.set["cycles"] {
			// One cycle explores once: Zhang et al.'s 30 (printed with the step).
			c.cycles = min(sampler.CyclesExplore, c.iters)
		}
	}
	if c.sampler != "auto" && !c.planned {
		for _, f := range []string{"target-ess", "max-time"} {
			if c.set[f] {
				return inputErrorf("--%s: only for --sampler auto (the default) and an untuned --sampler sgld", f)
			}
		}
	}
	if c.def.kind.exact {
		return c.resolveExact()
	}
	if c.def.resolve != nil {
		return c.def.resolve(c)
	}
	if c.sampler == "swag" && c.model == "mlp" {
		swagNetLength(c)
	}
	if c.sampler == "sgld" && c.set["chain-id"] && !c.set["iters"] && c.chains > 1 && !c.toy() && c.model != "mlp" {
		// Without --chain-id, an untuned --sampler sgld runs auto's plan,
		// whose length needs all chains.
		return inputErrorf("--chain-id with --sampler sgld: give --iters (the run of all chains would otherwise follow auto's plan, whose --target-ess rule needs all chains)")
	}
	if c.sampler == "auto" || c.planned {
		// --iters is a maximum; burn-in and thinning are chosen by rule.
		if c.set["chain-id"] {
			// One chain of the analysis cannot see the others' ESS: it runs
			// to --iters, as every chain of a run with --target-ess 0 does.
			if !c.set["iters"] {
				return inputErrorf("--chain-id with --sampler auto: give --iters (the --target-ess rule needs all chains, so a chain run alone runs to --iters; its chains are those of --chains K --iters N --target-ess 0)")
			}
			if c.set["target-ess"] && c.targetESS != 0 {
				return inputErrorf("--target-ess %v with --chain-id: a chain run alone runs to --iters (the rule needs all chains); leave it out, or 0", c.targetESS)
			}
			c.targetESS = 0
		}
		if !c.set["iters"] {
			c.iters = 10_000_000
		}
		if !c.set["burnin"] {
			c.burnin = 0
		}
		if !c.set["thin"] {
			c.thin = 1
		}
		if !(c.targetESS >= 0) || math.IsInf(c.targetESS, 1) {
			return inputErrorf("--target-ess %v: expected a number ≥ 0 (0: no ESS rule, run to --iters)", c.targetESS)
		}
		if c.maxTime < 0 {
			return inputErrorf("--max-time %v: expected a duration ≥ 0", c.maxTime)
		}
		return nil
	}
	if c.set["iters"] && !c.set["burnin"] {
		// Proportional to the defaults (50,000 of 500,000, thin 450): an
		// explicit --iters alone never makes the burn-in too long.
		c.burnin = c.iters / 10
		if !c.set["thin"] {
			c.thin = max(1, int(float64(c.iters)*450/500000+0.5))
		}
	}
	return nil
}

func oneOf(flagName, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return inputErrorf("--%s %q: expected one of %s", flagName, v, strings.Join(allowed, ", "))
}

func (c *runConfig) validate() error {
	if c.checkpoint < 0 {
		return inputErrorf("--checkpoint %v: expected a duration ≥ 0 (0: no checkpoints)", c.checkpoint)
	}
	if c.set["checkpoint"] && c.out == "" && !c.report {
		return inputErrorf("--checkpoint %v: checkpoints go into the run's directory: give --out DIR", c.checkpoint)
	}
	if !c.set["thin"] && c.iters > c.burnin && c.thin > c.iters-c.burnin {
		// The default thin suits the default run length; a short run
		// keeps about 1000 draws per chain instead of one.
		c.thin = max(1, (c.iters-c.burnin)/1000)
	}
	for _, o := range []struct {
		name, v string
		allowed []string
	}{
		{"schedule", c.schedule, []string{"const", "poly", "cyclic"}},
		{"init", c.init, []string{"zero", "map", "prior", "laplace", "random"}},
		{"precond", c.precond, []string{"laplace", "none"}},
		{"format", c.format, []string{"auto", "csv", "libsvm", "parquet", "store", "uci"}},
	} {
		if err := oneOf(o.name, o.v, o.allowed...); err != nil {
			return err
		}
	}
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return inputErrorf("--%s %v: expected a positive number", name, v)
		}
		return nil
	}
	for _, p := range []struct {
		name string
		v    float64
		need bool
	}{{"step", c.step, c.stepSet}, {"prior-scale", c.priorScale, c.set["prior-scale"]}, {"temperature", c.temperature, true}} {
		if p.need {
			if err := pos(p.name, p.v); err != nil {
				return err
			}
		}
	}
	glmOffset := c.model == "poisson" || c.model == "negbin"
	switch {
	case c.offset != "" && c.exposure != "":
		return inputErrorf("--offset %s and --exposure %s: give one (the offset is the log of the exposure)", c.offset, c.exposure)
	case (c.set["offset"] || c.set["exposure"]) && !glmOffset:
		return inputErrorf("--offset/--exposure: only for --model poisson|negbin, not %s", c.model)
	case c.set["nu"] && c.model != "robust":
		return inputErrorf("--nu: only for --model robust, not %s", c.model)
	case c.set["nu"] && (!(c.nu > 0) || math.IsInf(c.nu, 0)):
		return inputErrorf("--nu %v: expected a positive number", c.nu)
	case c.chains < 1 || c.chains > maxChains:
		return inputErrorf("--chains %d: expected 1 to %d", c.chains, maxChains)
	case c.chainID < 0 || c.chainID > c.chains:
		return inputErrorf("--chain-id %d: expected a chain number from 1 to --chains (%d), or 0 for all", c.chainID, c.chains)
	case c.iters < 1:
		return inputErrorf("--iters %d: expected at least 1", c.iters)
	case c.burnin < 0 || c.burnin >= c.iters:
		return inputErrorf("--burnin %d: expected 0 ≤ burn-in < --iters (%d)", c.burnin, c.iters)
	case c.thin < 1:
		return inputErrorf("--thin %d: expected at least 1", c.thin)
	case c.thin > c.iters-c.burnin:
		return inputErrorf("--thin %d: more than the %d sampling iterations (--iters %d − --burnin %d): each chain would keep one draw, too few for any diagnostic", c.thin, c.iters-c.burnin, c.iters, c.burnin)
	case c.batch < 0:
		return inputErrorf("--batch %d: expected 0 (full batch) or a positive size", c.batch)
	case c.cycles < 1 || c.cycles > c.iters:
		return inputErrorf("--cycles %d: expected 1 ≤ cycles ≤ --iters (%d)", c.cycles, c.iters)
	case !(c.decay >= 0) || math.IsInf(c.decay, 0):
		return inputErrorf("--decay %v: expected γ ≥ 0", c.decay)
	case !(c.stepFloor >= 0) || math.IsInf(c.stepFloor, 0):
		return inputErrorf("--step-floor %v: expected a step ≥ 0 (0: no floor)", c.stepFloor)
	case c.stepFloor > 0 && c.schedule != "poly":
		return inputErrorf("--step-floor %v: floors the polynomial schedule; expected --schedule poly, got %s", c.stepFloor, c.schedule)
	case !(c.stepB > -1) || math.IsInf(c.stepB, 0):
		return inputErrorf("--step-b %v: expected b > −1", c.stepB)
	case !(c.clip >= 0) || math.IsInf(c.clip, 0):
		return inputErrorf("--clip %v: expected c ≥ 0 (0: off)", c.clip)
	case !(c.clipValue >= 0) || math.IsInf(c.clipValue, 0):
		return inputErrorf("--clip-value %v: expected c ≥ 0 (0: off)", c.clipValue)
	case !(c.testFrac >= 0 && c.testFrac < 1):
		return inputErrorf("--test-frac %v: expected a fraction in [0, 1) (0: fit on all the data, no test set)", c.testFrac)
	case c.noiseEvery < 0:
		return inputErrorf("--noise-every %d: expected ≥ 0", c.noiseEvery)
	case c.def.kind.needsBurnin && c.burnin < 1:
		return inputErrorf("--burnin %d: --sampler %s fits its approximation during burn-in: expected at least 1", c.burnin, c.sampler)
	case !(c.explore >= 0 && c.explore < 1):
		return inputErrorf("--explore %v: expected a fraction 0 ≤ F < 1", c.explore)
	case !(c.tStart >= 0) || math.IsInf(c.tStart, 0):
		return inputErrorf("--temperature-start %v: expected T0 > 0 (0: off)", c.tStart)
	case c.tStart > 0 && c.burnin == 0:
		return inputErrorf("--temperature-start %v: needs a burn-in to anneal over (--burnin > 0)", c.tStart)
	case !(c.gradNoise >= 0) || math.IsInf(c.gradNoise, 0):
		return inputErrorf("--grad-noise %v: expected an sd ≥ 0", c.gradNoise)
	case !(math.Abs(c.rho) < 1):
		return inputErrorf("--rho %v: expected −1 < ρ < 1", c.rho)
	case c.cv && (!c.def.kind.minibatch || c.batch == 0):
		return inputErrorf("--cv: needs a minibatch sampler (--batch > 0, not gd)")
	case c.explore > 0 && c.schedule != "cyclic":
		return inputErrorf("--explore %v: only the cyclic schedule has an exploration phase (--schedule cyclic or --sampler csgld|csghmc)", c.explore)
	case c.gradNoise > 0 && !c.toy():
		return inputErrorf("--grad-noise: only for the toy targets (--model gauss2|mixture25)")
	case c.init == "random" && c.model != "mlp":
		return inputErrorf("--init random: only for --model mlp (a network's random fan-in start; other models: zero|map|prior|laplace)")
	case c.toy() && c.set["batch"] && c.batch > 1:
		return inputErrorf("--batch %d: the toy target %s has a single observation (use 0 or 1)", c.batch, c.model)
	}
	return c.validateMLP()
}

// validateMLP checks the flags of --model mlp.
func (c *runConfig) validateMLP() error {
	if c.model != "mlp" {
		return nil
	}
	m := &c.mlp
	if _, err := parseHidden(m.hidden); err != nil {
		return err
	}
	if _, err := model.ParseActivation(m.activation); err != nil {
		return inputErrorf("--activation: %v", err)
	}
	if m.likelihood != "" {
		if _, err := model.ParseLikelihood(m.likelihood); err != nil {
			return inputErrorf("--likelihood: %v", err)
		}
	}
	switch {
	case m.classes < 0 || m.classes == 1:
		return inputErrorf("--classes %d: expected at least 2 (0: from the labels)", m.classes)
	case !(m.noiseVar > 0):
		return inputErrorf("--noise-var %v: expected σ² > 0", m.noiseVar)
	case m.mapIters < 1 || m.mapBatch < 1 || !(m.mapLR > 0):
		return inputErrorf("--map-iters %d, --map-batch %d, --map-lr %v: expected positive numbers", m.mapIters, m.mapBatch, m.mapLR)
	case c.precond == "laplace" || c.init == "laplace":
		return inputErrorf("--model mlp: --init laplace and --precond laplace are not available (use --init map|prior|zero, --precond none)")
	}
	return nil
}

func parseHidden(s string) ([]int, error) {
	if s == "" || s == "0" {
		return nil, nil
	}
	return parseInts("hidden", s)
}

// spec returns the model of the configuration (before the data resolve it).
func (c *runConfig) spec() model.Spec {
	s := model.Spec{Kind: c.model, NoIntercept: !c.intercept}
	if c.set["prior-scale"] {
		s.PriorScale = c.priorScale
	}
	switch c.model {
	case "mlp":
		s.Hidden, _ = parseHidden(c.mlp.hidden)
		s.Activation, s.Likelihood, s.Classes = c.mlp.activation, c.mlp.likelihood, c.mlp.classes
		s.NoiseVar, s.LearnNoise = c.mlp.noiseVar, c.mlp.learnNoise
		s.NetDefaults = true // model.MLPDefaults: fan-in prior, standardised response
	case "gauss2":
		s.Rho = c.rho
	case "poisson", "negbin":
		s.Offset = c.offset
		if c.exposure != "" {
			s.Offset, s.Exposure = c.exposure, true
		}
	case "robust":
		s.Nu = c.nu
	}
	if c.toy() && c.gradNoise > 0 {
		s.GradNoise, s.Seed = c.gradNoise, c.seed
	}
	return s
}

// usesLaplacePrecond reports whether the sampler gets the Laplace diagonal.
func (c *runConfig) usesLaplacePrecond() bool { return c.precond == "laplace" && c.def.kind.laplace }

// describe is the sampler's name and batch for the output's first line.
func (c *runConfig) describe() string {
	var sb strings.Builder
	sb.WriteString(strings.ToUpper(c.sampler))
	switch {
	case c.def.kind.exact:
		sb.WriteString(" (full data)")
	case !c.def.kind.minibatch:
	case c.batch == 0:
		sb.WriteString(" (full batch)")
	default:
		fmt.Fprintf(&sb, " (batch %d)", c.batch)
	}
	return sb.String()
}

// parseInts parses a comma-separated list of positive integers given to the
// flag --name.
func parseInts(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, inputErrorf("--%s %q: expected comma-separated positive integers", name, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// multimodalWhy says why a Laplace preconditioner, the curvature of one
// mode, would be wrong by default for this model and sampler: a target known
// to have many modes (mixture25), or a cyclical sampler, whose large steps
// are meant to move between modes. Empty: the Laplace default stands.
func multimodalWhy(modelName, samplerName string) string {
	switch {
	case modelName == "mixture25":
		return "the target has 25 modes; a Laplace preconditioner fitted at one mode shrinks the steps to that mode's width"
	case samplerName == "csgld" || samplerName == "csghmc":
		return "--sampler " + samplerName + " explores several modes; a Laplace preconditioner fitted at one mode would keep it there"
	}
	return ""
}
