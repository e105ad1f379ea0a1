package experiment

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
	"github.com/langevin-go/langevin/stancsv"
)

func init() {
	Register(Experiment{
		Name:    "credit",
		Summary: "the seed report's sampler comparison on Australian credit: MALA, RWM, SGLD (+ NUTS), accuracy and ESS/s",
		Run:     cliRun(cmdCredit),
	})
}

// creditOptions are the settings of the credit experiment.
type creditOptions struct {
	Seed   uint64 // split and chains
	Chains int    // chains per method (the report ran one)
	Draws  int    // post-burn-in draws per chain (the report: 5000)
	Out    string // if not empty, DIR/METHOD/chain-*.csv and summary.csv
	// Start is where the chains start: "map" (the default: the table's
	// numbers) or "zero" (θ = 0, far from the posterior: the burn-in the
	// report's Figure 3 shows is then visible in credit-traces).
	Start string
}

// creditMethod is one sampler of the comparison with its results.
type creditMethod struct {
	Name    string // MALA, RWM, SGLD, NUTS
	Setting string // the settings, in the report's and langevin's conventions
	BurnIn  int
	Sampler langevin.Sampler
	Init    langevin.Initializer

	Trace      *langevin.Trace
	Table      diag.Table
	Accuracy   float64 // test accuracy of the posterior mean θ̄
	MedianESS  float64 // median bulk-ESS over the parameters
	MinESS     float64 // minimum bulk-ESS over the parameters
	MeanAccept float64 // mean accept_stat__ after burn-in
	Sampling   float64 // CPU seconds of post-burn-in sampling, summed over chains
	Total      float64 // CPU seconds, burn-in included, summed over chains
	Wall       float64 // wall seconds of the run (chains one after the other)

	// The report's numbers (NaN where it has none).
	ReportAccuracy, ReportMedianESS, ReportMinESS float64
}

// MinESSPerSec is the minimum bulk-ESS per second of sampling.
func (m *creditMethod) MinESSPerSec() float64 { return m.MinESS / m.Sampling }

// creditResult is the outcome of the credit experiment: the data, the model
// and each method's trace and scores.
type creditResult struct {
	Opts        creditOptions
	Train, Test *data.Dataset
	Model       *model.Logistic
	MAP         []float64
	Methods     []*creditMethod

	// The optimisation baseline of the report's Table 1: the MAP (L-BFGS,
	// approx.FindMAP) used as a point estimate.
	MAPAccuracy float64
	MAPSeconds  float64
}

