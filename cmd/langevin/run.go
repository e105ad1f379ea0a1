package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
	"github.com/langevin-go/langevin/stancsv"
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

	set map[string]bool // flags given on the command line
}

func newRunFlagSet(f *runFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.data, "data", "australian", "training data: a CSV or LIBSVM `FILE` (.gz read transparently) or an embedded data set's NAME (see langevin datasets)")
	fs.StringVar(&f.test, "test", "", "test data `FILE`; without it a seeded split of --data is held out (--test-frac)")
	fs.Float64Var(&f.testFrac, "test-frac", 0.2, "fraction of --data held out as test set when --test is not given")
	fs.StringVar(&f.target, "target", "", "target `COL`umn: a name, or a 1-based column number (-1 = last); default the last column")
	fs.StringVar(&f.format, "format", "auto", "data format: auto|csv|libsvm")
	fs.StringVar(&f.model, "model", "logistic", "model: linear|logistic")
	fs.BoolVar(&f.intercept, "intercept", true, "add an intercept")
	fs.Float64Var(&f.priorScale, "prior-scale", 0, "prior scale `S`: σ₀ of the N(0, σ₀²I) prior (logistic, default 1), or √v of the N(μ, σ²vI) prior (linear, default 10)")
	fs.StringVar(&f.sampler, "sampler", "sgld", "algorithm: gd|sgd|sgld")
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
	train, test, err := loadData(&f)
	if err != nil {
		return err
	}
	m, pred, err := buildModel(&f, train)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The MAP is the baseline, and the start or the preconditioner's centre.
	mapTheta, mapErr := sampler.FindMAP(ctx, m, nil)
	usePrecond := f.sampler == "sgld" && f.precond == "laplace"
	needMAP := f.init == "map" || f.init == "laplace" || usePrecond
	if mapErr != nil && needMAP {
		return fmt.Errorf("finding the MAP (needed by --init map|laplace and --precond laplace): %w", mapErr)
	}
	var laplace, precond []float64
	if f.init == "laplace" || usePrecond {
		if laplace, err = sampler.LaplacePrecond(m, mapTheta); err != nil {
			return err
		}
	}
	if usePrecond {
		precond = laplace
	}
	s, err := buildSampler(&f, m, precond)
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
	fmt.Fprintf(stdout, "%s regression on %s (N = %d train, %d test, d = %d), %s, %d chains\n\n",
		f.model, train.Source, train.Len(), testLen(test), m.Dim(), describeSampler(&f), f.chains)
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
	if test != nil && test.Len() > 0 {
		printPredictive(stdout, &f, pred, tr, mapTheta, test)
	}
	printWhere(stdout, &f, tr, table, elapsed, mapTheta)

	if f.out != "" {
		files, err := writeOutput(&f, tr, table, m)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "written:  %s\n", files)
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
	for _, c := range []struct {
		name, v string
		allowed []string
	}{
		{"model", f.model, []string{"linear", "logistic"}},
		{"sampler", f.sampler, []string{"gd", "sgd", "sgld"}},
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
	}
	return nil
}

// loadData reads the training data (a file or an embedded set) and the test
// data (a file, or a seeded split), checks labels and standardises.
func loadData(f *runFlags) (train, test *data.Dataset, err error) {
	full, err := readData(f, f.data, true)
	if err != nil {
		return nil, nil, err
	}
	if f.test != "" {
		train = full
		test, err = readData(f, f.test, false)
		if err != nil {
			return nil, nil, err
		}
		if test.Dim() != train.Dim() {
			return nil, nil, inputErrorf("--test %s: %d features, --data has %d", f.test, test.Dim(), train.Dim())
		}
	} else {
		train, test = data.TrainTest(full, f.testFrac, f.seed)
	}
	if f.batch > train.Len() {
		return nil, nil, inputErrorf("--batch %d: expected at most N = %d training rows (0: full batch)", f.batch, train.Len())
	}
	if f.standardize {
		sc := data.FitScaler(train.X)
		sc.Transform(train.X)
		if test != nil && test.Len() > 0 {
			sc.Transform(test.X)
		}
	}
	return train, test, nil
}

