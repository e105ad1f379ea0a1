package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

// mlpFlags are the flags of langevin run for --model mlp and for the
// generated data sets (--data moons|spirals|gap1d|fashion-mnist).
type mlpFlags struct {
	hidden, activation, likelihood string
	classes                        int
	noiseVar                       float64
	learnNoise                     bool
	mapIters, mapBatch             int
	mapLR                          float64
	n                              int     // points of a generated data set
	noise                          float64 // its noise
	k                              int     // spiral arms
}

func addMLPFlags(fs *flag.FlagSet, f *runFlags) {
	m := &f.mlp
	fs.StringVar(&m.hidden, "hidden", "100,10", "MLP hidden layer widths, comma-separated (\"\" or 0: no hidden layer)")
	fs.StringVar(&m.activation, "activation", "relu", "MLP activation: relu|tanh|sigmoid|identity")
	fs.StringVar(&m.likelihood, "likelihood", "", "MLP likelihood: bernoulli|categorical|gaussian (default: bernoulli for 0/1 labels, categorical for more classes, gaussian otherwise)")
	fs.IntVar(&m.classes, "classes", 0, "categorical likelihood: number of classes `K` (0: largest label + 1)")
	fs.Float64Var(&m.noiseVar, "noise-var", 1, "Gaussian likelihood: noise variance σ² (the initial value with --learn-noise)")
	fs.BoolVar(&m.learnNoise, "learn-noise", false, "Gaussian likelihood: sample log σ² too (prior N(0, 1))")
	fs.IntVar(&m.mapIters, "map-iters", 20000, "MLP --init map: Adam iterations")
	fs.IntVar(&m.mapBatch, "map-batch", 32, "MLP --init map: Adam minibatch size")
	fs.Float64Var(&m.mapLR, "map-lr", 1e-3, "MLP --init map: Adam learning rate")
	fs.IntVar(&m.n, "n", 1000, "generated data (--data moons|spirals|gap1d): number of points `N`; fashion-mnist: use the first N training images (default all)")
	fs.Float64Var(&m.noise, "noise", 0.1, "generated data: noise sd (moons: of the points, spirals: of the angle, gap1d: of y)")
	fs.IntVar(&m.k, "k", 3, "--data spirals: number of arms (classes)")
}

// validateMLP checks the MLP flags and sets the MLP's defaults: --init map
// and --precond none unless given (the Laplace approximation needs the
// Hessian of a large network).
func (f *runFlags) validateMLP() error {
	if f.model != "mlp" {
		return nil
	}
	m := &f.mlp
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
	}
	if !f.set["init"] {
		f.init = "map"
	}
	if !f.set["precond"] {
		f.precond = "none"
	}
	if f.precond == "laplace" || f.init == "laplace" {
		return inputErrorf("--model mlp: --init laplace and --precond laplace are not available (use --init map|prior|zero, --precond none)")
	}
	return nil
}

