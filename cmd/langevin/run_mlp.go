package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

// generatedData returns the generated or installed data sets named by
// --data (moons, spirals, gap1d, fashion-mnist) and reports whether name is
// one of them. fashion-mnist also returns its test set.
func generatedData(c *runConfig, name string) (train, test *data.Dataset, ok bool, err error) {
	switch strings.ToLower(name) {
	case "moons":
		train, err = data.Moons(c.n, c.noise, c.seed)
	case "spirals":
		if c.k < 2 {
			return nil, nil, true, inputErrorf("--k %d: expected at least 2 arms", c.k)
		}
		train, err = data.Spirals(c.k, c.n/c.k, c.noise, c.seed)
	case "gap1d":
		train, err = data.Gap1D(c.n, c.noise, c.seed)
	case "fashion-mnist":
		if train, err = data.FashionMNIST(data.FashionMNISTDir, true); err != nil {
			return nil, nil, true, inputErrorf("--data fashion-mnist: %v (install the Debian package dataset-fashion-mnist)", err)
		}
		if c.set["n"] {
			if c.n < 1 || c.n > train.Len() {
				return nil, nil, true, inputErrorf("--n %d: expected 1 ≤ N ≤ %d training images", c.n, train.Len())
			}
			idx := make([]int, c.n)
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
