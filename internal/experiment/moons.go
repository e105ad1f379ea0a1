package experiment

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

func init() {
	Register(Experiment{
		Name:    "moons",
		Summary: "report §5.2: 2-100-10-1 ReLU BNN on two moons, MAP start, cyclical SGLD, predictive uncertainty on a grid",
		Run:     cliRun(func(args []string, stdout, stderr io.Writer) error { return runToyClassifier("moons", args, stdout) }),
	})
}

// moonsFlags are the settings of the two-dimensional classification
// experiments (moons: the §5.2 run with the report's defaults; spirals).
type moonsFlags struct {
	name             string
	classes          int
	n                int
	noise            float64
	r0               float64 // spirals: inner radius of the arms
	seed             uint64
	eps0             float64
	cycles, cycleLen int
	batch            int
	temperature      float64
	mapIters         int
	mapBatch         int
	mapLR            float64
	ensemble         int
	explore          float64
	out              string
	burnCycles       int // cycles run and discarded before the kept ones; −1: relaxCycles
	chains           int

	mapStart []float64 // reuse this MAP network instead of fitting one (tests)
}

func newMoonsFlagSet(f *moonsFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("experiment "+f.name, flag.ContinueOnError)
	if f.name == "spirals" {
		fs.IntVar(&f.classes, "k", 3, "number of spiral arms (classes) `K`")
		fs.IntVar(&f.n, "n", 1500, "number of points `N`, N/K per arm (80% train, 20% test)")
		fs.Float64Var(&f.noise, "noise", 0.2, "sd of the angle noise (radians)")
		fs.Float64Var(&f.r0, "r0", 1.0/13, "inner radius of the arms, 0 ≤ r0 < 1 (data.SpiralsFrom; 1/13 as in the classic two-spirals benchmark, 0: CS231n's arms meeting at the origin)")
	} else {
		fs.IntVar(&f.n, "n", 1000, "number of points `N` (80% train, 20% test)")
		fs.Float64Var(&f.noise, "noise", 0.1, "noise sd of make_moons")
	}
	fs.Uint64Var(&f.seed, "seed", 1, "random `seed` (data, split, initialisation, chain)")
	fs.Float64Var(&f.eps0, "eps0", 0.02, "initial step ε₀ of each cycle in the report's convention, a step on the mean loss as in Zhang et al.'s cSGLD code (θ ← θ − ε∇L̄ + √(2ε/N)ξ): η₀ = ε₀/N")
	fs.IntVar(&f.cycles, "cycles", 200, "number of cycles; one draw is kept per cycle")
	fs.IntVar(&f.cycleLen, "cycle-len", 50, "updates per cycle")
	fs.IntVar(&f.batch, "batch", 5, "minibatch size `B`")
	fs.Float64Var(&f.temperature, "temperature", 1, "temperature `T` of the sampler")
	fs.IntVar(&f.mapIters, "map-iters", 20000, "Adam iterations of the MAP start")
	fs.IntVar(&f.mapBatch, "map-batch", 32, "Adam minibatch size")
	fs.Float64Var(&f.mapLR, "map-lr", 1e-3, "Adam learning rate")
	fs.IntVar(&f.ensemble, "ensemble", 5, "members `K` of the deep-ensemble baseline (independently initialised MAP networks; 0: none), and a second BNN chain is compared with the first")
	fs.Float64Var(&f.explore, "explore", 0, "fraction of each cycle in cSGLD's exploration phase (optimisation steps, no noise)")
	fs.IntVar(&f.burnCycles, "burnin-cycles", 0, "cycles run and discarded before the kept ones (0: the report's run; -1: enough for weights the data do not constrain to reach 95% of their prior variance from the MAP, see relaxCycles)")
	fs.IntVar(&f.chains, "chains", 1, "independent cSGLD chains from the MAP, each keeping one draw per cycle")
	fs.StringVar(&f.out, "out", "", "write DIR/grid.csv (grid points, BNN and MAP probabilities, entropies); moons also draws the report's Figure 8 and the display of its Figure 5 (drawn there for credit) into DIR/maps.png, DIR/predictive.png and DIR/index.html, spirals its Figures 9 and 10 into DIR/spirals.png, DIR/confusion.png and DIR/index.md")
	return fs
}

