package experiment

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
)

func init() {
	Register(Experiment{
		Name:    "gap1d",
		Summary: "1-D regression with a gap: tanh BNN (Gaussian likelihood), MAP start, cyclical SGLD; interval widths in and out of the gap, for several N",
		Run:     cliRun(runGap1D),
	})
}

type gapFlags struct {
	ns               []int
	noise            float64
	hidden           []int
	seed             uint64
	eps0             float64
	cycles, cycleLen int
	batch            int
	mapIters         int
	out              string
	csgd             bool
	mala             bool
	malaIters        int
}

type gapResult struct {
	n                                       int
	widthGap, widthData                     float64 // mean 95% predictive interval widths (with noise)
	fwidthGap, fwidthData                   float64 // the same without observation noise
	rmse                                    float64 // of the predictive mean against the true function, on the data's range
	csgdEtaStar, csgdEta, csgdGap, csgdData float64 // constant SGD: η*, η used, function-interval widths
	malaGap, malaData, malaAccept           float64 // MALA: function-interval widths, mean acceptance
	grid                                    *mat.Dense
	reg                                     *predict.Regression
	malaReg, csgdReg                        *predict.Regression // nil when not run
	train                                   *data.Dataset
}

func parseInts(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, Usagef("--%s %q: expected comma-separated positive integers", name, s)
		}
		out = append(out, v)
	}
	return out, nil
}