// creditMethods returns the report's three samplers and NUTS, with the
// report's settings: MALA ε = 0.02 in the report's convention
// θ' = θ + (ε/2)∇log π + √ε ξ, i.e. η = 0.01; RWM σ = 0.1; SGLD ε₀ = 0.05
// (Welling & Teh), i.e. η₀ = 0.025, decaying as (1+t)^−0.55, batch 10;
// burn-ins 100 / 500 / 2000; none of them preconditioned (the report's
// MALA and RWM ESS are matched that way, see README); NUTS with Stan's defaults (1000 warm-up
// iterations, dual averaging to 0.8, windowed diagonal metric). MALA* is
// langevin's tuned MALA: the Laplace diagonal preconditioner and dual
// averaging toward 0.574 over a 1000-iteration warm-up; MALA+ the same with
// the dense Laplace covariance as preconditioner, and NUTS+ NUTS with Stan's
// dense metric adaptation.
func creditMethods(pre []float64, cov *mat.SymDense) []*creditMethod {
	nan := math.NaN()
	return []*creditMethod{
		{Name: "MALA", Setting: "ε = 0.02 (η = 0.01), constant", BurnIn: 100,
			Sampler:        sampler.MALA{Step: 0.01, Adapt: sampler.Adapt{Tune: sampler.TuneNone}},
			ReportAccuracy: 0.8696, ReportMedianESS: 627, ReportMinESS: 103},
		{Name: "RWM", Setting: "σ = 0.1", BurnIn: 500,
			Sampler:        sampler.RWM{Step: 0.1, Adapt: sampler.Adapt{Tune: sampler.TuneNone}},
			ReportAccuracy: 0.8623, ReportMedianESS: 85.8, ReportMinESS: 27.3},
		{Name: "SGLD", Setting: "ε₀ = 0.05 (η₀ = 0.025), decay (1+t)^-0.55, B = 10", BurnIn: 2000,
			Sampler:        sampler.SGLD{Step: schedule.Polynomial{A: 0.025, B: 1, Gamma: 0.55}, Batch: sampler.Minibatch{Size: 10}},
			ReportAccuracy: 0.8623, ReportMedianESS: 41.4, ReportMinESS: 12.3},
		{Name: "MALA*", Setting: "tuned: dual averaging to 0.574, Laplace diagonal M", BurnIn: 1000,
			Sampler:        sampler.MALA{Precond: pre, Adapt: sampler.Adapt{Warmup: 1000}},
			ReportAccuracy: nan, ReportMedianESS: nan, ReportMinESS: nan},
		{Name: "NUTS", Setting: "Stan's defaults: warm-up 1000, δ = 0.8, diag metric", BurnIn: 1000,
			Sampler:        sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000}},
			ReportAccuracy: nan, ReportMedianESS: nan, ReportMinESS: nan},
		{Name: "MALA+", Setting: "tuned: dual averaging to 0.574, Laplace dense M", BurnIn: 1000,
			Sampler:        sampler.MALA{PrecondFull: cov, Adapt: sampler.Adapt{Warmup: 1000}},
			ReportAccuracy: nan, ReportMedianESS: nan, ReportMinESS: nan},
		{Name: "NUTS+", Setting: "warm-up 1000, δ = 0.8, dense metric (Stan's dense_e)", BurnIn: 1000,
			Sampler:        sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000, Metric: sampler.MetricDense}},
			ReportAccuracy: nan, ReportMedianESS: nan, ReportMinESS: nan},
	}
}

// creditProblem is the credit comparison's problem: the 80/20 split of the
// embedded Australian credit data seeded by split, standardised by the
// training columns, and logistic regression with an intercept and a N(0, I)
// prior on the training rows.
func creditProblem(split uint64) (train, test *data.Dataset, m *model.Logistic, err error) {
	train, test = data.TrainTest(data.Australian(), 0.2, split)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	m, err = model.NewLogistic(train.X, train.Y, model.LogisticOptions{PriorScale: 1})
	return train, test, m, err
}

// runCredit runs the comparison: logistic regression with intercept and a
// N(0, I) prior on the standardised, seeded 80/20 split of the embedded
// Australian credit data; every method draws opts.Draws post-burn-in draws
// per chain from the MAP.
func runCredit(ctx context.Context, opts creditOptions) (*creditResult, error) {
	if opts.Chains == 0 {
		opts.Chains = 1
	}
	if opts.Draws == 0 {
		opts.Draws = 5000
	}
	train, test, m, err := creditProblem(opts.Seed)
	if err != nil {
		return nil, err
	}
	mapStart := time.Now()
	mapTheta, err := approx.FindMAP(ctx, m, nil)
	if err != nil {
		return nil, err
	}
	mapSecs := time.Since(mapStart).Seconds()
	pre, err := approx.LaplacePrecond(m, mapTheta)
	if err != nil {
		return nil, err
	}
	cov, err := approx.LaplaceCov(m, mapTheta)
	if err != nil {
		return nil, err
	}
	res := &creditResult{Opts: opts, Train: train, Test: test, Model: m, MAP: mapTheta, Methods: creditMethods(pre, cov), MAPSeconds: mapSecs}
	if res.MAPAccuracy, err = testAccuracy(m, [][]float64{mapTheta}, test); err != nil {
		return res, err
	}
	theta0 := mapTheta
	if opts.Start == "zero" {
		theta0 = make([]float64, m.Dim())
	}
	for _, meth := range res.Methods {
		if err := meth.run(ctx, m, theta0, opts); err != nil {
			return res, fmt.Errorf("%s: %w", meth.Name, err)
		}
		mean := meth.Trace.Mean(nil)[:m.Dim()]
		c, err := predict.Classify(m, [][]float64{mean}, test.X, predict.ClassifyOptions{})
		if err != nil {
			return res, err
		}
		met, err := predict.Evaluate(c.Probs, test.Y, 0)
		if err != nil {
			return res, err
		}
		meth.Accuracy = met.Accuracy
	}
	return res, nil
}