func (f *moonsFlags) validate() error {
	switch {
	case f.n < 10:
		return Usagef("--n %d: expected at least 10 points", f.n)
	case f.name == "spirals" && (f.classes < 2 || f.classes > f.n/5):
		return Usagef("--k %d: expected 2 ≤ K ≤ N/5", f.classes)
	case f.name == "spirals" && !(f.r0 >= 0 && f.r0 < 1):
		return Usagef("--r0 %v: expected an inner radius 0 ≤ r0 < 1", f.r0)
	case !(f.noise >= 0):
		return Usagef("--noise %v: expected sd ≥ 0", f.noise)
	case !(f.eps0 > 0):
		return Usagef("--eps0 %v: expected a positive step", f.eps0)
	case f.cycles < 1 || f.cycleLen < 1:
		return Usagef("--cycles %d, --cycle-len %d: expected positive numbers", f.cycles, f.cycleLen)
	case f.batch < 1:
		return Usagef("--batch %d: expected a positive size", f.batch)
	case !(f.temperature > 0):
		return Usagef("--temperature %v: expected a positive number", f.temperature)
	case !(f.explore >= 0 && f.explore < 1):
		return Usagef("--explore %v: expected 0 ≤ f < 1", f.explore)
	case f.burnCycles < -1:
		return Usagef("--burnin-cycles %d: expected a number of cycles ≥ 0, or -1 for the relaxation rule", f.burnCycles)
	case f.chains < 1:
		return Usagef("--chains %d: expected at least 1", f.chains)
	case f.ensemble < 0:
		return Usagef("--ensemble %d: expected K ≥ 0", f.ensemble)
	case f.mapIters < 1 || f.mapBatch < 1 || !(f.mapLR > 0):
		return Usagef("--map-iters %d, --map-batch %d, --map-lr %v: expected positive numbers", f.mapIters, f.mapBatch, f.mapLR)
	}
	return nil
}

func runToyClassifier(name string, args []string, stdout io.Writer) error {
	f := moonsFlags{name: name}
	fs := newMoonsFlagSet(&f)
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := moonsRun(ctx, &f)
	if err != nil {
		return err
	}
	var text bytes.Buffer
	r.printAll(&text, &f)
	stdout.Write(text.Bytes())
	if f.out != "" && f.name == "moons" {
		return writeMoonsFigures(f.out, r.model, r.mapTheta, r.draws, r.train, r.test, text.String(), stdout)
	}
	if f.out != "" && f.name == "spirals" {
		return writeSpiralsFigures(f.out, r, text.String(), stdout)
	}
	return nil
}

