package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// The groups of the common flags, in the order of run -h.
var commonGroups = []struct{ title, flags string }{
	{"data", "data split test test-frac target id drop categorical missing na sep decimal format standardize n noise k"},
	{"model", "stan rows formula family priors model intercept prior-scale offset exposure nu hidden activation likelihood classes noise-var learn-noise noise-model map-iters map-batch map-lr chain-weights grad-noise rho"},
	{"run", "sampler target-ess max-time chains chain-id iters burnin thin seed init precond out overwrite resume checkpoint report quiet"},
	{"step size", "step schedule step-b decay step-floor cycles explore temperature temperature-start"},
	{"stochastic gradients", "batch replace cv clip clip-value noise-every"},
}

func newRunFlagSet(c *fit.Config) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	d := fit.DefaultConfig() // the flags' defaults
	fs.StringVar(&c.Data, "data", d.Data, "training data: a CSV, LIBSVM or Parquet `FILE` (.gz read transparently), a data store FILE.lvs (langevin convert; --model logistic streams it from disk), an embedded data set's NAME (see langevin datasets) or a generated one: moons|spirals|gap1d|fashion-mnist")
	fs.StringVar(&c.Test, "test", d.Test, "test data `FILE`; without it a seeded split of --data is held out (--test-frac; of a store: a hashed split by row)")
	fs.Float64Var(&c.TestFrac, "test-frac", d.TestFrac, "fraction of --data held out as test set when --test is not given (0: fit on all the data)")
	fs.StringVar(&c.Target, "target", d.Target, "target `COL`umn: a name, or a 1-based column number (-1 = last); default the last column")
	registerColumnFlags(fs, &c.Columns)
	fs.StringVar(&c.Format, "format", d.Format, "data format: auto|"+strings.Join(data.Formats(), "|")+" (store: a data.Store file)|uci (a folder of the UCI regression benchmark: data.txt, index_*.txt); auto tells them by content")
	fs.IntVar(&c.Split, "split", d.Split, "--data a UCI benchmark folder: split `K` (0-based): its index_train_K rows are the data, its index_test_K rows the test set; an MLP gets the folder's n_hidden units unless --hidden is given")
	fs.BoolVar(&c.Standardize, "standardize", d.Standardize, "standardise features with the training set's mean and sd (and an MLP's Gaussian response: the test scores are reported in its units)")
	fs.IntVar(&c.N, "n", d.N, "generated data (--data moons|spirals|gap1d): number of points `N`; fashion-mnist: use the first N training images (default all)")
	fs.Float64Var(&c.Noise, "noise", d.Noise, "generated data: noise sd (moons: of the points, spirals: of the angle, gap1d: of y)")
	fs.IntVar(&c.K, "k", d.K, "--data spirals: number of arms (classes)")

	registerFormulaFlags(fs, &c.Formula)
	fs.StringVar(&c.Stan, "stan", d.Stan, "a Stan program `FILE` as the model (see docs/stan.md); --data is its data in CmdStan's JSON format; the sampler is nuts unless --sampler (or --rows) says otherwise")
	fs.StringVar(&c.Rows, "rows", d.Rows, "--stan: the data block's int `N` that counts the rows: every data variable whose first dimension is N is a row column, and the likelihood (the model block's terms that read the rows, row by row) runs on minibatches with the plan of --sampler auto, the default then (see docs/stan.md)")
	fs.StringVar(&c.Model, "model", d.Model, "model: linear|logistic|mlp|softmax (integer class labels 0…K−1; --prior-scale σ₀ is precision λ = 1/σ₀²)|poisson|negbin (counts, log link; --offset/--exposure)|probit (0/1 labels)|robust (Student-t regression), or a toy target that needs no --data: gauss2|mixture25")
	fs.BoolVar(&c.Intercept, "intercept", d.Intercept, "add an intercept")
	fs.Float64Var(&c.PriorScale, "prior-scale", d.PriorScale, "prior scale `S`: σ₀ of the N(0, σ₀²I) prior (logistic, default 1), or √v of the N(μ, σ²vI) prior (linear, default 10)")
	fs.StringVar(&c.Offset, "offset", d.Offset, "poisson, negbin: `COL`umn (name or 1-based number) of offsets oᵢ added to the linear predictor, taken out of the features")
	fs.StringVar(&c.Exposure, "exposure", d.Exposure, "poisson, negbin: `COL`umn of exposures uᵢ > 0 (offset log uᵢ: E[yᵢ] = uᵢ·exp(α + xᵢᵀβ)), taken out of the features")
	fs.Float64Var(&c.Nu, "nu", d.Nu, "robust: fix the Student-t degrees of freedom `ν` (default: estimated, ν ~ Gamma(2, 0.1) on ν > 1)")
	m := &c.Mlp
	fs.StringVar(&m.Hidden, "hidden", d.Mlp.Hidden, "MLP hidden layer widths, comma-separated (\"\" or 0: no hidden layer); default one layer of 50 units, the protocol of the UCI regression benchmark")
	fs.StringVar(&m.Activation, "activation", d.Mlp.Activation, "MLP activation: relu|tanh|sigmoid|identity")
	fs.StringVar(&m.Likelihood, "likelihood", d.Mlp.Likelihood, "MLP likelihood: bernoulli|categorical|gaussian (default: bernoulli for 0/1 labels, categorical for more classes, gaussian otherwise)")
	fs.IntVar(&m.Classes, "classes", d.Mlp.Classes, "categorical likelihood: number of classes `K` (0: largest label + 1)")
	fs.Float64Var(&m.NoiseVar, "noise-var", d.Mlp.NoiseVar, "Gaussian likelihood: noise variance `V` = σ² in y's units (the response's own, not the standardised one: the run divides it by s_y², printed on the auto: noise line), fixed with --learn-noise=false (with the learned noise, the default, --sampler auto starts σ² at the response's variance); not given, the default 1 is of the standardised response: σ² = the response's variance)")
	fs.StringVar(&m.NoiseModel, "noise-model", d.Mlp.NoiseModel, "Gaussian likelihood: homo (one σ²), hetero (log σ²(x) the network's second output) or auto (the held-out rule of fit.ChooseNoise, printed on an auto: line; --noise-var or --learn-noise mean homo)")
	fs.BoolVar(&m.LearnNoise, "learn-noise", d.Mlp.LearnNoise, "Gaussian likelihood: sample log σ² too (prior N(0, 2²) on log σ² of the standardised response; --learn-noise=false fixes σ² at --noise-var)")
	fs.IntVar(&m.MapIters, "map-iters", d.Mlp.MapIters, "MLP MAP (--init map, the ensemble's members, the MAP of swag and laplace): Adam iterations (unset: the network plan's rule, 300 epochs, 2,000 to 20,000)")
	fs.IntVar(&m.MapBatch, "map-batch", d.Mlp.MapBatch, "MLP --init map: Adam minibatch size")
	fs.StringVar(&m.ChainWeights, "chain-weights", d.Mlp.ChainWeights, "MLP: weights of the chains in the posterior predictive: stacking (of each chain's PSIS-LOO on the training rows, Yao, Vehtari & Gelman 2022: chains at different modes do not mix) or equal (every draw alike)")
	fs.Float64Var(&m.MapLR, "map-lr", d.Mlp.MapLR, "MLP MAP: a constant Adam learning rate (unset: the network plan's, 10⁻² decaying to 10⁻³)")
	fs.Float64Var(&c.GradNoise, "grad-noise", d.GradNoise, "toy targets: sd `S` of the N(0, S²I) noise injected into the gradient")
	fs.Float64Var(&c.Rho, "rho", d.Rho, "gauss2: correlation `ρ` of the two coordinates")

	fs.StringVar(&c.Sampler, "sampler", d.Sampler, "algorithm `NAME`: "+strings.Join(fit.SamplerNames(), "|")+" (see the list above)")
	fs.Float64Var(&c.TargetESS, "target-ess", d.TargetESS, "--sampler auto: run until the smallest bulk-ESS over the parameters and chains reaches `E` (or --max-time, or --iters); 0: no ESS rule, run to --iters (what each process of --chain-id does)")
	fs.DurationVar(&c.MaxTime, "max-time", d.MaxTime, "stop after `T` from the start of the job (for example 10m), keeping the draws so far (--sampler auto: even if --target-ess is not reached; every other sampler: before --iters); a budget that ends before the sampling begins (MAP, plan) or in the warm-up is an error (0: no limit; not reproducible)")
	fs.IntVar(&c.Chains, "chains", d.Chains, fmt.Sprintf("number of chains `K` (at most %d)", fit.MaxChains))
	fs.IntVar(&c.ChainID, "chain-id", d.ChainID, "run only chain `C` (1 ≤ C ≤ --chains) of the analysis, for one process (a Slurm array task) per chain: its --out DIR/chain-C.csv is the file that the run of all --chains writes, and langevin summary|report|predict combine the directories (0: all chains)")
	fs.IntVar(&c.Iters, "iters", d.Iters, "iterations `N` per chain, burn-in included (auto: --sampler auto runs until --target-ess, at most 10000000; a hand-tuned sampler 500000)")
	fs.IntVar(&c.Burnin, "burnin", d.Burnin, "burn-in iterations `N` discarded per chain (auto: --sampler auto's convergence rule; a hand-tuned sampler 50000, or --iters/10)")
	fs.IntVar(&c.Thin, "thin", d.Thin, "keep every `N`-th draw after burn-in (auto: --sampler auto thins as its draws grow; a hand-tuned sampler 450, or in proportion to --iters)")
	fs.Uint64Var(&c.Seed, "seed", d.Seed, "random `seed` of the run (split, initial points, chains)")
	fs.StringVar(&c.Init, "init", d.Init, "initial points: zero|map|prior|laplace (the MAP plus a draw from the diagonal Laplace approximation, so chains start dispersed on the posterior's scale)|random (--model mlp: each chain its own random fan-in start)|uniform (each unconstrained coordinate uniform on (−2, 2), as CmdStan; the default of --stan)")
	fs.StringVar(&c.Precond, "precond", d.Precond, "constant diagonal preconditioner M of sgld, csgld, sghmc, csghmc, rwm, mala, nuts: laplace (diag of the inverse Hessian at the MAP) or none (the default for csgld, csghmc and --model mixture25, whose several modes one Laplace fit would hide; the output says so)")
	fs.StringVar(&c.Out, "out", d.Out, "write DIR/chain-1.csv … DIR/chain-K.csv (CmdStan format), DIR/summary.csv and DIR/model.json")
	fs.BoolVar(&c.Overwrite, "overwrite", d.Overwrite, "let --out DIR hold another run's files: they are removed first (without it such a DIR is refused)")
	fs.StringVar(&c.Resume, "resume", d.Resume, "continue the run of `DIR` (its --out) that a signal, a kill or a time limit stopped, from its last checkpoint, with the settings it started with (read from DIR/resume.json; other flags may only repeat them, except --quiet, --report, --max-time, --checkpoint): the draws equal those of a run never stopped, bit for bit")
	fs.DurationVar(&c.Checkpoint, "checkpoint", d.Checkpoint, "with --out DIR: save the chains' state to DIR/checkpoint.bin at most every `T` (at the end of a round of iterations), for --resume; 0: never")
	fs.BoolVar(&c.Report, "report", d.Report, "also write DIR/report.html (settings, summary, warnings, plots) into --out DIR (default "+fit.DefaultReportDir+")")
	fs.BoolVar(&c.Quiet, "quiet", d.Quiet, "print no progress")

	fs.Float64Var(&c.Step, "step", d.Step, "step size `A`: η in θ ← θ + η ĝ + √(2ητ) ξ (Welling & Teh's ε = 2η); the a of a(b+t)^-γ, or η₀ of the cyclic schedule (default: each sampler's rule, printed with the result)")
	fs.StringVar(&c.Schedule, "schedule", d.Schedule, "step-size schedule: const|poly (a(b+t)^-γ)|cyclic")
	fs.Float64Var(&c.StepB, "step-b", d.StepB, "offset `B` of the polynomial schedule a(b+t)^-γ")
	fs.Float64Var(&c.Decay, "decay", d.Decay, "decay `G` (γ) of the polynomial schedule; Robbins–Monro needs 0.5 < γ ≤ 1")
	fs.Float64Var(&c.StepFloor, "step-floor", d.StepFloor, "hold the polynomial schedule's step at `F` once it falls below (the lecture notes' floored schedule); 0: no floor")
	fs.IntVar(&c.Cycles, "cycles", d.Cycles, "number of cycles `M` of the cyclic schedule")
	fs.Float64Var(&c.Explore, "explore", d.Explore, "fraction `F` of each cycle of the cyclic schedule spent exploring (no injected noise, draws not kept); csgld/csghmc default 0.5")
	fs.Float64Var(&c.Temperature, "temperature", d.Temperature, "temperature `T`: the chain targets p(θ|D)^(1/T)")
	fs.Float64Var(&c.TStart, "temperature-start", d.TStart, "anneal the temperature geometrically from `T0` to --temperature over the burn-in (0: off)")

	fs.IntVar(&c.Batch, "batch", d.Batch, "minibatch size `B` (0: full batch)")
	fs.BoolVar(&c.Replace, "replace", d.Replace, "draw minibatches with replacement (default: shuffled epochs)")
	fs.BoolVar(&c.Cv, "cv", d.Cv, "control-variate gradient estimator around the MAP (Baker et al. 2019), for every stochastic-gradient sampler")
	fs.Float64Var(&c.Clip, "clip", d.Clip, "clip the gradient's norm at `C`: v·min(1, C/‖v‖) (0: off)")
	fs.Float64Var(&c.ClipValue, "clip-value", d.ClipValue, "clip each gradient component to [-C, C] (0: off)")
	fs.IntVar(&c.NoiseEvery, "noise-every", d.NoiseEvery, "estimate the stochastic-gradient noise every `N` steps (0: never)")

	c.Opts = map[string]any{}
	for _, g := range fit.FlagGroups {
		c.Opts[g.Name] = g.Define(fs)
	}
	return fs
}