func parseHidden(s string) ([]int, error) {
	if s == "" || s == "0" {
		return nil, nil
	}
	h, err := parseInts("hidden", s)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// generatedData returns the generated or installed data sets named by
// --data (moons, spirals, gap1d, fashion-mnist) and reports whether name is
// one of them. fashion-mnist also returns its test set.
func generatedData(f *runFlags, name string) (train, test *data.Dataset, ok bool, err error) {
	m := &f.mlp
	switch strings.ToLower(name) {
	case "moons":
		train, err = data.Moons(m.n, m.noise, f.seed)
	case "spirals":
		if m.k < 2 {
			return nil, nil, true, inputErrorf("--k %d: expected at least 2 arms", m.k)
		}
		train, err = data.Spirals(m.k, m.n/m.k, m.noise, f.seed)
	case "gap1d":
		train, err = data.Gap1D(m.n, m.noise, f.seed)
	case "fashion-mnist":
		if train, err = data.FashionMNIST(data.FashionMNISTDir, true); err != nil {
			return nil, nil, true, inputErrorf("--data fashion-mnist: %v (install the Debian package dataset-fashion-mnist)", err)
		}
		if f.set["n"] {
			if m.n < 1 || m.n > train.Len() {
				return nil, nil, true, inputErrorf("--n %d: expected 1 ≤ N ≤ %d training images", m.n, train.Len())
			}
			idx := make([]int, m.n)
			for i := range idx {
				idx[i] = i
			}
			train = train.Subset(idx)
		}
		test, err = data.FashionMNIST(data.FashionMNISTDir, false)
	default:
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, true, inputErrorf("--data %s: %v", name, err)
	}
	return train, test, true, nil
}

// mlpOptions returns the MLP settings of the flags for training labels y.
func mlpOptions(f *runFlags, y []float64) (model.MLPOptions, error) {
	m := &f.mlp
	hidden, _ := parseHidden(m.hidden)
	act, _ := model.ParseActivation(m.activation)
	opt := model.MLPOptions{Hidden: hidden, Activation: act, Classes: m.classes, NoiseVar: m.noiseVar, LearnNoise: m.learnNoise}
	if f.set["prior-scale"] {
		opt.PriorScale = []float64{f.priorScale}
	}
	if m.likelihood == "" {
		opt.Likelihood = guessLikelihood(y)
	} else {
		opt.Likelihood, _ = model.ParseLikelihood(m.likelihood)
	}
	return opt, nil
}

// guessLikelihood is bernoulli for labels in {0, 1} (or ±1), categorical for
// other small non-negative integers, gaussian otherwise.
func guessLikelihood(y []float64) model.Likelihood {
	if model.CheckLabels(y) == nil {
		return model.LikBernoulli
	}
	for _, v := range y {
		if v < 0 || v != float64(int(v)) || v > 1000 {
			return model.LikGaussian
		}
	}
	return model.LikCategorical
}

func buildMLP(f *runFlags, train *data.Dataset) (*model.MLP, error) {
	opt, err := mlpOptions(f, train.Y)
	if err != nil {
		return nil, err
	}
	m, err := model.NewMLP(train.X, train.Y, opt)
	if err != nil {
		return nil, inputErrorf("--data %s: %v", f.data, err)
	}
	return m, nil
}

// printMLPPredictive prints the predict package's metrics of the posterior
// predictive and of the MAP network on the test set.
func printMLPPredictive(w io.Writer, m *model.MLP, tr *langevin.Trace, mapTheta []float64, test *data.Dataset) {
	rows := tr.Rows()
	draws := make([][]float64, len(rows))
	for i, r := range rows {
		draws[i] = r[:m.Dim()]
	}
	if m.NumClasses() == 0 {
		reg, err := predict.Regress(m, draws, test.X, 0.95)
		if err != nil {
			fmt.Fprintf(w, "test set: %v\n\n", err)
			return
		}
		printRegression(w, reg, test.Y)
		return
	}
	fmt.Fprintf(w, "test set (%d rows)   %9s %9s %9s %9s\n", test.Len(), "accuracy", "NLL", "Brier", "ECE")
	show := func(name string, th [][]float64) {
		c, err := predict.Classify(m, th, test.X, predict.ClassifyOptions{})
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", name, err)
			return
		}
		mt, err := predict.Evaluate(c.Probs, test.Y, 0)
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", name, err)
			return
		}
		fmt.Fprintf(w, "  %-18s %9.4f %9.4f %9.4f %9.4f\n", name, mt.Accuracy, mt.NLL, mt.Brier, mt.ECE)
	}
	show(fmt.Sprintf("BMA (%d draws)", len(draws)), draws)
	if mapTheta != nil {
		show("MAP network", [][]float64{mapTheta})
	}
	fmt.Fprintln(w)
}

func printRegression(w io.Writer, reg *predict.Regression, y []float64) {
	var se float64
	inF, inY := 0, 0
	for i, v := range y {
		se += (reg.Mean[i] - v) * (reg.Mean[i] - v)
		if v >= reg.ObsLower[i] && v <= reg.ObsUpper[i] {
			inY++
		}
		if v >= reg.Lower[i] && v <= reg.Upper[i] {
			inF++
		}
	}
	n := float64(len(y))
	fmt.Fprintf(w, "test set (%d rows): RMSE %.4g; coverage of the %g%% predictive interval %.3f (of f's interval %.3f)\n\n",
		len(y), math.Sqrt(se/n), 100*reg.Level, float64(inY)/n, float64(inF)/n)
}