// printAll prints the experiment's results.
func (r *moonsResult) printAll(stdout io.Writer, f *moonsFlags) {
	fmt.Fprintf(stdout, "%s: N = %d (noise %g), %s ReLU, %s, prior N(0, I), %d train / %d test\n",
		r.source, f.n, f.noise, r.arch, r.lik, r.nTrain, r.nTest)
	fmt.Fprintf(stdout, "MAP: Adam, %d iterations, batch %d, lr %g (%.1fs)\n", f.mapIters, f.mapBatch, f.mapLR, r.mapTime.Seconds())
	fmt.Fprintf(stdout, "cSGLD: %d cycles × %d updates (exploration %g), batch %d, ε₀ = %g (η₀ = ε₀/N = %.3g), one draw per cycle, after %d burn-in cycles, %d chain(s) (%.1fs)\n",
		f.cycles, f.cycleLen, f.explore, f.batch, f.eps0, f.eps0/float64(r.nTrain), r.burnCycles, max(1, f.chains), r.sampleTime.Seconds())
	fmt.Fprintf(stdout, "stationarity: mean |θ|²/d: MAP %.3f; draws of chain 1 %.3f (first 10%% of its cycles %.3f, last 10%% %.3f); 2Ση/s² from the MAP to the last draw = %.3g,\n",
		r.mapNorm, r.drawNorm[0], r.drawNorm[1], r.drawNorm[2], r.relax)
	fmt.Fprintf(stdout, "  so a weight the data do not constrain has reached 1 − exp(−2Ση/s²) = %.0f%% of its prior variance\n\n", 100*(1-math.Exp(-r.relax)))
	r.print(stdout)
	fmt.Fprintf(stdout, "  ESS of the per-draw probabilities on those far grid points (median, bulk): %.1f of %d draws\n", r.farESS, r.classifierReport.draws)
	if r.ens != nil {
		fmt.Fprintf(stdout, "\nbaseline and function-space checks on the test set (%.1fs):\n", r.ensTime.Seconds())
		fmt.Fprintf(stdout, "  deep ensemble (%d MAP networks): accuracy %.4f, NLL %.4f, Brier %.4f, ECE %.4f; far-from-data entropy %.4f\n",
			f.ensemble, r.ens.Accuracy, r.ens.NLL, r.ens.Brier, r.ens.ECE, r.ensFar)
		fmt.Fprintf(stdout, "  BNN vs deep ensemble:          agreement %.4f, total variation %.4f\n", r.agreeEns, r.tvEns)
		fmt.Fprintf(stdout, "  BNN chain 1 vs chain 2 (seed+1): agreement %.4f, total variation %.4f\n", r.agreeChains, r.tvChains)
	}
}

type moonsResult struct {
	*classifierReport
	nTrain, nTest       int
	mapTheta            []float64
	model               *model.MLP
	draws               [][]float64 // the BNN's draws (one per cycle)
	train, test         *data.Dataset
	source, arch, lik   string
	mapTime, sampleTime time.Duration
	burnCycles          int
	mapNorm             float64    // |θ_MAP|²/d
	drawNorm            [3]float64 // mean |θ|²/d of the draws: all, first and last 10% of cycles (chain 1)
	relax               float64    // 2Ση/s² over the burn-in and the kept cycles (s = 1)
	farESS              float64    // median bulk-ESS of the per-draw probabilities on the far grid points

	ens                   *predict.Metrics // deep ensemble on the test set
	ensFar                float64
	agreeEns, tvEns       float64
	agreeChains, tvChains float64
	ensTime               time.Duration
}