// autoDefaults are the flags whose default --sampler auto (the default)
// chooses by rule: run -h prints "(default auto)", not the hand-tuned
// samplers' value.
var autoDefaults = map[string]bool{"iters": true, "burnin": true, "thin": true}

// runUsage prints run -h: the samplers by family, then the flags by group.
func runUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: langevin run [flags]\n\nSamplers (--sampler NAME):\n%s", fit.SamplerHelp())
	show := func(title string, names []string) {
		sub := flag.NewFlagSet(title, flag.ContinueOnError)
		sub.SetOutput(w)
		for _, n := range names {
			if f := fs.Lookup(n); f != nil {
				sub.Var(f.Value, f.Name, f.Usage)
				sub.Lookup(n).DefValue = f.DefValue
				if autoDefaults[n] {
					// The default sampler chooses them by rule: the
					// hand-tuned defaults are in the usage text.
					sub.Lookup(n).DefValue = "auto"
				}
			}
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		sub.PrintDefaults()
	}
	for _, g := range commonGroups {
		show(strings.ToUpper(g.title[:1])+g.title[1:]+" flags", strings.Fields(g.flags))
	}
	for _, g := range fit.FlagGroups {
		var names []string
		sub := flag.NewFlagSet(g.Name, flag.ContinueOnError)
		g.Define(sub)
		sub.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		show(fmt.Sprintf("%s (%s)", g.Title, strings.Join(fit.Readers(g.Name), ", ")), names)
	}
}

