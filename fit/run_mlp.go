package fit

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

// GeneratedData returns the generated or installed data set named by --data
// (data.Generated) and reports whether name is one of them.
func GeneratedData(c *Config, name string) (train, test *data.Dataset, ok bool, err error) {
	n := c.N
	if strings.EqualFold(name, "fashion-mnist") && !c.Set["n"] {
		n = 0 // all images
	}
	train, test, ok, err = data.Generated(name, data.GenOptions{N: n, Noise: c.Noise, K: c.K, Seed: c.Seed, MaxBytes: dataBound()})
	if errors.Is(err, data.ErrTooLarge) {
		return nil, nil, true, InputErrorf("--data %s: %v (a quarter of the memory budget: of half this machine's memory, or of a quarter of ulimit -v): run it on a machine with more memory", name, err)
	}
	if err != nil {
		return nil, nil, true, InputErrorf("--data %s: %v", name, err)
	}
	return train, test, ok, nil
}

// PrintMLPPredictive prints the predict package's metrics of the posterior
// predictive and of the MAP network on the test set; the draws of a
// linearised Laplace approximation (glm not nil) predict through the network
// linearised at the MAP.
func PrintMLPPredictive(w io.Writer, m *model.MLP, glm *approx.GLMLaplace, tr *langevin.Trace, mapTheta []float64, test *data.Dataset, sc *data.Scaler) {
	rows := tr.Rows()
	draws := make([][]float64, len(rows))
	for i, r := range rows {
		draws[i] = r[:m.Dim()]
	}
	var reg predict.Regressor = m
	if glm != nil {
		reg = glm.Linearized()
	}
	defer printFunctionSpace(w, m, reg, tr, test)
	if m.NumClasses() == 0 {
		printMLPRegression(w, reg, draws, mapTheta, test, sc)
		return
	}
	fmt.Fprintf(w, "test set (%d rows)   %9s %9s %9s %9s\n", test.Len(), "accuracy", "NLL", "Brier", "ECE")
	show := func(name string, th [][]float64) float64 {
		c, err := predict.Classify(m, th, test.X, predict.ClassifyOptions{})
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", name, err)
			return math.NaN()
		}
		mt, err := predict.Evaluate(c.Probs, test.Y, 0)
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", name, err)
			return math.NaN()
		}
		fmt.Fprintf(w, "  %-18s %9.4f %9.4f %9.4f %9.4f\n", name, mt.Accuracy, mt.NLL, mt.Brier, mt.ECE)
		return mt.Accuracy
	}
	bma := show(fmt.Sprintf("BMA (%d draws)", len(draws)), draws)
	if mapTheta != nil {
		if mp := show("MAP network", [][]float64{mapTheta}); bma < mp-0.1 {
			// The safeguard against a silently wrong answer (constant SGD or
			// SWAG with a step too large for the network's curvature).
			fmt.Fprintf(w, "warning:  the posterior draws predict far worse than the MAP network (accuracy %.3f vs %.3f): the sampler did not stay near the posterior — a smaller --step (η·λmax(MH) well below 2), or --sampler sgld\n", bma, mp)
		}
	}
	fmt.Fprintln(w)
}

// printMLPRegression prints the test scores of the posterior predictive
// (the equal mixture over the draws of N(fₛ(x), σₛ²)) and of the MAP
// network, in the response's units when it was standardised (sc's target):
// the mean log predictive density per test point ("log-lik", nats, as the
// UCI benchmark's papers report it), the RMSE of the predictive mean, and
// the coverage of the 95% predictive interval.
func printMLPRegression(w io.Writer, m predict.Regressor, draws [][]float64, mapTheta []float64, test *data.Dataset, sc *data.Scaler) {
	if sc == nil {
		sc = &data.Scaler{}
	}
	units := "its units"
	if sc.TargetScale == 0 {
		units = "as fitted"
	}
	fmt.Fprintf(w, "test set (%d rows; %s in %s)  %9s %9s %9s\n", test.Len(), test.Target, units, "log-lik", "RMSE", "cover95")
	row := func(name string, th [][]float64) {
		score, err := predict.ScoreRegression(m, th, test.X, test.Y)
		if err == nil {
			var reg *predict.Regression
			if reg, err = Regress(m, th, test.X, 0.95, sc); err == nil {
				in := 0
				for i, v := range targetValues(sc, test.Y) {
					if v >= reg.ObsLower[i] && v <= reg.ObsUpper[i] {
						in++
					}
				}
				fmt.Fprintf(w, "  %-28s %9.4f %9.4g %9.3f\n", name, sc.TargetLogDensity(score.LPD), sc.TargetRMSE(score.RMSE), float64(in)/float64(test.Len()))
				return
			}
		}
		fmt.Fprintf(w, "  %s: %v\n", name, err)
	}
	row(fmt.Sprintf("BMA (%d draws)", len(draws)), draws)
	if mapTheta != nil {
		row("MAP network", [][]float64{mapTheta})
	}
	if strings.HasPrefix(test.Source, "gap1d(") {
		// The band a posterior over functions should widen where there are
		// no data (issue 25 asks the gap's at least 3× the data's).
		if b, err := Gap1DBands(m, draws, sc, 0.9); err == nil {
			fmt.Fprintf(w, "gap1d:    %v\n", b)
		}
	}
	fmt.Fprintln(w)
}

// printFunctionSpace prints R̂ and bulk-ESS of the predictions at up to 200
// held-out points (predict.ClassConvergence): the convergence of a
// network judged in function space, where its weights are not identified.
func printFunctionSpace(w io.Writer, m *model.MLP, reg predict.Regressor, tr *langevin.Trace, test *data.Dataset) {
	short := math.MaxInt
	for _, c := range tr.Draws {
		short = min(short, len(c))
	}
	if len(tr.Draws) < 2 || short < 8 {
		return
	}
	chains := make([][][]float64, len(tr.Draws))
	for c, rows := range tr.Draws {
		chains[c] = make([][]float64, short)
		for i := range chains[c] {
			chains[c][i] = rows[i][:m.Dim()]
		}
	}
	n, p := test.X.Dims()
	X := test.X.Slice(0, min(n, 200), 0, p).(*mat.Dense)
	var conv *predict.Convergence
	var err error
	if m.NumClasses() == 0 {
		conv, err = predict.RegressConvergence(reg, chains, X)
	} else {
		conv, err = predict.ClassConvergence(m, chains, X)
	}
	if err != nil {
		fmt.Fprintf(w, "function space: %v\n", err)
		return
	}
	fmt.Fprintf(w, "%v\n", conv)
	if conv.MaxRHat > 1.05 {
		fmt.Fprintf(w, "warning:  function-space R̂ %.3f > 1.05: the chains disagree on predictions (with --sampler auto, the auto: length line says whether a longer run would help or the chains sit at different modes)\n", conv.MaxRHat)
	}
	fmt.Fprintln(w)
}

// PrintRegression prints a regression's test scores against the responses y:
// RMSE and the coverage of the predictive interval and of f's interval.
func PrintRegression(w io.Writer, reg *predict.Regression, y []float64) {
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
