package experiment

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "mandt-table1",
		Summary: "Mandt et al. 2017 Table 1: KL(Gaussian fit to iterates ‖ Laplace) for constant SGD, SGD-d, SGD-f, SGLD, SGFS-d, SGFS-f (Wine, Skin, Protein)",
		Run:     cliRun(runMandtTable1),
	})
	Register(Experiment{
		Name:    "mandt-iasg",
		Summary: "Mandt et al. 2017 §7.2: IASG vs SGLD marginal variances against the exact posterior by passes through the data (random starts, repeats and min/max over coordinates: mandt-fig4; the covariance estimates: mandt-fig5)",
		Run:     cliRun(runMandtIASG),
	})
}

// table1Methods are the rows of Table 1, in the paper's order.
var table1Methods = []string{"csgd", "csgd-diag", "csgd-full", "sgld", "sgfs-diag", "sgfs", "bbvi"}

var table1Labels = map[string]string{
	"csgd": "constant SGD", "csgd-diag": "constant SGD-d", "csgd-full": "constant SGD-f",
	"sgld": "SGLD", "sgfs-diag": "SGFS-d", "sgfs": "SGFS-f", "bbvi": "BBVI",
}

// table1BBVI is the BBVI row: the mean and (diagonal) covariance of a
// mean-field Gaussian fitted by black-box VI with reparameterisation
// gradients (approx.FitVI; Kucukelbir et al. 2015), from the mode, with
// minibatches of s, iters steps, Polyak averaging over the second half and
// steps ρₜ = ρ₀(100 + t)^−0.6: ρ₀ = 0.1 (approx.VI's default) for short runs
// (Skin: 5,000 steps), ρ₀ = 0.01 for the runs of 10⁶ steps (with 0.1 the
// mean drifts off along Protein's ill-conditioned directions; KL > 10⁵).
var table1BBVI = func(ctx context.Context, m langevin.Model, lap *approx.LaplaceApprox, s, iters int, seed uint64) ([]float64, *mat.SymDense, error) {
	rho0 := 0.1
	if iters > 100_000 {
		rho0 = 0.01
	}
	v := approx.VI{Step: schedule.Polynomial{A: rho0, B: 100, Gamma: 0.6}, Batch: sampler.Minibatch{Size: s}, AverageFrom: iters / 2}
	q, err := approx.FitVI(ctx, m, v, lap.Mean, iters, langevin.ChainRNG(seed, 1))
	if err != nil {
		return nil, nil, err
	}
	cov := mat.NewSymDense(len(q.SD), nil)
	for j, sd := range q.SD {
		cov.SetSym(j, j, sd*sd)
	}
	return q.Mean, cov, nil
}

type table1Data struct {
	name     string
	file     string
	opt      data.CSVOptions
	logistic bool
	batch    int
	iters    int // iterations per method (burn-in: a tenth more)
	paper    []float64
}

var table1Sets = []table1Data{
	{"Wine", "winequality-white.csv", data.CSVOptions{Target: "quality"}, false, 100, 1_000_000,
		[]float64{18.7, 14.0, 0.7, 2.9, 12.8, 0.8, 44.7}},
	{"Skin", "Skin_NonSkin.txt.gz", data.CSVOptions{NoHeader: true, Target: "-1"}, true, 10000, 5_000,
		[]float64{0.471, 0.921, 0.005, 0.905, 0.864, 0.005, 5.74}},
	{"Protein", "CASP.csv.gz", data.CSVOptions{Target: "RMSD"}, false, 100, 1_000_000,
		[]float64{1000.9, 678.4, 1.8, 4.5, 597.4, 1.3, 478.1}},
}

// loadTable1Data reads a data set, standardises its features and builds
// the model: known-noise linear regression (σ² = 1) or logistic regression,
// both with prior precision 1 (the quadratic regulariser ½‖θ‖²) and an
// intercept.
func loadTable1Data(dir string, ds table1Data) (langevin.Model, error) {
	path := filepath.Join(dir, ds.file)
	d, err := data.ReadCSV(path, ds.opt)
	if err != nil {
		return nil, Usagef("--data-dir %s: %v (set --data-dir or $LANGEVIN_DATA to the folder with %s)", dir, err, ds.file)
	}
	data.FitScaler(d.X).Transform(d.X)
	if ds.logistic {
		// Skin: label 1 = skin, 2 = non-skin.
		y := make([]float64, len(d.Y))
		for i, v := range d.Y {
			if v == 1 {
				y[i] = 1
			}
		}
		return model.NewLogistic(d.X, y, model.LogisticOptions{PriorScale: 1})
	}
	return model.NewLinearFixedNoise(d.X, d.Y, model.LinearFixedNoiseOptions{})
}

