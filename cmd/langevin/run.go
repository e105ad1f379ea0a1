package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
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

// runFlags are the flags of langevin run. Scripts call this contract: extend
// it, do not rename.
type runFlags struct {
	data, test, target, format string
	testFrac                   float64
	model                      string
	intercept, standardize     bool
	priorScale                 float64
	sampler, schedule          string
	step, stepB, decay         float64
	cycles                     int
	batch                      int
	replace                    bool
	temperature                float64
	clip, clipValue            float64
	chains, iters, burnin      int
	thin                       int
	seed                       uint64
	init                       string
	precond                    string
	noiseEvery                 int
	out                        string
	quiet                      bool
	report                     bool
	mlp                        mlpFlags      // --model mlp and generated data (run_mlp.go)
	scaler                     *data.Scaler  // the standardisation applied, if any
	train                      *data.Dataset // the training data, when loaded by loadData
	warmup, maxDepth           int           // exact samplers (exact.go)
	targetAccept               float64       // exact samplers
	tune, metric               string        // exact samplers
	mandt                      mandtFlags    // constant SGD, SGFS, IASG (run_mandt.go)
	family                     familyFlags

	set     map[string]bool // flags given on the command line
	classes int             // softmax: K, from the training and test labels
}

func newRunFlagSet(f *runFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.data, "data", "australian", "training data: a CSV or LIBSVM `FILE` (.gz read transparently) or an embedded data set's NAME (see langevin datasets)")
	fs.StringVar(&f.test, "test", "", "test data `FILE`; without it a seeded split of --data is held out (--test-frac)")
	fs.Float64Var(&f.testFrac, "test-frac", 0.2, "fraction of --data held out as test set when --test is not given")
	fs.StringVar(&f.target, "target", "", "target `COL`umn: a name, or a 1-based column number (-1 = last); default the last column")
	fs.StringVar(&f.format, "format", "auto", "data format: auto|csv|libsvm")
	fs.StringVar(&f.model, "model", "logistic", "model: linear|logistic|mlp|softmax (integer class labels 0…K−1; --prior-scale σ₀ is precision λ = 1/σ₀²), or a toy target that needs no --data: gauss2|mixture25")
	fs.BoolVar(&f.intercept, "intercept", true, "add an intercept")
	fs.Float64Var(&f.priorScale, "prior-scale", 0, "prior scale `S`: σ₀ of the N(0, σ₀²I) prior (logistic, default 1), or √v of the N(μ, σ²vI) prior (linear, default 10)")
	fs.StringVar(&f.sampler, "sampler", "sgld", "algorithm: gd|sgd|sgld|psgld|sghmc|csgld|csghmc|"+strings.Join(mandtSamplers, "|")+"|swag|vi|rwm|mala|nuts (rwm, mala, nuts: exact full-data samplers, default 1000+1000, 2000+10000, 5000+20000 iterations, thin 1; swag, vi: fit during burn-in, then independent draws from the Gaussian fit)")
	fs.Float64Var(&f.step, "step", 0, "step size `A`: η in θ ← θ + η ĝ + √(2ητ) ξ (Welling & Teh's ε = 2η); the a of a(b+t)^-γ, or η₀ of the cyclic schedule (default: 0.1·B/N for sgld with --precond laplace, 0.1·B/N² without, 1/N for gd/sgd)")
	fs.StringVar(&f.schedule, "schedule", "const", "step-size schedule: const|poly (a(b+t)^-γ)|cyclic")
	fs.Float64Var(&f.stepB, "step-b", 1, "offset `B` of the polynomial schedule a(b+t)^-γ")
	fs.Float64Var(&f.decay, "decay", 0.55, "decay `G` (γ) of the polynomial schedule; Robbins–Monro needs 0.5 < γ ≤ 1")
	fs.IntVar(&f.cycles, "cycles", 1, "number of cycles `M` of the cyclic schedule")
	fs.IntVar(&f.batch, "batch", 10, "minibatch size `B` (0: full batch)")
	fs.BoolVar(&f.replace, "replace", false, "draw minibatches with replacement (default: shuffled epochs)")
	fs.Float64Var(&f.temperature, "temperature", 1, "temperature `T`: the chain targets p(θ|D)^(1/T)")
	fs.Float64Var(&f.clip, "clip", 0, "clip the gradient's norm at `C`: v·min(1, C/‖v‖) (0: off)")
	fs.Float64Var(&f.clipValue, "clip-value", 0, "clip each gradient component to [-C, C] (0: off)")
	fs.IntVar(&f.chains, "chains", 4, "number of chains `K`")
	fs.BoolVar(&f.report, "report", false, "also write DIR/report.html (settings, summary, warnings, plots) into --out DIR (default "+defaultReportDir+")")
	fs.IntVar(&f.iters, "iters", 500000, "iterations `N` per chain, burn-in included")
	fs.IntVar(&f.burnin, "burnin", 50000, "burn-in iterations `N` discarded per chain")
	fs.IntVar(&f.thin, "thin", 450, "keep every `N`-th draw after burn-in")
	fs.Uint64Var(&f.seed, "seed", 1, "random `seed` of the run (split, initial points, chains)")
	fs.StringVar(&f.init, "init", "laplace", "initial points: zero|map|prior|laplace (the MAP plus a draw from the diagonal Laplace approximation, so chains start dispersed on the posterior's scale)")
	fs.StringVar(&f.precond, "precond", "laplace", "SGLD's constant diagonal preconditioner M: laplace (diag of the inverse Hessian at the MAP) or none")
	fs.IntVar(&f.noiseEvery, "noise-every", 10, "estimate the stochastic-gradient noise every `N` steps (0: never)")
	fs.BoolVar(&f.standardize, "standardize", true, "standardise features with the training set's mean and sd")
	fs.StringVar(&f.out, "out", "", "write DIR/chain-1.csv … DIR/chain-K.csv (CmdStan format) and DIR/summary.csv")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress")
	fs.IntVar(&f.warmup, "warmup", 0, "warm-up iterations `N` of rwm|mala|nuts (an alias of --burnin: the step size and metric adapt during the burn-in)")
	fs.Float64Var(&f.targetAccept, "target-accept", 0, "target mean accept_stat `A` of the step-size tuning (default 0.234 rwm, 0.574 mala, 0.8 nuts)")
	fs.StringVar(&f.tune, "tune", "dual", "step-size tuning of rwm|mala|nuts during warm-up: none|dual (dual averaging)|grid (grid search scored by acceptance)")
	fs.IntVar(&f.maxDepth, "max-depth", 10, "maximum tree depth `D` of nuts")
	fs.StringVar(&f.metric, "metric", "diag", "metric of rwm|mala|nuts: diag|dense (nuts adapts it in Stan's windows; rwm and mala use the Laplace approximation's (co)variance with --precond laplace)")
	addMandtFlags(fs, &f.mandt)
	addFamilyFlags(fs, &f.family)
	addMLPFlags(fs, f)
	return fs
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := newRunFlagSet(&f)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return inputErrorf("unexpected argument %q: run takes only flags (see langevin run -h)", fs.Arg(0))
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.validate(); err != nil {
		return err
	}
	var train, test *data.Dataset
	var err error
	if toyModel(f.model) {
		train = toyData(&f)
	} else if train, test, err = loadData(&f); err != nil {
		return err
	}
	m, spec, err := buildModel(&f, train)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The MAP is the baseline, and the start or the preconditioner's centre;
	// lap computes it, and the Hessian, at most once for the whole run.
	lap := newRunLaplace(&f, m)
	if laplaceHook != nil {
		defer laplaceHook(lap)
	}
	mapTheta, mapErr := lap.MAP(ctx)
	usePrecond := usesPrecond(&f) || (isExact(f.sampler) && f.precond == "laplace")
	needMAP := f.init == "map" || f.init == "laplace" || usePrecond || f.family.cv
	if mapErr != nil && needMAP {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", mapErr)
	}
	var laplace, precond []float64
	if f.init == "laplace" || usePrecond {
		if laplace, err = lap.Diag(ctx); err != nil {
			return err
		}
	}
	if usePrecond {
		precond = laplace
	}
	if f.family.cv {
		f.family.cvCentre = mapTheta
	}
	if err := approxStep(&f, m, mapTheta); err != nil {
		return err
	}
	stepNote, err := stabilityStep(ctx, &f, m, lap, precond, mapTheta)
	if err != nil {
		return err
	} else if strings.HasPrefix(stepNote, "warning") {
		fmt.Fprintln(stderr, "langevin run: "+stepNote) // also before a run that diverges
	}
	s, err := buildSampler(ctx, &f, m, lap, precond)
	if err != nil {
		return err
	}
	var init langevin.Initializer
	switch f.init {
	case "zero":
		init = langevin.InitZero{}
	case "prior":
		init = langevin.InitPrior{}
	case "map":
		init = langevin.InitAt{Points: [][]float64{mapTheta}}
	case "laplace":
		init = laplaceInit{mean: mapTheta, variance: laplace}
	}
	prog := newProgress(stderr, f.quiet, f.chains, f.iters)
	opts := langevin.Options{
		Chains: f.chains, Iters: f.iters, BurnIn: f.burnin, Thin: f.thin, Seed: f.seed,
		Init: init, SaveWarmup: true, Progress: prog.update,
	}
	start := time.Now()
	prog.start()
	tr, runErr := langevin.Run(ctx, m, s, opts)
	prog.stop()
	elapsed := time.Since(start)
	if tr == nil {
		return inputError{runErr}
	}
	if runErr != nil && tr.NumDraws() == 0 {
		return runErr
	}

	params, note := commonLength(tr)
	table := diag.Summarize(tr.Names, params)
	if toyModel(f.model) {
		fmt.Fprintf(stdout, "toy target %s (d = %d, no data, gradient noise sd %g), %s, %d chains\n\n",
			f.model, m.Dim(), f.family.gradNoise, describeSampler(&f), f.chains)
	} else {
		fmt.Fprintf(stdout, "%s regression on %s (N = %d train, %d test, d = %d), %s, %d chains\n\n",
			f.model, train.Source, train.Len(), testLen(test), m.Dim(), describeSampler(&f), f.chains)
	}
	if err := table.Format(stdout); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintln(stdout)

	if mapErr != nil {
		fmt.Fprintf(stdout, "MAP baseline: %v\n", mapErr)
	}
	if mlp, ok := m.(*model.MLP); ok && test != nil && test.Len() > 0 {
		printMLPPredictive(stdout, mlp, tr, mapTheta, test)
	} else if test != nil && test.Len() > 0 {
		printPredictive(stdout, m, tr, mapTheta, test)
	}
	printWhere(stdout, &f, tr, table, elapsed, mapTheta)
	if stepNote != "" {
		fmt.Fprintln(stdout, stepNote)
	}

	if f.report && f.out == "" {
		f.out = defaultReportDir
	}
	if f.out != "" {
		files, err := writeOutput(&f, tr, table, m, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "written:  %s\n", files)
	}
	if f.report {
		path, err := runReport(&f, tr, m, test)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		fmt.Fprintf(stdout, "report:   %s\n", path)
	}
	if runErr != nil {
		var de *langevin.DivergenceError
		if errors.As(runErr, &de) {
			return fmt.Errorf("%w; the draws before it are kept", runErr)
		}
		return runErr
	}
	return nil
}