func readData(f *runFlags, path string, isTrain bool) (*data.Dataset, error) {
	flagName := "--data"
	if !isTrain {
		flagName = "--test"
	}
	var d *data.Dataset
	var err error
	isFile := true
	if _, statErr := os.Stat(path); statErr != nil && isTrain {
		if b, berr := data.Builtin(path); berr == nil {
			d, isFile = b, false
		} else if errors.Is(statErr, os.ErrNotExist) {
			return nil, inputErrorf("%s %s: no such file, and not an embedded data set (%s)", flagName, path, strings.Join(data.BuiltinNames(), ", "))
		}
	}
	headerLine := 1
	if isFile {
		format := f.format
		if format == "auto" {
			format = sniffFormat(path)
		}
		if format == "libsvm" {
			headerLine = 0
			d, err = data.ReadLIBSVM(path, 0)
		} else {
			d, err = data.ReadCSV(path, data.CSVOptions{Target: f.target})
		}
		if err != nil {
			return nil, inputError{err}
		}
	} else {
		headerLine = 0
		if f.target != "" && f.target != d.Target && f.target != "-1" {
			return nil, inputErrorf("--target %s: the embedded data set %s has target %q", f.target, path, d.Target)
		}
	}
	if d.Len() == 0 {
		return nil, inputErrorf("%s %s: no data rows", flagName, path)
	}
	if f.model == "logistic" {
		if err := checkLabels(d, headerLine); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// sniffFormat guesses LIBSVM when the first line's fields after the first
// are all index:value pairs.
func sniffFormat(path string) string {
	if strings.HasSuffix(path, ".libsvm") || strings.HasSuffix(path, ".svm") {
		return "libsvm"
	}
	fh, err := os.Open(path)
	if err != nil {
		return "csv"
	}
	defer fh.Close()
	var r io.Reader = fh
	br := bufio.NewReader(fh)
	r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "csv" // the reader reports the error
		}
		r = zr
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(r, buf)
	line := string(buf[:n])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "csv"
	}
	for _, fl := range fields[1:] {
		if !strings.Contains(fl, ":") {
			return "csv"
		}
	}
	return "libsvm"
}

// checkLabels reports the first label that is not 0/1 or −1/+1, naming the
// file and line.
func checkLabels(d *data.Dataset, headerLines int) error {
	seen01, seenPM := false, false
	for i, y := range d.Y {
		where := fmt.Sprintf("%s:%d", d.Source, i+1+headerLines)
		switch y {
		case 0:
			seen01 = true
		case -1:
			seenPM = true
		case 1:
		default:
			return inputErrorf("%s: label %v in column %q: logistic regression expects labels 0/1 or −1/+1", where, y, d.Target)
		}
		if seen01 && seenPM {
			return inputErrorf("%s: label %v in column %q: labels mix 0/1 with −1/+1", where, y, d.Target)
		}
	}
	return nil
}

// predictor is what the CLI needs of a model to score a test set.
type predictor interface {
	PredictMean(draws [][]float64, X *mat.Dense, dst []float64) []float64
	LogPredictiveDensity(draws [][]float64, X *mat.Dense, y []float64) float64
}

func buildModel(f *runFlags, train *data.Dataset) (langevin.Model, predictor, error) {
	switch f.model {
	case "linear":
		opt := model.LinearOptions{NoIntercept: !f.intercept}
		if f.set["prior-scale"] {
			opt.V = f.priorScale * f.priorScale
		}
		m, err := model.NewLinear(train.X, train.Y, opt)
		if err != nil {
			return nil, nil, inputError{err}
		}
		return m, m, nil
	default:
		opt := model.LogisticOptions{NoIntercept: !f.intercept, PriorScale: f.priorScale}
		m, err := model.NewLogistic(train.X, train.Y, opt)
		if err != nil {
			return nil, nil, inputError{err}
		}
		return m, m, nil
	}
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
		return schedule.Cyclical{Eta0: step, Iters: f.iters, Cycles: f.cycles}
	default:
		return schedule.Polynomial{A: step, B: f.stepB, Gamma: f.decay}
	}
}