// parseRun parses the flags of langevin run into a configuration, resolves
// the defaults that depend on the sampler and the model, and validates it.
func parseRun(args []string, stdout io.Writer) (*fit.Config, error) {
	c := &fit.Config{}
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
		return nil, fit.InputErrorf("unexpected argument %q: run takes only flags (see langevin run -h)", fs.Arg(0))
	}
	c.Set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { c.Set[fl.Name] = true })
	c.StepSet = c.Set["step"]
	if c.Stan != "" && c.Rows == "" && !c.Set["sampler"] {
		// A Stan program: exact NUTS started as CmdStan starts it, each
		// unconstrained coordinate uniform on (−2, 2), with the diagonal
		// metric adapted in warm-up from the identity — not at a Laplace
		// approximation, whose mode a hierarchical or weakly identified
		// program need not have.
		c.Sampler = "nuts"
		if !c.Set["init"] {
			c.Init = "uniform"
		}
		if !c.Set["precond"] {
			c.Precond = "none"
		}
	}
	if err := fit.OneOf("model", c.Model, model.Kinds...); err != nil {
		return nil, err
	}
	if err := fit.OneOf("sampler", c.Sampler, fit.SamplerNames()...); err != nil {
		return nil, err
	}
	c.Def = fit.SamplerTable[c.Sampler]
	// Flags of groups the sampler does not read.
	for _, g := range fit.FlagGroups {
		if c.Def.Reads(g.Name) {
			continue
		}
		sub := flag.NewFlagSet(g.Name, flag.ContinueOnError)
		g.Define(sub)
		var bad string
		sub.VisitAll(func(f *flag.Flag) {
			if bad == "" && c.Set[f.Name] {
				bad = f.Name
			}
		})
		if bad != "" {
			return nil, fit.InputErrorf("--%s: only for --sampler %s", bad, strings.Join(fit.Readers(g.Name), "|"))
		}
	}
	if err := checkApplies(c); err != nil {
		return nil, err
	}
	if err := c.Columns.Check(); err != nil {
		return nil, err
	}
	if err := c.Resolve(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Def.Check != nil {
		if err := c.Def.Check(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// registerColumnFlags defines --id, --drop, --categorical and --missing on fs.
func registerColumnFlags(fs *flag.FlagSet, f *fit.ColumnFlags) {
	fs.StringVar(&f.Id, "id", "", "ID `COL`umn (a name or number, as --target): never a feature; predict writes it beside each prediction")
	fs.StringVar(&f.Drop, "drop", "", "`COL,…`: columns not to read (names or numbers, as --target)")
	fs.StringVar(&f.Categorical, "categorical", "", "`COL,…`: columns coded as categorical even if they hold numbers (a column of text is categorical anyway: treatment coding against its first level in byte order)")
	fs.StringVar(&f.Missing, "missing", "error", "missing values (empty, NA, N/A, NaN, nan, null, NULL, and --na's): error (exit 2 naming the column and how many rows) or drop (drop those rows, counted per column); never imputed")
	registerTextFlags(fs, f)
}

// registerTextFlags defines --na, --sep and --decimal, how the cells of a
// text file are read (run and predict).
func registerTextFlags(fs *flag.FlagSet, f *fit.ColumnFlags) {
	fs.StringVar(&f.NA, "na", "", "`TOKEN,…`: more cells that mean a missing value (for example ? or -999), besides the empty cell, NA, N/A, NaN, nan, null, NULL")
	fs.StringVar(&f.Sep, "sep", "", "delimiter of a CSV file: , ; tab space or another character (default: told from the first lines)")
	fs.StringVar(&f.Decimal, "decimal", ".", "decimal mark of the numbers: . or , (with ',' the delimiter is ; unless --sep says otherwise)")
}

// registerFormulaFlags defines --formula, --family and --priors on fs.
func registerFormulaFlags(fs *flag.FlagSet, f *fit.FormulaConfig) {
	fs.StringVar(&f.Text, "formula", "", "model `FORMULA` as lme4/brms write it, e.g. 'y ~ x + (1 + x | g)' (see docs/formulas.md); --data (and --test) a table with a header: CSV, gzip, Parquet or a store; text columns are categorical; replaces --model")
	fs.StringVar(&f.Family, "family", "gaussian", "--formula: response family gaussian|bernoulli (logistic)|probit|poisson|negbinomial|student|binomial (the response y | trials(n))")
	fs.StringVar(&f.Priors, "priors", "", "--formula: priors replacing brms's defaults, 'class ~ dist(args); …' with class Intercept|b|sd|cor|sigma|nu|shape, e.g. 'b ~ normal(0, 1); sd ~ exponential(1)'")
}

// checkApplies refuses a common flag that the chosen sampler, model or data
// would ignore: a flag given is a flag used, or an error naming it.
func checkApplies(c *fit.Config) error {
	k := c.Def.Kind
	generated := map[string]bool{"moons": true, "spirals": true, "gap1d": true, "fashion-mnist": true}
	toy := c.Toy()
	for _, r := range []struct {
		flags   string
		applies bool
		why     string
	}{
		{"model target test-frac id drop categorical split standardize intercept prior-scale offset exposure", c.Formula.Text == "",
			"--formula names the model, its response, intercept, offsets and columns, and --data is read as it is (no test split, no standardisation; --test gives held-out rows): write it in the formula"},
		{"family priors", c.Formula.Text != "", "only with --formula"},
		{"rows", c.Stan != "", "only with --stan (it names the Stan program's row count)"},
		{"formula model target test test-frac id drop categorical missing format split standardize intercept prior-scale offset exposure", c.Stan == "",
			"--stan names the model and --data is its data (CmdStan's JSON format)"},
		{"batch replace cv clip clip-value noise-every", !k.Exact, "--sampler " + c.Sampler + " uses all the data at every step (exact MCMC)"},
		{"schedule step-b decay cycles explore temperature temperature-start", !k.Exact, "--sampler " + c.Sampler + " tunes its own step and samples the posterior itself (τ = 1)"},
		{"batch replace", k.Minibatch || k.Exact || toy, "--sampler " + c.Sampler + " uses all the data at every step"},
		{"temperature temperature-start", !k.Optimiser, "--sampler " + c.Sampler + " is an optimiser: it injects no noise to temper"},
		{"clip clip-value", c.Sampler != "auto", "--sampler auto picks its sampler and step itself (it may pick NUTS, which has no gradient to clip); give --sampler sgld (or another SG-MCMC sampler) to clip"},
		{"temperature temperature-start", c.Def.Family() == "SG-MCMC", "only the SG-MCMC samplers (" + strings.Join(fit.SamplersOf("SG-MCMC"), ", ") + ") take a temperature; --sampler " + c.Sampler + " would sample at τ = 1"},
		{"hidden activation likelihood classes noise-var learn-noise noise-model map-iters map-batch map-lr chain-weights", c.Model == "mlp", "only for --model mlp"},
		{"data test test-frac target id drop categorical missing format standardize n noise k prior-scale intercept", !toy, "the toy target --model " + c.Model + " has no data and a fixed density"},
		{"rho", c.Model == "gauss2", "only for --model gauss2"},
		{"n", generated[c.Data] || toy, "only for generated data (--data moons|spirals|gap1d|fashion-mnist)"},
		{"noise", c.Data == "moons" || c.Data == "spirals" || c.Data == "gap1d" || toy, "only for generated data (--data moons|spirals|gap1d)"},
		{"k", c.Data == "spirals" || toy, "only for --data spirals"},
		{"test-frac", c.Test == "", "--test gives the test set"},
		{"split", !toy && c.IsUCI(), "only for --data a UCI benchmark folder"},
		{"test test-frac", !c.IsUCI(), "the UCI folder's split (--split) gives the test set"},
	} {
		if r.applies {
			continue
		}
		for _, f := range strings.Fields(r.flags) {
			if c.Set[f] {
				return fit.InputErrorf("--%s: not used here: %s", f, r.why)
			}
		}
	}
	return nil
}