// table1Sampler returns the sampler of a method with its rate: eq. 15 and
// its preconditioned forms for constant SGD, ε = 2 for SGFS, and for SGLD
// (constant step) the largest rate at which the injected noise 2η still
// dominates the gradient noise η²Cov(ĝ) in every direction,
// η = 2/λ_max(Cov ĝ).
func table1Sampler(method string, m langevin.Model, V *mat.SymDense, s int) (langevin.Sampler, error) {
	n := m.Len()
	mb := sampler.Minibatch{Size: s, Replace: true}
	switch method {
	case "csgd":
		return sampler.MandtConstSGD(V, n, mb), nil
	case "csgd-diag":
		return sampler.MandtConstSGDDiag(V, n, mb), nil
	case "csgd-full":
		return sampler.MandtConstSGDFull(V, n, mb)
	case "sgfs":
		return sampler.SGFS{Batch: mb, GradCov: V, Eps: 2}, nil
	case "sgfs-diag":
		return sampler.SGFS{Batch: mb, GradCov: V, Eps: 2, Diag: true}, nil
	default: // sgld
		var eig mat.EigenSym
		eig.Factorize(V, false)
		vals := eig.Values(nil)
		nf := float64(n)
		cmax := nf * nf / float64(s) * vals[len(vals)-1]
		return sampler.SGLD{Step: schedule.Constant(2 / cmax), Batch: mb}, nil
	}
}

type table1Cell struct {
	kl      float64
	secs    float64
	err     error
	skipped bool
}

func runMandtTable1(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("experiment mandt-table1", flag.ContinueOnError)
	dir := fs.String("data-dir", dataDir(), "folder with winequality-white.csv, Skin_NonSkin.txt.gz and CASP.csv.gz (default $LANGEVIN_DATA or /work/shared/data)")
	seed := fs.Uint64("seed", 1, "random `seed`")
	scale := fs.Float64("scale", 1, "multiply every method's iteration count by `F`")
	only := fs.String("datasets", "Wine,Skin,Protein", "comma-separated `LIST` of data sets to run")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	if !(*scale > 0) || math.IsInf(*scale, 0) {
		return Usagef("--scale %v: expected a positive number", *scale)
	}
	var sets []table1Data
	for _, name := range strings.Split(*only, ",") {
		found := false
		for _, ds := range table1Sets {
			if strings.EqualFold(ds.name, strings.TrimSpace(name)) {
				sets = append(sets, ds)
				found = true
			}
		}
		if !found {
			return Usagef("--datasets %q: unknown data set %q: expected Wine, Skin or Protein", *only, name)
		}
	}
	ctx := context.Background()
	results := make([][]table1Cell, len(sets))
	for k, ds := range sets {
		start := time.Now()
		m, err := loadTable1Data(*dir, ds)
		if err != nil {
			return err
		}
		lap, err := approx.Laplace(ctx, m, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", ds.name, err)
		}
		V := mat.NewSymDense(m.Dim(), nil)
		if err := sampler.GradCov(m, lap.Mean, V); err != nil {
			return fmt.Errorf("%s: %w", ds.name, err)
		}
		iters := max(1000, int(float64(ds.iters)**scale))
		fmt.Fprintf(stderr, "mandt-table1: %s (N = %d, d = %d, S = %d): %d iterations per method…\n", ds.name, m.Len(), m.Dim(), ds.batch, iters)
		row := make([]table1Cell, len(table1Methods))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
		for i, method := range table1Methods {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				row[i] = table1Run(ctx, method, m, lap, V, ds.batch, iters, *seed+uint64(i))
			}()
		}
		wg.Wait()
		results[k] = row
		fmt.Fprintf(stderr, "mandt-table1: %s done in %.1f s\n", ds.name, time.Since(start).Seconds())
	}
	// The table: ours beside the paper's.
	fmt.Fprintf(stdout, "KL(N(mean, cov of the iterates) ‖ Laplace posterior), nats — ours (paper)\n\n")
	fmt.Fprintf(stdout, "%-16s", "method")
	for _, ds := range sets {
		fmt.Fprintf(stdout, " %24s", ds.name)
	}
	fmt.Fprintln(stdout)
	for i, method := range table1Methods {
		fmt.Fprintf(stdout, "%-16s", table1Labels[method])
		for k, ds := range sets {
			c := results[k][i]
			var ours string
			switch {
			case c.skipped:
				ours = "—"
			case c.err != nil:
				ours = "error"
			default:
				ours = fmt.Sprintf("%.3g", c.kl)
			}
			fmt.Fprintf(stdout, " %24s", fmt.Sprintf("%s (%g)", ours, ds.paper[i]))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout)
	ok := true
	for k, ds := range sets {
		for i, c := range results[k] {
			if c.err != nil {
				fmt.Fprintf(stdout, "%s, %s: %v\n", ds.name, table1Methods[i], c.err)
				ok = false
			}
		}
		sc, full := results[k][0].kl, results[k][2].kl
		ratio := sc / full
		verdict := "OK"
		if !(ratio >= 10) {
			verdict = "FAILED"
			ok = false
		}
		fmt.Fprintf(stdout, "%s: scalar / full-rank KL = %.3g / %.3g = %.0f× (want ≥ 10×): %s\n", ds.name, sc, full, ratio, verdict)
	}
	if !ok {
		return fmt.Errorf("mandt-table1: the ordering full-rank ≪ scalar did not reproduce on every data set")
	}
	return nil
}

