package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/report"
	"github.com/langevin-go/langevin/rundir"
)

// predictiveInputs is what the predictive sections of a report need: the
// model as run, its test set and scaler, the MAP network (nil: none) and the
// settings of the network's predictive.
type predictiveInputs struct {
	m        langevin.Model
	glm      *approx.GLMLaplace // a linearised Laplace run's (nil: none)
	test     *data.Dataset
	sc       *data.Scaler
	mapTheta []float64
	opts     fit.MLPPredictiveOptions
}

// printedWarnings returns the lines of sections' printed accounts that are
// warnings ("warning:  …"), without the prefix, for the page's warnings.
func printedWarnings(secs []report.Section) []string {
	var out []string
	for _, sec := range secs {
		for _, line := range strings.Split(sec.Pre, "\n") {
			if w, ok := strings.CutPrefix(line, "warning:"); ok {
				out = append(out, strings.TrimSpace(w))
			}
		}
	}
	return out
}

// predictiveSections returns the report's sections about the predictions
// on the test set. A network (model.MLP): the printed account of its
// posterior predictive — each chain's stacking weight, the test table
// (stacked, equal weights, MAP network), the gap1d bands, and the
// function-space check, each chain alone and between chains — and the
// predictive band at the test points. Every regression (linear or network):
// the posterior predictive of y at the test points, sorted, with the
// interval of a new observation and of f, in y's units, and its coverage.
func predictiveSections(in predictiveInputs, tr *langevin.Trace) []report.Section {
	if in.test == nil || in.test.Len() == 0 || tr == nil || tr.NumChains() == 0 {
		return nil
	}
	var out []report.Section
	mlp, isNet := in.m.(*model.MLP)
	if isNet {
		var buf bytes.Buffer
		fit.PrintMLPPredictive(&buf, mlp, in.glm, tr, in.mapTheta, in.test, in.sc, in.opts)
		out = append(out, report.Section{
			Title: "Predictions and the function-space check",
			Text: "A network's weights are not identified, so its checks are on its predictions at held-out points: each chain alone " +
				"(split-R̂ and bulk-ESS of its own predictions: has it converged where it sits?) and between chains (how far the modes' " +
				"predictions differ). The chains are combined by stacking of their PSIS-LOO predictive densities (Yao, Vehtari & Gelman 2022), " +
				"one weight per chain.",
			Pre: strings.TrimRight(buf.String(), "\n"),
		})
	}
	var reg predict.Regressor
	switch m := in.m.(type) {
	case *model.MLP:
		if m.NumClasses() == 0 {
			reg = m
			if in.glm != nil {
				reg = in.glm.Linearized()
			}
		} else if m.NumClasses() == 2 {
			if sec, ok := netClassSection(m, tr, in); ok {
				out = append(out, sec)
			}
		}
	case *model.Linear:
		reg = m
	}
	if reg == nil {
		return out
	}
	draws := modelDraws(tr, in.m.Dim())
	what := "every kept draw"
	if isNet && in.opts.ChainWeights != "equal" && in.glm == nil && tr.NumChains() > 1 {
		if cw, err := fit.StackChains(mlp, tr, in.opts.Seed); err == nil && cw.Method == "stacking" {
			draws = fit.MixtureDraws(tr, in.m.Dim(), cw.W)
			what = "the chains stacked by their weights above"
		}
	}
	const level = 0.9
	r, err := fit.Regress(reg, draws, in.test.X, level, in.sc)
	if err != nil {
		return append(out, report.Section{Title: "Posterior predictive", Text: "not drawn: " + err.Error()})
	}
	y := make([]float64, len(in.test.Y))
	for i, v := range in.test.Y {
		y[i] = v
		if in.sc != nil && in.sc.TargetScale != 0 {
			y[i] = in.sc.TargetValue(v)
		}
	}
	sec, err := report.RegressionSection(r.Mean, r.ObsLower, r.ObsUpper, r.Lower, r.Upper, y, level, in.test.Target)
	if err != nil {
		return append(out, report.Section{Title: "Posterior predictive", Text: "not drawn: " + err.Error()})
	}
	sec.Text += fmt.Sprintf(" The draws: %s (%d).", what, len(draws))
	if k := slices.Index(tr.Names, "sigma2"); k >= 0 {
		sec.Text += " " + sigma2Text(tr, k, in.sc)
	}
	return append(out, sec)
}