func (meth *creditMethod) run(ctx context.Context, m langevin.Model, theta0 []float64, opts creditOptions) error {
	// Time each chain's burn-in and sampling from the progress callback,
	// called at the end of the burn-in and at the end of the chain. Chains
	// run one after the other (Workers 1), so that the process's CPU time
	// between the calls is the chain's: the clock Stan reports.
	iters := meth.BurnIn + opts.Draws
	var last, warmEnd time.Duration
	o := langevin.Options{
		Chains: opts.Chains, Iters: iters, BurnIn: meth.BurnIn, Seed: opts.Seed, Workers: 1, SaveWarmup: true,
		Init:          timedInit{langevin.InitAt{Points: [][]float64{theta0}}, func(int) { last = processCPU() }},
		ProgressEvery: meth.BurnIn,
		Progress: func(c, done int) {
			now := processCPU()
			if done == meth.BurnIn {
				warmEnd = now
			}
			if done == iters {
				meth.Sampling += (now - warmEnd).Seconds()
				meth.Total += (now - last).Seconds()
			}
		},
	}
	start := time.Now()
	tr, err := langevin.Run(ctx, m, meth.Sampler, o)
	meth.Wall = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	meth.Trace = tr
	params := tr.Params()[:tr.Dim]
	meth.Table = diag.Summarize(tr.Names[:tr.Dim], params)
	ess := make([]float64, len(meth.Table))
	for j, s := range meth.Table {
		ess[j] = s.ESSBulk
	}
	sort.Float64s(ess)
	meth.MinESS = ess[0]
	n := len(ess)
	meth.MedianESS = (ess[(n-1)/2] + ess[n/2]) / 2
	if a, ok := tr.Stat("accept_stat__"); ok {
		var s float64
		k := 0
		for _, c := range a {
			for _, v := range c {
				s += v
				k++
			}
		}
		meth.MeanAccept = s / float64(k)
	}
	return nil
}

// timedInit calls mark(chain) when a chain starts.
type timedInit struct {
	langevin.Initializer
	mark func(chain int)
}

func (t timedInit) Init(ctx context.Context, m langevin.Model, c int, rng *rand.Rand, dst []float64) error {
	t.mark(c)
	return t.Initializer.Init(ctx, m, c, rng, dst)
}