func testLen(d *data.Dataset) int {
	if d == nil {
		return 0
	}
	return d.Len()
}

func oneOf(flagName, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return inputErrorf("--%s %q: expected one of %s", flagName, v, strings.Join(allowed, ", "))
}

func (f *runFlags) validate() error {
	if err := f.applyExactDefaults(); err != nil {
		return err
	}
	for _, c := range []struct {
		name, v string
		allowed []string
	}{
		{"model", f.model, []string{"linear", "logistic", "gauss2", "mixture25", "mlp", "softmax"}},
		{"sampler", f.sampler, append(append([]string{"gd", "sgd", "sgld", "psgld", "sghmc", "csgld", "csghmc"}, mandtSamplers...), "swag", "vi", "rwm", "mala", "nuts")},
		{"tune", f.tune, []string{"none", "dual", "grid"}},
		{"metric", f.metric, []string{"diag", "dense"}},
		{"schedule", f.schedule, []string{"const", "poly", "cyclic"}},
		{"init", f.init, []string{"zero", "map", "prior", "laplace"}},
		{"precond", f.precond, []string{"laplace", "none"}},
		{"format", f.format, []string{"auto", "csv", "libsvm"}},
	} {
		if err := oneOf(c.name, c.v, c.allowed...); err != nil {
			return err
		}
	}
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return inputErrorf("--%s %v: expected a positive number", name, v)
		}
		return nil
	}
	if f.set["step"] {
		if err := pos("step", f.step); err != nil {
			return err
		}
	}
	if f.set["prior-scale"] {
		if err := pos("prior-scale", f.priorScale); err != nil {
			return err
		}
	}
	if err := pos("temperature", f.temperature); err != nil {
		return err
	}
	switch {
	case f.chains < 1:
		return inputErrorf("--chains %d: expected at least 1", f.chains)
	case f.iters < 1:
		return inputErrorf("--iters %d: expected at least 1", f.iters)
	case f.burnin < 0 || f.burnin >= f.iters:
		return inputErrorf("--burnin %d: expected 0 ≤ burn-in < --iters (%d)", f.burnin, f.iters)
	case f.thin < 1:
		return inputErrorf("--thin %d: expected at least 1", f.thin)
	case f.batch < 0:
		return inputErrorf("--batch %d: expected 0 (full batch) or a positive size", f.batch)
	case f.cycles < 1 || f.cycles > f.iters:
		return inputErrorf("--cycles %d: expected 1 ≤ cycles ≤ --iters (%d)", f.cycles, f.iters)
	case !(f.decay >= 0) || math.IsInf(f.decay, 0):
		return inputErrorf("--decay %v: expected γ ≥ 0", f.decay)
	case !(f.stepB > -1) || math.IsInf(f.stepB, 0):
		return inputErrorf("--step-b %v: expected b > −1", f.stepB)
	case !(f.clip >= 0) || math.IsInf(f.clip, 0):
		return inputErrorf("--clip %v: expected c ≥ 0 (0: off)", f.clip)
	case !(f.clipValue >= 0) || math.IsInf(f.clipValue, 0):
		return inputErrorf("--clip-value %v: expected c ≥ 0 (0: off)", f.clipValue)
	case !(f.testFrac > 0 && f.testFrac < 1):
		return inputErrorf("--test-frac %v: expected a fraction in (0, 1)", f.testFrac)
	case f.noiseEvery < 0:
		return inputErrorf("--noise-every %d: expected ≥ 0", f.noiseEvery)
	case (f.sampler == "swag" || f.sampler == "vi") && f.burnin < 1:
		return inputErrorf("--burnin %d: --sampler %s fits its approximation during burn-in: expected at least 1", f.burnin, f.sampler)
	}
	if err := f.mandt.validate(f); err != nil {
		return err
	}
	if err := f.validateFamily(); err != nil {
		return err
	}
	return f.validateMLP()
}