// netClassSection is the sorted posterior predictive of a binary network
// (report Figure 5's display).
func netClassSection(m *model.MLP, tr *langevin.Trace, in predictiveInputs) (report.Section, bool) {
	c, err := predict.Classify(m, modelDraws(tr, m.Dim()), in.test.X, predict.ClassifyOptions{Level: 0.9})
	if err != nil || c.Lower == nil {
		return report.Section{}, false
	}
	n := in.test.Len()
	b := plot.Band{Mean: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		b.Mean[i], b.Lo[i], b.Hi[i] = c.Probs.At(i, 1), c.Lower.At(i, 1), c.Upper.At(i, 1)
	}
	sec, err := report.BandSection(b, in.test.Y)
	return sec, err == nil
}

// modelDraws returns the kept draws' first d coordinates (the model's;
// derived columns such as sigma2 follow them).
func modelDraws(tr *langevin.Trace, d int) [][]float64 {
	rows := tr.Rows()
	for i, r := range rows {
		rows[i] = r[:d]
	}
	return rows
}

// runDirPredictive rebuilds, for langevin report DIR, the model and the test
// set of the run in DIR from the arguments it saved (resume.json), so that
// the page can show its predictions as the run printed them. ok is false,
// with the reason, when the run cannot be rebuilt (no resume.json: runs of
// older versions, or several directories combined; a formula or Stan model;
// data that moved).
func runDirPredictive(dir string) (in predictiveInputs, why string) {
	ri, err := rundir.ReadResumeInfo(dir)
	if err != nil {
		return in, fmt.Sprintf("no %s to rebuild the test set from", rundir.ResumeFile)
	}
	c, err := parseRun(ri.Args, io.Discard)
	if err != nil {
		return in, fmt.Sprintf("%s: %v", rundir.ResumeFile, err)
	}
	if c.Formula.Text != "" || c.Stan != "" || c.Toy() {
		return in, "the test set of a formula, Stan or toy run is not rebuilt here (langevin predict scores one)"
	}
	// Relative paths of the saved arguments are the run's: a file, or a
	// UCI folder (data.txt), under the directory the run began in. A name
	// (moons, australian) stays a name even where a directory of that name
	// exists there (often the run's own --out).
	for _, p := range []*string{&c.Data, &c.Test} {
		if *p == "" || filepath.IsAbs(*p) || ri.Dir == "" {
			continue
		}
		full := filepath.Join(ri.Dir, *p)
		if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
			*p = full
		} else if _, err := os.Stat(filepath.Join(full, "data.txt")); err == nil {
			*p = full
		}
	}
	j := &fit.Problem{C: c, Stderr: io.Discard}
	if err := j.LoadData(); err != nil {
		return in, fmt.Sprintf("the run's data: %v", err)
	}
	defer j.Rows.Close()
	if j.Rows != nil {
		return in, "the test rows of a streamed data store are not read again here (langevin predict scores them)"
	}
	if err := j.BuildModel(); err != nil {
		return in, fmt.Sprintf("the run's model: %v", err)
	}
	return predictiveInputs{m: j.M, test: j.Test, sc: j.Scaler,
		opts: fit.MLPPredictiveOptions{ChainWeights: c.Mlp.ChainWeights, TargetESS: fit.NetTarget(c), Seed: c.Seed}}, ""
}

// sigma2Text describes the posterior of the noise variance σ² (column k of
// tr, of the standardised response when sc standardised it) in y's units.
func sigma2Text(tr *langevin.Trace, k int, sc *data.Scaler) string {
	scale := 1.0
	units := "y's units"
	if sc != nil && sc.TargetScale != 0 {
		scale = sc.TargetScale * sc.TargetScale
	}
	var v []float64
	for _, c := range tr.Draws {
		for _, row := range c {
			v = append(v, scale*row[k])
		}
	}
	if len(v) == 0 {
		return ""
	}
	sort.Float64s(v)
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	q := func(p float64) float64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	return fmt.Sprintf("The noise variance σ² in %s: posterior mean %.4g, 90%% interval [%.4g, %.4g] (σ = %.4g), learned from the data: a wrong σ² would show as a coverage far from the level.", units, mean, q(0.05), q(0.95), math.Sqrt(mean))
}