// table1Run runs one method from the mode and returns the KL divergence of
// the Gaussian fitted to its iterates from the Laplace approximation.
func table1Run(ctx context.Context, method string, m langevin.Model, lap *approx.LaplaceApprox, V *mat.SymDense, s, iters int, seed uint64) table1Cell {
	start := time.Now()
	if method == "bbvi" {
		mean, cov, err := table1BBVI(ctx, m, lap, s, iters, seed)
		if err != nil {
			return table1Cell{err: err}
		}
		kl, err := diag.KLGaussian(mean, cov, lap.Mean, lap.Cov)
		return table1Cell{kl: kl, err: err, secs: time.Since(start).Seconds()}
	}
	smp, err := table1Sampler(method, m, V, s)
	if err != nil {
		return table1Cell{err: err}
	}
	burn := iters / 10
	thin := max(1, iters/50000)
	tr, err := langevin.Run(ctx, m, smp, langevin.Options{
		Chains: 1, Iters: burn + iters, BurnIn: burn, Thin: thin, Seed: seed, Workers: 1,
		Init: langevin.InitAt{Points: [][]float64{lap.Mean}},
	})
	if err != nil {
		return table1Cell{err: err}
	}
	draws := make([][]float64, len(tr.Draws[0]))
	for i, x := range tr.Draws[0] {
		draws[i] = x[:m.Dim()]
	}
	mean, cov, err := diag.FitGaussian(draws)
	if err != nil {
		return table1Cell{err: err}
	}
	kl, err := diag.KLGaussian(mean, cov, lap.Mean, lap.Cov)
	return table1Cell{kl: kl, err: err, secs: time.Since(start).Seconds()}
}