// modelSpec returns the model of the flags as a model.Spec.
func modelSpec(f *runFlags) model.Spec {
	s := model.Spec{Kind: f.model, NoIntercept: !f.intercept, Classes: f.classes}
	if f.set["prior-scale"] {
		s.PriorScale = f.priorScale
	}
	switch f.model {
	case "mlp":
		s.Hidden, _ = parseHidden(f.mlp.hidden)
		s.Activation, s.Likelihood, s.Classes = f.mlp.activation, f.mlp.likelihood, f.mlp.classes
		s.NoiseVar, s.LearnNoise = f.mlp.noiseVar, f.mlp.learnNoise
	case "gauss2":
		s.Rho = f.family.rho
	}
	if !s.NeedsData() && f.family.gradNoise > 0 {
		s.GradNoise, s.Seed = f.family.gradNoise, f.seed
	}
	return s
}

// buildModel builds the model of the flags on the training data and returns
// it with its spec, resolved against the training labels.
func buildModel(f *runFlags, train *data.Dataset) (langevin.Model, model.Spec, error) {
	s := modelSpec(f)
	if !s.NeedsData() {
		m, err := s.Build(nil, nil)
		if err != nil {
			return nil, s, inputErrorf("--rho: %v", err)
		}
		return m, s, nil
	}
	s.Resolve(train.Y)
	m, err := s.Build(train.X, train.Y)
	if err != nil {
		if f.model == "mlp" {
			return nil, s, inputErrorf("--data %s: %v", f.data, err)
		}
		return nil, s, inputError{err}
	}
	return m, s, nil
}