func moonsRun(ctx context.Context, f *moonsFlags) (*moonsResult, error) {
	var full *data.Dataset
	var err error
	opt := model.MLPOptions{Hidden: []int{100, 10}, Activation: model.ReLU, Likelihood: model.LikBernoulli}
	G := grid(-3.5, 4.5, -3, 3.5, 0.1)
	if f.name == "spirals" {
		full, err = data.SpiralsFrom(f.classes, f.n/f.classes, f.r0, f.noise, f.seed)
		opt.Likelihood, opt.Classes = model.LikCategorical, f.classes
		G = grid(-3, 3, -3, 3, 0.075)
	} else {
		full, err = data.Moons(f.n, f.noise, f.seed)
	}
	if err != nil {
		return nil, &UsageError{err}
	}
	train, test := data.TrainTest(full, 0.2, f.seed)
	m, err := model.NewMLP(train.X, train.Y, opt)
	if err != nil {
		return nil, err
	}
	arch := fmt.Sprint(m.Layers())
	res := &moonsResult{nTrain: train.Len(), nTest: test.Len(), source: full.Source, lik: opt.Likelihood.String(),
		arch: strings.ReplaceAll(strings.Trim(arch, "[]"), " ", "-")}
	start := time.Now()
	mapTheta := f.mapStart
	if mapTheta == nil {
		if mapTheta, err = fitMAP(ctx, m, mapSettings{iters: f.mapIters, batch: f.mapBatch, lr: f.mapLR}, f.seed, 1000); err != nil {
			return nil, err
		}
	}
	res.mapTheta = mapTheta
	res.mapTime = time.Since(start)
	start = time.Now()
	eta0 := f.eps0 / float64(train.Len())
	res.burnCycles = f.burnCycles
	if res.burnCycles < 0 {
		res.burnCycles = relaxCycles(eta0, f.cycleLen, 1)
	}
	chains := max(1, f.chains)
	draws, err := sampleCyclic(ctx, m, mapTheta, cyclicSettings{
		eta0: eta0, cycles: f.cycles, cycleLen: f.cycleLen, batch: f.batch, temperature: f.temperature, explore: f.explore, chains: chains, burnCycles: res.burnCycles,
	}, f.seed)
	if err != nil {
		return nil, err
	}
	res.sampleTime = time.Since(start)
	res.mapNorm = sqNorm(mapTheta) / float64(m.Dim())
	res.drawNorm = normTrend(draws[:len(draws)/chains], m.Dim())
	res.relax = 2 * float64(res.burnCycles+f.cycles) * eta0 * float64(f.cycleLen+1) / 2
	res.model, res.draws, res.train, res.test = m, draws, train, test
	res.classifierReport, err = scoreClassifier(m, mapTheta, draws, train.X, test.X, test.Y, G, f.out)
	if err != nil {
		return nil, err
	}
	res.farESS = farESS(m, draws, chains, G, farFrom(G, train.X, 1.0))
	if err != nil || f.ensemble == 0 {
		return res, err
	}
	// Deep ensemble: K MAP networks from independent Glorot initialisations
	// (streams 1000, 1001, …; the MAP start above is member 1).
	start = time.Now()
	members := [][]float64{mapTheta}
	for k := 1; k < f.ensemble; k++ {
		th, err := fitMAP(ctx, m, mapSettings{iters: f.mapIters, batch: f.mapBatch, lr: f.mapLR}, f.seed, 1000+k)
		if err != nil {
			return nil, err
		}
		members = append(members, th)
	}
	ens, _ := predict.Classify(m, members, test.X, predict.ClassifyOptions{})
	bnn, _ := predict.Classify(m, draws, test.X, predict.ClassifyOptions{})
	if res.ens, err = predict.Evaluate(ens.Probs, test.Y, 0); err != nil {
		return nil, err
	}
	res.agreeEns, res.tvEns, _ = predict.Compare(bnn.Probs, ens.Probs)
	eg, _ := predict.Classify(m, members, G, predict.ClassifyOptions{})
	res.ensFar, _ = meanWhere(eg.Entropy, farFrom(G, train.X, 1.0))
	// A second BNN chain, from the second ensemble member with another seed.
	start2 := members[min(1, len(members)-1)]
	draws2, err := sampleCyclic(ctx, m, start2, cyclicSettings{
		eta0: eta0, cycles: f.cycles, cycleLen: f.cycleLen, batch: f.batch, temperature: f.temperature, explore: f.explore, chains: chains, burnCycles: res.burnCycles,
	}, f.seed+1)
	if err != nil {
		return nil, err
	}
	bnn2, _ := predict.Classify(m, draws2, test.X, predict.ClassifyOptions{})
	res.agreeChains, res.tvChains, _ = predict.Compare(bnn.Probs, bnn2.Probs)
	res.ensTime = time.Since(start)
	return res, nil
}

func sqNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// normTrend returns the mean of |θ|²/d over the draws, over the first 10%
// and over the last 10% of them (at least one each): a trend between the last
// two says the chain is still moving away from its start.
func normTrend(draws [][]float64, d int) [3]float64 {
	mean := func(ds [][]float64) float64 {
		var s float64
		for _, th := range ds {
			s += sqNorm(th) / float64(d)
		}
		return s / float64(len(ds))
	}
	k := max(1, len(draws)/10)
	return [3]float64{mean(draws), mean(draws[:k]), mean(draws[len(draws)-k:])}
}