// runMandtIASG reproduces §7.2: linear regression with N = 10,000, D = 10,
// covariates N(0, I), prior precision 1, weights from the prior and unit
// noise; IASG (S = 10, window N/S, η = 0.05/λ_max(Λ)) against SGLD with
// Welling–Teh's ε_t = ε₀/√(1000 + t) (our η_t = ε_t/2), by passes through
// the data, and NUTS (full-data gradients: one leapfrog step is one pass;
// 100 warm-up iterations of step-size adaptation, identity metric — the
// posterior is nearly isotropic here) on the same budget of passes.
func runMandtIASG(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("experiment mandt-iasg", flag.ContinueOnError)
	seed := fs.Uint64("seed", 1, "random `seed` (data and chains)")
	passes := fs.Int("passes", 1000, "passes `P` through the data")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *passes < 2 {
		return Usagef("--passes %d: expected at least 2", *passes)
	}
	const s = 10
	m, err := iasgData(*seed)
	if err != nil {
		return err
	}
	n, d := m.Len(), m.Dim()
	mode, cov := m.Posterior()
	lap, err := approx.LaplaceAt(m, mode)
	if err != nil {
		return err
	}
	var eig mat.EigenSym
	eig.Factorize(lap.Prec, false)
	vals := eig.Values(nil)
	lmax := vals[len(vals)-1]
	exMin, exMax := math.Inf(1), 0.0
	for j := 0; j < d; j++ {
		exMin, exMax = math.Min(exMin, cov.At(j, j)), math.Max(exMax, cov.At(j, j))
	}
	T := n / s
	iasg, err := sampler.MandtIASG(lap.Prec, sampler.Minibatch{Size: s}, 0)
	if err != nil {
		return err
	}
	// SGLD: ε₀ such that η₀λ_max = 0.1 at t = 0.
	eps0 := 0.2 * math.Sqrt(1000) / lmax
	sgld := sampler.SGLD{Step: schedule.Polynomial{A: eps0 / 2, B: 1000, Gamma: 0.5}, Batch: sampler.Minibatch{Size: s}}
	start := time.Now()
	ia, err := iasg.NewChain(m, mode, langevin.ChainRNG(*seed, 1))
	if err != nil {
		return err
	}
	sg, err := sgld.NewChain(m, mode, langevin.ChainRNG(*seed, 2))
	if err != nil {
		return err
	}
	const nutsWarmup = 100
	nuts := sampler.NUTS{Step: 1 / math.Sqrt(lmax), Adapt: sampler.Adapt{Warmup: nutsWarmup, Metric: sampler.MetricFixed}}
	nu, err := nuts.NewChain(m, mode, langevin.ChainRNG(*seed, 3))
	if err != nil {
		return err
	}
	nuStats := make([]float64, len(nuts.StatNames()))
	nuIter, nuPasses, nuWarmPasses := 0, 0, 0
	var iaAcc, sgAcc, nuAcc momentAcc
	iaAcc.init(d)
	sgAcc.init(d)
	nuAcc.init(d)
	fmt.Fprintf(stdout, "§7.2: N = %d, D = %d, S = %d; exact posterior marginal variances: smallest %.4g, largest %.4g\n", n, d, s, exMin, exMax)
	fmt.Fprintf(stdout, "IASG: window T = N/S = %d, η = 0.05/λ_max = %.3g; SGLD: ε_t = ε₀/√(1000+t), ε₀ = %.3g (η_t = ε_t/2); both start at the mode,\n", T, iasg.Eta, eps0)
	fmt.Fprintf(stdout, "the first pass is burn-in. NUTS: full-data gradients (one leapfrog step = one pass), %d warm-up iterations (step size), from the mode.\n\n", nutsWarmup)
	fmt.Fprintf(stdout, "%8s  %12s %12s  %12s %12s  %12s %12s   (relative error vs exact: IASG min/max, SGLD min/max, NUTS min/max)\n", "passes", "IASG min", "IASG max", "SGLD min", "SGLD max", "NUTS min", "NUTS max")
	next := 2
	for p := 1; p <= *passes; p++ {
		if err := ia.Step(); err != nil {
			return err
		}
		for k := 0; k < T; k++ {
			if err := sg.Step(); err != nil {
				return err
			}
			if p > 1 {
				sgAcc.add(sg.Position())
			}
		}
		if p > 1 {
			iaAcc.add(ia.Position())
		}
		// NUTS: iterations while its passes stay within the budget p.
		for nuPasses < p {
			if err := nu.Step(); err != nil {
				return err
			}
			nu.Stats(nuStats)
			nuPasses += int(nuStats[4]) // n_leapfrog__
			if nuIter++; nuIter > nutsWarmup {
				nuAcc.add(nu.Position())
			} else {
				nuWarmPasses = nuPasses
			}
		}
		if p == next || p == *passes {
			imin, imax := iaAcc.minMax()
			smin, smax := sgAcc.minMax()
			nmin, nmax := math.NaN(), math.NaN()
			if nuAcc.n >= 2 {
				nmin, nmax = nuAcc.minMax()
			}
			fmt.Fprintf(stdout, "%8d  %12.4g %12.4g  %12.4g %12.4g  %12.4g %12.4g   %+6.2f %+6.2f %+6.2f %+6.2f %+6.2f %+6.2f\n", p, imin, imax, smin, smax, nmin, nmax,
				imin/exMin-1, imax/exMax-1, smin/exMin-1, smax/exMax-1, nmin/exMin-1, nmax/exMax-1)
			next *= 2
		}
	}
	fmt.Fprintf(stdout, "\nNUTS: warm-up took %d passes, then %d draws in %d passes (%.1f passes per draw).\n",
		nuWarmPasses, nuAcc.n, nuPasses-nuWarmPasses, float64(nuPasses-nuWarmPasses)/float64(max(nuAcc.n, 1)))
	fmt.Fprintf(stdout, "(%.1f s)\n", time.Since(start).Seconds())
	return nil
}

// momentAcc accumulates per-coordinate means and variances (Welford).
type momentAcc struct {
	n        int
	mean, m2 []float64
}

func (a *momentAcc) init(d int) { a.mean, a.m2 = make([]float64, d), make([]float64, d) }

func (a *momentAcc) add(x []float64) {
	a.n++
	for j, v := range x {
		dv := v - a.mean[j]
		a.mean[j] += dv / float64(a.n)
		a.m2[j] += dv * (v - a.mean[j])
	}
}

// minMax returns the smallest and largest sample variance over coordinates.
func (a *momentAcc) minMax() (lo, hi float64) {
	lo = math.Inf(1)
	for _, v := range a.m2 {
		v /= float64(max(1, a.n-1))
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}
