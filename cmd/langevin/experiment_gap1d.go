package main

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

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

func init() {
	registerExperiment(experiment{
		name:    "gap1d",
		summary: "1-D regression with a gap: tanh BNN (Gaussian likelihood), MAP start, cyclical SGLD; interval widths in and out of the gap, for several N",
		run:     runGap1D,
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
}

type gapResult struct {
	n                     int
	widthGap, widthData   float64 // mean 95% predictive interval widths (with noise)
	fwidthGap, fwidthData float64 // the same without observation noise
	rmse                  float64 // of the predictive mean against the true function, on the data's range
	grid                  *mat.Dense
	reg                   *predict.Regression
}

func parseInts(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, inputErrorf("--%s %q: expected comma-separated positive integers", name, s)
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
	fs.StringVar(&f.out, "out", "", "write DIR/gap1d-N.csv (x, true mean, predictive mean, intervals)")
	if err := parseFlags(fs, args, stdout); err != nil {
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
		return inputErrorf("--noise %v: expected σ > 0", f.noise)
	case !(f.eps0 > 0):
		return inputErrorf("--eps0 %v: expected a positive step", f.eps0)
	case f.cycles < 1 || f.cycleLen < 1 || f.batch < 1 || f.mapIters < 1:
		return inputErrorf("--cycles, --cycle-len, --batch, --map-iters: expected positive numbers")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stdout, "1-D regression with a gap in (%g, %g): y = sin(2x) + x/2 + N(0, %g²), %d-%s-1 tanh MLP, prior N(0, I)\n",
		data.Gap1DGap[0], data.Gap1DGap[1], f.noise, 1, strings.ReplaceAll(hidden, ",", "-"))
	fmt.Fprintf(stdout, "cyclical SGLD from the Adam MAP: %d cycles × %d updates, batch %d, ε₀ = %g (η₀ = ε₀/N)\n\n", f.cycles, f.cycleLen, f.batch, f.eps0)
	fmt.Fprintf(stdout, "%6s %14s %14s %8s %14s %14s %8s %8s\n", "N", "width gap", "width data", "ratio", "f-width gap", "f-width data", "ratio", "RMSE")
	for _, n := range f.ns {
		r, err := gapRun(ctx, &f, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%6d %14.4f %14.4f %8.2f %14.4f %14.4f %8.2f %8.4f\n", n, r.widthGap, r.widthData, r.widthGap/r.widthData,
			r.fwidthGap, r.fwidthData, r.fwidthGap/r.fwidthData, r.rmse)
		if f.out != "" {
			if err := writeGap(filepath.Join(f.out, fmt.Sprintf("gap1d-%d.csv", n)), r); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "\nwidths: mean 95%% interval over x in the gap's middle |x| < 0.25 and over the data's range 0.5 ≤ |x| ≤ 2;\n")
	fmt.Fprintf(stdout, "\"width\" includes the observation noise, \"f-width\" is the function's (epistemic) interval.\n")
	return nil
}

func gapRun(ctx context.Context, f *gapFlags, n int) (*gapResult, error) {
	train, err := data.Gap1D(n, f.noise, f.seed)
	if err != nil {
		return nil, inputError{err}
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
	r := &gapResult{n: n, grid: G, reg: reg}
	var nGap, nData int
	var se float64
	for i := 0; i < k; i++ {
		x := math.Abs(G.At(i, 0))
		w, fw := reg.ObsUpper[i]-reg.ObsLower[i], reg.Upper[i]-reg.Lower[i]
		switch {
		case x < 0.25:
			r.widthGap += w
			r.fwidthGap += fw
			nGap++
		case x >= 0.5 && x <= 2:
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