func runGap1D(args []string, stdout, _ io.Writer) error {
	var f gapFlags
	var ns, hidden string
	fs := flag.NewFlagSet("experiment gap1d", flag.ContinueOnError)
	fs.StringVar(&ns, "n", "64,128,256,512", "training set sizes `N`, comma-separated (the lecture's study)")
	fs.Float64Var(&f.noise, "noise", 0.1, "observation noise sd σ (known to the model)")
	fs.StringVar(&hidden, "hidden", "50,50", "hidden layer widths")
	fs.Uint64Var(&f.seed, "seed", 1, "random `seed`")
	fs.Float64Var(&f.eps0, "eps0", 1e-3, "initial cyclical step ε₀ on the mean loss: η₀ = ε₀/N")
	fs.IntVar(&f.cycles, "cycles", 100, "number of cycles (one draw each)")
	fs.IntVar(&f.cycleLen, "cycle-len", 200, "updates per cycle")
	fs.IntVar(&f.batch, "batch", 32, "minibatch size `B` (at most N)")
	fs.IntVar(&f.mapIters, "map-iters", 10000, "Adam iterations of the MAP start")
	fs.BoolVar(&f.csgd, "csgd", true, "also run constant SGD as a sampler (Mandt et al.)")
	fs.BoolVar(&f.mala, "mala", true, "also run MALA (exact, full data; step tuned by dual averaging in the first 20%)")
	fs.IntVar(&f.malaIters, "mala-iters", 10000, "MALA iterations, warm-up included")
	fs.StringVar(&f.out, "out", "", "write DIR/gap1d-N.csv (x, true mean, predictive mean, intervals), the bands figure DIR/bands.png (and .svg) and DIR/index.md")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	var err error
	if f.ns, err = parseInts("n", ns); err != nil {
		return err
	}
	if f.hidden, err = parseInts("hidden", hidden); err != nil {
		return err
	}
	switch {
	case !(f.noise > 0):
		return Usagef("--noise %v: expected σ > 0", f.noise)
	case !(f.eps0 > 0):
		return Usagef("--eps0 %v: expected a positive step", f.eps0)
	case f.malaIters < 100:
		return Usagef("--mala-iters %d: expected at least 100", f.malaIters)
	case f.cycles < 1 || f.cycleLen < 1 || f.batch < 1 || f.mapIters < 1:
		return Usagef("--cycles, --cycle-len, --batch, --map-iters: expected positive numbers")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stdout, "1-D regression with a gap in (%g, %g): y = sin(2x) + x/2 + N(0, %g²), %d-%s-1 tanh MLP, prior N(0, I)\n",
		data.Gap1DGap[0], data.Gap1DGap[1], f.noise, 1, strings.ReplaceAll(hidden, ",", "-"))
	fmt.Fprintf(stdout, "cyclical SGLD from the Adam MAP: %d cycles × %d updates, batch %d, ε₀ = %g (η₀ = ε₀/N)\n\n", f.cycles, f.cycleLen, f.batch, f.eps0)
	fmt.Fprintf(stdout, "%5s %9s %10s %5s %11s %12s %5s %6s | %8s %8s %11s %12s %5s | %11s %12s %5s %6s\n", "N", "width gap", "width data", "ratio", "f-width gap", "f-width data", "ratio", "RMSE",
		"cSGD η*", "η used", "f-width gap", "f-width data", "ratio", "MALA f-gap", "f-width data", "ratio", "accept")
	var results []*gapResult
	for _, n := range f.ns {
		r, err := gapRun(ctx, &f, n)
		if err != nil {
			return err
		}
		results = append(results, r)
		fmt.Fprintf(stdout, "%5d %9.4f %10.4f %5.2f %11.4f %12.4f %5.2f %6.4f | %8.2g %8.2g %11.4f %12.4f %5.2f | %11.4f %12.4f %5.2f %6.3f\n", n, r.widthGap, r.widthData, r.widthGap/r.widthData,
			r.fwidthGap, r.fwidthData, r.fwidthGap/r.fwidthData, r.rmse, r.csgdEtaStar, r.csgdEta, r.csgdGap, r.csgdData, r.csgdGap/r.csgdData,
			r.malaGap, r.malaData, r.malaGap/r.malaData, r.malaAccept)
		if f.out != "" {
			if err := writeGap(filepath.Join(f.out, fmt.Sprintf("gap1d-%d.csv", n)), r); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "\nwidths: mean 95%% interval over x in the gap's middle |x| < 0.25 and over the data's range 0.5 ≤ |x| ≤ 2;\n")
	fmt.Fprintf(stdout, "\"width\" includes the observation noise, \"f-width\" is the function's (epistemic) interval.\n")
	fmt.Fprintf(stdout, "cSGD: constant SGD as a sampler (Mandt et al. 2017) from the MAP at η* = 2SD/(N² Tr V), V the per-observation\n")
	fmt.Fprintf(stdout, "gradient covariance at the MAP, halved until the iterates stay finite; %d iterations, every 100th kept after 10%%.\n", f.cycles*f.cycleLen)
	fmt.Fprintf(stdout, "MALA: exact (Metropolis-adjusted, full data) from the MAP, %d iterations, 20%% warm-up, every 100th kept.\n", f.malaIters)
	if f.out != "" {
		return writeGapBands(f.out, results, stdout)
	}
	return nil
}

// writeGapBands draws, for every N, the 95% bands of f(x) of cyclical SGLD,
// MALA and constant SGD (those that ran) with the data, into dir/bands.png
// (and .svg), and a page dir/index.md.
func writeGapBands(dir string, results []*gapResult, stdout io.Writer) error {
	pg, err := NewPage(dir, "gap1d: predictive bands of a tanh network on 1-D regression with a gap")
	if err != nil {
		return err
	}
	var tiles [][]*gplot.Plot
	for _, r := range results {
		x := mat.Col(nil, 0, r.grid)
		names := []string{"cyclical SGLD"}
		regs := []*predict.Regression{r.reg}
		if r.malaReg != nil {
			names, regs = append(names, "MALA"), append(regs, r.malaReg)
		}
		if r.csgdReg != nil {
			names, regs = append(names, "constant SGD"), append(regs, r.csgdReg)
		}
		var means, los, his [][]float64
		for _, g := range regs {
			means, los, his = append(means, g.Mean), append(los, g.Lower), append(his, g.Upper)
		}
		p, err := plot.Bands(fmt.Sprintf("N = %d", r.n), x, names, means, los, his, mat.Col(nil, 0, r.train.X), r.train.Y, data.Gap1DMean)
		if err != nil {
			return err
		}
		wp, err := plot.BandWidths(fmt.Sprintf("N = %d: width of the 95%% band", r.n), x, names, los, his, data.Gap1DGap)
		if err != nil {
			return err
		}
		tiles = append(tiles, []*gplot.Plot{p, wp})
	}
	if err := pg.Tiles("bands", "Posterior predictive mean and 95% band of the function f(x) (without the observation noise) by cyclical SGLD, MALA and constant SGD for each N, with the data and the true mean (dashed; left), and the width of each band by x (right; shaded: no data, (−0.5, 0.5)). Each panel's y range is its data's.", tiles, 32*vg.Centimeter, vg.Length(len(tiles))*10*vg.Centimeter); err != nil {
		return err
	}
	pg.Printf("\nCommand: `langevin experiment gap1d --out DIR`. The table the command prints gives the mean widths in the gap and over the data; the bands of every N are also in `gap1d-N.csv`.\n")
	return pg.Write(stdout)
}

func gapRun(ctx context.Context, f *gapFlags, n int) (*gapResult, error) {
	train, err := data.Gap1D(n, f.noise, f.seed)
	if err != nil {
		return nil, &UsageError{err}
	}
	m, err := model.NewMLP(train.X, train.Y, model.MLPOptions{Hidden: f.hidden, Activation: model.Tanh, NoiseVar: f.noise * f.noise})
	if err != nil {
		return nil, err
	}
	b := min(f.batch, n)
	mapTheta, err := fitMAP(ctx, m, mapSettings{iters: f.mapIters, batch: b, lr: 3e-3}, f.seed, 1000)
	if err != nil {
		return nil, err
	}
	draws, err := sampleCyclic(ctx, m, mapTheta, cyclicSettings{
		eta0: f.eps0 / float64(n), cycles: f.cycles, cycleLen: f.cycleLen, batch: b, temperature: 1, chains: 1,
	}, f.seed)
	if err != nil {
		return nil, err
	}
	const lo, hi, h = -2.5, 2.5, 0.01
	k := int(math.Round((hi-lo)/h)) + 1
	G := mat.NewDense(k, 1, nil)
	for i := 0; i < k; i++ {
		G.Set(i, 0, lo+float64(i)*h)
	}
	reg, err := predict.Regress(m, draws, G, 0.95)
	if err != nil {
		return nil, err
	}
	r := &gapResult{n: n, grid: G, reg: reg, train: train}
	mreg := reg // without MALA its columns repeat SGLD's
	if f.mala {
		warm := f.malaIters / 5
		run, err := langevin.Run(ctx, m, sampler.MALA{Adapt: sampler.Adapt{Warmup: warm}}, langevin.Options{
			Chains: 1, Iters: f.malaIters, BurnIn: warm, Thin: 100, Seed: f.seed + 11,
			Init: langevin.InitAt{Points: [][]float64{mapTheta}},
		})
		if err != nil {
			return nil, fmt.Errorf("MALA: %w", err)
		}
		var acc float64
		for _, st := range run.Stats[0] {
			acc += st[1]
		}
		r.malaAccept = acc / float64(len(run.Stats[0]))
		if mreg, err = predict.Regress(m, run.Draws[0], G, 0.95); err != nil {
			return nil, err
		}
		r.malaReg = mreg
	}
	creg := reg // without constant SGD its columns repeat SGLD's
	if f.csgd {
		csgd, err := constSGDDraws(ctx, m, mapTheta, b, f.cycles*f.cycleLen, f.seed)
		if err != nil {
			return nil, err
		}
		r.csgdEta, r.csgdEtaStar = csgd.eta, csgd.etaStar
		if creg, err = predict.Regress(m, csgd.draws, G, 0.95); err != nil {
			return nil, err
		}
		r.csgdReg = creg
	}
	var nGap, nData int
	var se float64
	for i := 0; i < k; i++ {
		x := math.Abs(G.At(i, 0))
		w, fw := reg.ObsUpper[i]-reg.ObsLower[i], reg.Upper[i]-reg.Lower[i]
		switch {
		case x < 0.25:
			r.csgdGap += creg.Upper[i] - creg.Lower[i]
			r.malaGap += mreg.Upper[i] - mreg.Lower[i]
			r.widthGap += w
			r.fwidthGap += fw
			nGap++
		case x >= 0.5 && x <= 2:
			r.csgdData += creg.Upper[i] - creg.Lower[i]
			r.malaData += mreg.Upper[i] - mreg.Lower[i]
			r.widthData += w
			r.fwidthData += fw
			d := reg.Mean[i] - data.Gap1DMean(G.At(i, 0))
			se += d * d
			nData++
		}
	}
	r.widthGap /= float64(nGap)
	r.fwidthGap /= float64(nGap)
	r.widthData /= float64(nData)
	r.fwidthData /= float64(nData)
	r.rmse = math.Sqrt(se / float64(nData))
	r.csgdGap /= float64(nGap)
	r.csgdData /= float64(nData)
	r.malaGap /= float64(nGap)
	r.malaData /= float64(nData)
	return r, nil
}

func writeGap(path string, r *gapResult) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	fmt.Fprintln(fh, "x,true_mean,mean,f_lower,f_upper,y_lower,y_upper")
	for i, m := range r.reg.Mean {
		x := r.grid.At(i, 0)
		fmt.Fprintf(fh, "%g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", x, data.Gap1DMean(x), m, r.reg.Lower[i], r.reg.Upper[i], r.reg.ObsLower[i], r.reg.ObsUpper[i])
	}
	return fh.Close()
}