// print writes the comparison table beside the report's numbers.
func (r *creditResult) print(w io.Writer) {
	fmt.Fprintf(w, "Australian credit: logistic regression, N(0, I) prior, N = %d train / %d test (seeded 80/20 split, seed %d, standardised), d = %d\n",
		r.Train.Len(), r.Test.Len(), r.Opts.Seed, r.Model.Dim())
	start := "the MAP"
	if r.Opts.Start == "zero" {
		start = "θ = 0"
	}
	fmt.Fprintf(w, "%d post-burn-in draws × %d chain(s) per method, started at %s\n\n", r.Opts.Draws, r.Opts.Chains, start)
	fmt.Fprintf(w, "%-5s %-58s %7s %7s %9s %9s %9s %9s %8s %10s\n", "", "setting", "burn-in", "accept", "test acc", "(report)", "ESS med", "(report)", "ESS min", "(report)")
	for _, m := range r.Methods {
		fmt.Fprintf(w, "%-5s %-58s %7d %7.3f %9.4f %9s %9.1f %9s %8.1f %10s\n", m.Name, m.Setting, m.BurnIn, m.MeanAccept,
			m.Accuracy, fmtReport(m.ReportAccuracy, "%.4f"), m.MedianESS, fmtReport(m.ReportMedianESS, "%.1f"), m.MinESS, fmtReport(m.ReportMinESS, "%.1f"))
	}
	fmt.Fprintf(w, "%-5s %-58s %7s %7s %9.4f %9s %9s %9s %8s %10s\n", "MAP", "optimisation: the MAP by L-BFGS as a point estimate", "–", "–", r.MAPAccuracy, "—", "–", "—", "–", "—")
	for _, m := range r.Methods {
		if m.Trace == nil {
			continue
		}
		acc, ok := m.Trace.Stat("accept_stat__")
		if !ok {
			continue
		}
		for _, s := range diag.StuckWarnings(m.Trace.Draws, acc, m.Trace.Dim) {
			fmt.Fprintf(w, "warning: %s: %s\n", m.Name, s)
		}
	}
	fmt.Fprintf(w, "\n%-5s %12s %12s %10s %14s %12s\n", "", "sampling s", "total s", "wall s", "min ESS/s", "µs/draw")
	for _, m := range r.Methods {
		fmt.Fprintf(w, "%-5s %12.3f %12.3f %10.3f %14.0f %12.1f\n", m.Name, m.Sampling, m.Total, m.Wall, m.MinESSPerSec(), 1e6*m.Sampling/float64(r.Opts.Draws*r.Opts.Chains))
	}
	fmt.Fprintf(w, "%-5s %12s %12.3f %10.3f %14s %12s\n", "MAP", "–", r.MAPSeconds, r.MAPSeconds, "–", "–")
	clock := "CPU time (as Stan 2.21's get_elapsed_time)"
	if !cpuClock {
		clock = "wall time"
	}
	fmt.Fprintf(w, "\nsampling s: post-burn-in %s summed over chains; total s: burn-in included; wall s: the whole run, chains one after\nthe other. min ESS/s = min bulk-ESS / sampling s. The report's accuracies are on its own split.\nMAP: the optimisation row of the report's Table 1 (its value is not reproduced here; MAP seconds are wall time).\n", clock)
}

func fmtReport(v float64, format string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

func cmdCredit(args []string, stdout, stderr io.Writer) error {
	var o creditOptions
	fs := flag.NewFlagSet("experiment credit", flag.ContinueOnError)
	fs.Uint64Var(&o.Seed, "seed", 1, "random `seed` of the split and the chains")
	fs.IntVar(&o.Chains, "chains", 1, "chains `K` per method (the report ran one)")
	fs.IntVar(&o.Draws, "draws", 5000, "post-burn-in draws `N` per chain")
	fs.StringVar(&o.Out, "out", "", "write DIR/METHOD/chain-*.csv (CmdStan format) and DIR/METHOD/summary.csv")
	fs.StringVar(&o.Start, "start", "map", "where the chains start: map, or zero (θ = 0: the burn-in of the report's Figure 3 shows in credit-traces)")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch {
	case o.Chains < 1:
		return Usagef("--chains %d: expected at least 1", o.Chains)
	case o.Draws < 10:
		return Usagef("--draws %d: expected at least 10", o.Draws)
	case o.Start != "map" && o.Start != "zero":
		return Usagef("--start %q: expected map or zero", o.Start)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := runCredit(ctx, o)
	if err != nil {
		return err
	}
	res.print(stdout)
	if o.Out != "" {
		for _, m := range res.Methods {
			cfg := stancsv.Config{Model: "logistic", Method: "sample", Algorithm: m.Name,
				NumSamples: o.Draws, NumWarmup: m.BurnIn, Thin: 1, Seed: o.Seed,
				Extra: [][2]string{{"data", "australian"}, {"batch", "10"}, {"init", "map"}, {"standardize", "true"}, {"intercept", "true"}}}
			files, err := writeTrace(filepath.Join(o.Out, m.Name), cfg, m.Trace, m.Table)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "written:  %s\n", files)
		}
		if err := writeCreditFigures(o.Out, res, stdout); err != nil { // experiment_credit_plots.go
			return err
		}
	}
	return nil
}