// laplaceHook, when set (by tests), sees the run's Laplace approximation
// after the run, to count its MAPs and Hessians.
var laplaceHook func(*approx.RunLaplace)

// newRunLaplace returns the run's one MAP and Laplace approximation: of the
// model without injected gradient noise; an MLP's MAP is Adam's from a
// Glorot start (--map-iters, --map-batch, --map-lr), and only with --init map.
func newRunLaplace(f *runFlags, m langevin.Model) *approx.RunLaplace {
	lap := &approx.RunLaplace{Model: noiseFree(m)}
	if mlp, ok := m.(*model.MLP); ok {
		lap.FindMAP = func(ctx context.Context, _ langevin.Model) ([]float64, error) {
			if f.init != "map" {
				return nil, nil
			}
			return fitMAP(ctx, mlp, mapSettings{iters: f.mlp.mapIters, batch: f.mlp.mapBatch, lr: f.mlp.mapLR}, f.seed, 1000)
		}
	}
	return lap
}

func buildSchedule(f *runFlags, n int) schedule.Schedule {
	step := f.step
	if !f.set["step"] {
		step = defaultStep(f, n)
	}
	switch f.schedule {
	case "const":
		return schedule.Constant(step)
	case "cyclic":
		return schedule.Cyclical{Eta0: step, Iters: f.iters, Cycles: f.cycles, Explore: familyExplore(f)}
	default:
		return schedule.Polynomial{A: step, B: f.stepB, Gamma: f.decay}
	}
}