type csgdResult struct {
	etaStar, eta float64 // the KL-optimal rate and the one used
	draws        [][]float64
}

// constSGDDraws runs constant SGD from theta0 at Mandt et al.'s KL-optimal
// rate for plain SGD, η* = 2SD/(N² Tr V) (sampler.OptimalStep, with the trace
// of the per-observation gradient covariance V computed directly rather than
// the d×d matrix), and keeps every 100th iterate after the first 10%.
func constSGDDraws(ctx context.Context, m *model.MLP, theta0 []float64, batch, iters int, seed uint64) (*csgdResult, error) {
	d, n := m.Dim(), m.Len()
	mean := make([]float64, d)
	sq := make([]float64, d)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	langevin.RowGrads(m, theta0, rows, langevin.RowTerms{}, make([]float64, d), nil, func(_ int, g []float64) error {
		for j, v := range g {
			mean[j] += v
			sq[j] += v * v
		}
		return nil
	})
	var tr float64
	for j := range mean {
		mu := mean[j] / float64(n)
		tr += sq[j]/float64(n) - mu*mu
	}
	eta := 2 * float64(batch) * float64(d) / (float64(n) * float64(n) * tr)
	res := &csgdResult{etaStar: eta}
	// η* ignores the stability limit 2/λ_max of the network's curvature;
	// halve it until constant SGD stays finite.
	for k := 0; k < 30; k++ {
		smp := sampler.ConstSGD{Eta: eta, Batch: sampler.Minibatch{Size: batch}}
		run, err := langevin.Run(ctx, m, smp, langevin.Options{
			Chains: 1, Iters: iters, BurnIn: iters / 10, Thin: 100, Seed: seed + 7,
			Init: langevin.InitAt{Points: [][]float64{theta0}},
		})
		if err == nil {
			res.eta, res.draws = eta, run.Draws[0]
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		eta /= 2
	}
	return nil, fmt.Errorf("constant SGD diverged at every step down to %g", eta)
}