// defaultStep is the step size when --step is not given. For SGLD with the
// Laplace preconditioner, η = 0.1·B/N: the preconditioned gradient noise
// η²M Var(ĝ) is then about ηN/(2B) ≈ 5% of the injected noise 2ηM. Without
// a preconditioner the same rule is divided by N (standardised features give
// posterior variances of order 1/N). For GD and SGD, η = 1/N.
func defaultStep(f *runFlags, n int) float64 {
	if f.sampler == "sgld" {
		b := f.batch
		if b == 0 {
			b = n
		}
		eta := 0.1 * float64(b) / float64(n)
		if f.precond != "laplace" {
			eta /= float64(n)
		}
		return eta
	}
	return 1 / float64(n)
}

func buildSampler(f *runFlags, m langevin.Model, precond []float64) (langevin.Sampler, error) {
	sched := buildSchedule(f, m.Len())
	if err := sched.Validate(); err != nil {
		return nil, inputErrorf("--step/--schedule: %v", err)
	}
	clip := sampler.Clipping{Norm: f.clip, Value: f.clipValue}
	mb := sampler.Minibatch{Size: f.batch, Replace: f.replace}
	switch f.sampler {
	case "gd":
		return sampler.SGD{Step: sched, Clip: clip}, nil
	case "sgd":
		return sampler.SGD{Step: sched, Batch: mb, Clip: clip}, nil
	default:
		return sampler.SGLD{Step: sched, Batch: mb, Temperature: f.temperature, Clip: clip, NoiseEvery: f.noiseEvery, Precond: precond}, nil
	}
}

func describeSampler(f *runFlags) string {
	var sb strings.Builder
	sb.WriteString(strings.ToUpper(f.sampler))
	if f.sampler != "gd" {
		if f.batch == 0 {
			sb.WriteString(" (full batch")
		} else {
			fmt.Fprintf(&sb, " (batch %d", f.batch)
		}
		sb.WriteString(")")
	}
	return sb.String()
}

func printPredictive(w io.Writer, f *runFlags, pred predictor, tr *langevin.Trace, mapTheta []float64, test *data.Dataset) {
	rows := tr.Rows()
	y := test.Y
	fmt.Fprintf(w, "test set (%d rows)        posterior predictive   MAP (optimisation)\n", test.Len())
	post := pred.PredictMean(rows, test.X, nil)
	var mp []float64
	if mapTheta != nil {
		mp = pred.PredictMean([][]float64{mapTheta}, test.X, nil)
	}
	metric := func(name string, fn func(p []float64) float64) {
		fmt.Fprintf(w, "  %-24s %-22s", name, fmtMetric(fn(post)))
		if mp != nil {
			fmt.Fprintf(w, " %s", fmtMetric(fn(mp)))
		}
		fmt.Fprintln(w)
	}
	if f.model == "logistic" {
		metric("accuracy", func(p []float64) float64 { return model.Accuracy(p, y) })
	} else {
		metric("RMSE", func(p []float64) float64 {
			var ss float64
			for i, pi := range p {
				ss += (pi - y[i]) * (pi - y[i])
			}
			return math.Sqrt(ss / float64(len(p)))
		})
	}
	fmt.Fprintf(w, "  %-24s %-22s", "mean log pred. density", fmtMetric(pred.LogPredictiveDensity(rows, test.X, y)))
	if mapTheta != nil {
		fmt.Fprintf(w, " %s", fmtMetric(pred.LogPredictiveDensity([][]float64{mapTheta}, test.X, y)))
	}
	fmt.Fprint(w, "\n\n")
}