// defaultStep is the step size when --step is not given: the family's rule
// (familyDefaultStep), SGLD's sampler.StepNoiseFraction (the gradient noise
// about 5% of the injected noise), and sampler.StepUnitMeanLoss (1/N) for GD
// and SGD.
func defaultStep(f *runFlags, n int) float64 {
	if eta, ok := familyDefaultStep(f, n); ok {
		return eta
	}
	if f.sampler == "sgld" {
		return sampler.StepNoiseFraction(n, f.batch, 1, f.precond == "laplace")
	}
	return sampler.StepUnitMeanLoss(n)
}

func buildSampler(ctx context.Context, f *runFlags, m langevin.Model, lap *approx.RunLaplace, precond []float64) (langevin.Sampler, error) {
	if isExact(f.sampler) {
		return buildExactSampler(ctx, f, lap, precond)
	}
	sched := buildSchedule(f, m.Len())
	if err := sched.Validate(); err != nil {
		return nil, inputErrorf("--step/--schedule: %v", err)
	}
	clip := sampler.Clipping{Norm: f.clip, Value: f.clipValue}
	mb := sampler.Minibatch{Size: f.batch, Replace: f.replace, CV: f.family.cvCentre}
	switch f.sampler {
	case "csgd", "csgd-diag", "csgd-full", "csgd-sqrt", "csgd-momentum", "sgfs", "sgfs-diag", "iasg", "laplace":
		return buildMandtSampler(ctx, f, m, lap)
	case "gd":
		return sampler.SGD{Step: sched, Clip: clip}, nil
	case "sgd":
		return sampler.SGD{Step: sched, Batch: mb, Clip: clip}, nil
	case "swag", "vi":
		return buildApprox(f, sched, mb)
	case "psgld", "sghmc", "csgld", "csghmc":
		return buildFamilySampler(f, sched, mb, clip, precond), nil
	default:
		return sampler.SGLD{Step: sched, Batch: mb, Temperature: f.temperature, Clip: clip, NoiseEvery: f.noiseEvery, Precond: precond,
			TemperatureStart: f.family.temperatureStart, BurnIn: f.burnin}, nil
	}
}

func describeSampler(f *runFlags) string {
	var sb strings.Builder
	sb.WriteString(strings.ToUpper(f.sampler))
	if isExact(f.sampler) {
		sb.WriteString(" (full data)")
	} else if f.sampler != "gd" {
		if f.batch == 0 {
			sb.WriteString(" (full batch")
		} else {
			fmt.Fprintf(&sb, " (batch %d", f.batch)
		}
		sb.WriteString(")")
	}
	return sb.String()
}

// laplaceInit starts each chain at an independent draw from the diagonal
// Laplace approximation N(MAP, diag(H⁻¹)).
type laplaceInit struct{ mean, variance []float64 }

func (in laplaceInit) Init(_ context.Context, _ langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	for j := range dst {
		dst[j] = in.mean[j] + math.Sqrt(in.variance[j])*rng.NormFloat64()
	}
	return nil
}

// commonLength returns the trace's draws per parameter, cut to the shortest
// chain when a chain stopped early (the diagnostics need equal lengths), and
// a note saying so.
func commonLength(tr *langevin.Trace) ([][][]float64, string) {
	params := tr.Params()
	n, longest := math.MaxInt, 0
	for _, c := range tr.Draws {
		n = min(n, len(c))
		longest = max(longest, len(c))
	}
	if n == longest {
		return params, ""
	}
	for j := range params {
		for c := range params[j] {
			params[j][c] = params[j][c][:n]
		}
	}
	return params, fmt.Sprintf("(a chain stopped early: the table uses the first %d draws of each chain)", n)
}