func fmtMetric(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// printWhere says where the draws went: counts, time, ESS per second, step
// sizes, the noise crossover, clipping and warnings.
func printWhere(w io.Writer, f *runFlags, tr *langevin.Trace, table diag.Table, elapsed time.Duration, mapTheta []float64) {
	kept := tr.NumDraws()
	fmt.Fprintf(w, "draws:    %d chains × %d kept (iterations %d–%d, thin %d); %d burn-in iterations per chain discarded\n",
		tr.NumChains(), kept/max(1, tr.NumChains()), f.burnin+1, f.iters, f.thin, f.burnin)
	total := f.iters * f.chains
	minESS := math.Inf(1)
	for _, s := range table {
		if !math.IsNaN(s.ESSBulk) {
			minESS = math.Min(minESS, s.ESSBulk)
		}
	}
	secs := elapsed.Seconds()
	fmt.Fprintf(w, "time:     %.2f s for %d iterations (%.0f ns/iteration, %d workers); min bulk-ESS %.0f, %.0f per second\n",
		secs, total, secs*1e9/float64(total), min(f.chains, runtimeWorkers()), minESS, minESS/secs)

	if steps, ok := tr.Stat("stepsize__"); ok && len(steps[0]) > 0 {
		first := steps[0][0]
		if len(tr.Warmup[0].Stats) > 0 {
			first = tr.Warmup[0].Stats[0][tr.StatIndex("stepsize__")]
		}
		last := steps[0][len(steps[0])-1]
		fmt.Fprintf(w, "steps:    η from %.3g (iteration 1) to %.3g (iteration %d), %s schedule\n", first, last, f.iters, f.schedule)
	}
	printCrossover(w, f, tr)
	if f.clip > 0 || f.clipValue > 0 {
		if cl, ok := tr.Stat("clipped__"); ok {
			var n float64
			for _, c := range cl {
				if len(c) > 0 {
					n += c[len(c)-1]
				}
			}
			frac := n / float64(total)
			fmt.Fprintf(w, "clipping: fired in %.0f of %d steps (%.1f%%)", n, total, 100*frac)
			if frac > 0.05 {
				fmt.Fprint(w, " — frequent clipping biases the result: raise --clip or lower --step")
			}
			fmt.Fprintln(w)
		}
	}
	if f.sampler != "sgld" {
		// Optimisers: the draws are a trajectory, not posterior samples.
		fmt.Fprintf(w, "optimiser: %s iterates are a trajectory, not posterior draws: ESS and R-hat do not apply\n", strings.ToUpper(f.sampler))
		if mapTheta != nil {
			var worst float64
			for _, c := range tr.Draws {
				if len(c) == 0 {
					continue
				}
				last := c[len(c)-1]
				for j := 0; j < tr.Dim; j++ {
					worst = math.Max(worst, math.Abs(last[j]-mapTheta[j]))
				}
			}
			fmt.Fprintf(w, "          final iterates: max |θ − MAP| = %.3g over chains and parameters (MAP by L-BFGS)\n", worst)
		}
		return
	}
	var warn []string
	for _, s := range table {
		if s.RHat > 1.01 {
			warn = append(warn, fmt.Sprintf("%s R-hat %.3f > 1.01", s.Name, s.RHat))
		}
		if s.ESSBulk < 100*float64(tr.NumChains()) {
			warn = append(warn, fmt.Sprintf("%s bulk-ESS %.0f < %d (100 per chain)", s.Name, s.ESSBulk, 100*tr.NumChains()))
		}
	}
	if len(warn) > 0 {
		if len(warn) > 6 {
			warn = append(warn[:6], fmt.Sprintf("and %d more", len(warn)-6))
		}
		fmt.Fprintf(w, "warnings: %s\n", strings.Join(warn, "; "))
	}
}

// printCrossover reports the iteration from which the injected noise
// dominates the stochastic-gradient noise (Welling & Teh §4: where sampling
// takes over from optimisation), as the median over chains. Single estimates
// of the gradient noise are noisy, so both are averaged over windows of 1/50
// of a chain's saved draws; the crossover is the start of the window after
// the last one in which the gradient noise exceeds the injected noise.
func printCrossover(w io.Writer, f *runFlags, tr *langevin.Trace) {
	ki, kg := tr.StatIndex("noise_inj__"), tr.StatIndex("noise_grad__")
	if ki < 0 || kg < 0 || f.noiseEvery == 0 || f.batch == 0 {
		return
	}
	var cross []int
	var lastInj, lastGrad float64
	for c := range tr.Draws {
		stats := append(append([][]float64(nil), tr.Warmup[c].Stats...), tr.Stats[c]...)
		iters := append(append([]int(nil), tr.Warmup[c].Iters...), tr.Iters[c]...)
		n := len(stats)
		if n == 0 {
			continue
		}
		win := max(1, n/50)
		at := iters[0]
		var inj, grad float64
		for lo := 0; lo < n; lo += win {
			hi := min(n, lo+win)
			var si, sg float64
			cnt := 0
			for _, st := range stats[lo:hi] {
				if !math.IsNaN(st[kg]) { // not estimated yet
					si += st[ki]
					sg += st[kg]
					cnt++
				}
			}
			if cnt == 0 {
				continue
			}
			inj, grad = si/float64(cnt), sg/float64(cnt)
			if grad > inj {
				at = -1
				if hi < n {
					at = iters[hi]
				}
			}
		}
		if at > 0 {
			cross = append(cross, at)
		}
		lastInj += inj / float64(len(tr.Draws))
		lastGrad += grad / float64(len(tr.Draws))
	}
	fmt.Fprintf(w, "noise:    over the last draws, injected noise variance %.3g vs stochastic-gradient noise %.3g per coordinate\n", lastInj, lastGrad)
	if len(cross) < len(tr.Draws) {
		fmt.Fprintf(w, "          in %d of %d chains the gradient noise still exceeds the injected noise at the end: those draws are not posterior samples (lower --step, raise --batch or --iters)\n", len(tr.Draws)-len(cross), len(tr.Draws))
		return
	}
	sort.Ints(cross)
	med := cross[len(cross)/2]
	fmt.Fprintf(w, "          injected noise dominates from iteration %d (median over chains)", med)
	if med > f.burnin {
		fmt.Fprint(w, " — after burn-in: early draws are still optimisation, raise --burnin")
	}
	fmt.Fprintln(w)
}

func writeOutput(f *runFlags, tr *langevin.Trace, table diag.Table, m langevin.Model) (string, error) {
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return "", err
	}
	cols := append(append([]string(nil), tr.StatNames...), tr.Names...)
	row := make([]float64, len(cols))
	for c := range tr.Draws {
		path := filepath.Join(f.out, fmt.Sprintf("chain-%d.csv", c+1))
		fh, err := os.Create(path)
		if err != nil {
			return "", err
		}
		cfg := stancsv.Config{
			Model: f.model, Method: "sample", Algorithm: f.sampler,
			NumSamples: f.iters - f.burnin, NumWarmup: f.burnin, Thin: f.thin,
			Seed: f.seed, ChainID: c + 1,
			Extra: [][2]string{
				{"data", f.data}, {"schedule", f.schedule}, {"step", strconv.FormatFloat(buildSchedule(f, m.Len()).At(1), 'g', -1, 64)},
				{"step_a", strconv.FormatFloat(stepA(f, m.Len()), 'g', -1, 64)}, {"step_b", fmtF(f.stepB)}, {"decay", fmtF(f.decay)},
				{"batch", strconv.Itoa(f.batch)}, {"replace", strconv.FormatBool(f.replace)},
				{"temperature", fmtF(f.temperature)}, {"init", f.init},
				{"standardize", strconv.FormatBool(f.standardize)}, {"intercept", strconv.FormatBool(f.intercept)},
			},
		}
		sw, err := stancsv.NewWriter(fh, cfg, cols)
		if err != nil {
			fh.Close()
			return "", err
		}
		for i, th := range tr.Draws[c] {
			copy(row, tr.Stats[c][i])
			copy(row[len(tr.StatNames):], th)
			if err := sw.Write(row); err != nil {
				fh.Close()
				return "", err
			}
		}
		if err := sw.Flush(); err != nil {
			fh.Close()
			return "", err
		}
		if err := fh.Close(); err != nil {
			return "", err
		}
	}
	sp := filepath.Join(f.out, "summary.csv")
	fh, err := os.Create(sp)
	if err != nil {
		return "", err
	}
	if err := table.WriteCSV(fh); err != nil {
		fh.Close()
		return "", err
	}
	if err := fh.Close(); err != nil {
		return "", err
	}
	files := filepath.Join(f.out, "chain-1.csv")
	if len(tr.Draws) > 1 {
		files += fmt.Sprintf(" … chain-%d.csv", len(tr.Draws))
	}
	return files + ", " + sp, nil
}

func stepA(f *runFlags, n int) float64 {
	if f.set["step"] {
		return f.step
	}
	return defaultStep(f, n)
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

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
