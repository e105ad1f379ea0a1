package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/report"
	"github.com/langevin-go/langevin/rundir"
)

// cmdCompare compares several runs (langevin run --out DIR) of the same
// model: their marginal posteriors overlaid, and a table of ESS, sampling
// time, ESS per second and — with --data — the test accuracy (classifiers)
// or RMSE (regression) of each run's posterior predictive mean beside the
// optimisation baseline, the MAP found on the run's training data (the seed
// report's Fig. 4 and Tables 1–2 for any data).
func cmdCompare(args []string, stdout, stderr io.Writer) error {
	f := fit.Config{Set: map[string]bool{}}
	var names, params, out string
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.StringVar(&names, "names", "", "comma-separated `LABELS` of the runs (default: the directories' names)")
	fs.StringVar(&params, "params", "", "comma-separated `NAMES` of the parameters whose marginals are drawn (default: the first three)")
	fs.StringVar(&out, "out", "", "write DIR/marginals.png (and .svg) and DIR/index.md")
	fs.StringVar(&f.Data, "data", "", "test data (as for predict --data): adds each run's test accuracy or RMSE and the optimisation baseline (the MAP on the training data of the first run's model.json)")
	fs.StringVar(&f.Target, "target", "", "target `COL`umn of --data (default: the last column)")
	fs.StringVar(&f.Format, "format", "auto", "data format: auto|"+strings.Join(data.Formats(), "|"))
	fs.Uint64Var(&f.Seed, "seed", 2, "generated test data: random seed")
	fs.IntVar(&f.N, "n", 1000, "generated test data: number of points")
	fs.Float64Var(&f.Noise, "noise", 0.1, "generated test data: noise sd")
	fs.IntVar(&f.K, "k", 3, "--data spirals: number of arms")
	// Flags may come before or after the directories.
	var dirs []string
	for {
		if err := parseFlags(fs, args, stdout); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	fs.Visit(func(fl *flag.Flag) { f.Set[fl.Name] = true })
	if len(dirs) == 0 {
		return fit.InputErrorf("no run directories: expected langevin compare [flags] DIR... (the --out DIRs of langevin run)")
	}
	labels, err := runLabels(dirs, names)
	if err != nil {
		return err
	}
	runs := make([]*rundir.Run, len(dirs))
	for i, d := range dirs {
		r, err := readRun(d)
		if err != nil {
			return err
		}
		r.Trace, _ = r.Trace.DropEmpty() // as summary: chains a stopped run never began
		if r.Trace.NumDraws() < 2 {
			return fit.InputErrorf("%s: %d draws: expected at least 2", d, r.Trace.NumDraws())
		}
		runs[i] = r
	}
	// The parameters drawn: --params, or the first three of the first run;
	// every run must have them.
	var show []string
	if params != "" {
		show = strings.Split(params, ",")
		for k, p := range show {
			show[k] = positionalName(runs[0], p)
		}
	} else {
		show = runs[0].Trace.Names[:min(3, len(runs[0].Trace.Names))]
	}
	cmp := report.Comparison{Runs: make([]report.Compared, len(runs))}
	for i, r := range runs {
		cmp.Runs[i] = report.Compared{Label: labels[i], Trace: r.Trace, Seconds: r.SamplingSeconds()}
	}
	if i, p := cmp.MissingParam(show); i >= 0 {
		return fit.InputErrorf("--params: %s has no parameter %q (it has %s)", dirs[i], p, strings.Join(runs[i].Trace.Names, ", "))
	}

	score, baseline, scoreName, baseNote, err := compareScores(&f, runs, dirs)
	if err != nil {
		return err
	}
	cmp.ScoreName, cmp.Baseline, cmp.HasBaseline = scoreName, baseline, f.Data != ""
	for i := range cmp.Runs {
		cmp.Runs[i].Score = score[i]
	}
	if err := cmp.WriteTable(stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\n"+report.CompareNote)
	if baseNote != "" {
		fmt.Fprintln(stdout, baseNote)
	}
	for _, w := range cmp.Warnings() {
		fmt.Fprintln(stdout, "warning: "+w)
		baseNote += "\n\n**Warning:** " + w
	}
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fit.InputErrorf("--out %s: %v", out, err)
	}
	if err := cmp.WriteDir(out, show, baseNote); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (and .svg), %s\n", filepath.Join(out, "marginals.png"), filepath.Join(out, "index.md"))
	return nil
}

// compareScores returns, with --data, each run's test score (accuracy for a
// classifier, RMSE for a regression) and that of the MAP on the training
// data named in the first run's model.json; NaN where there is none.
func compareScores(f *fit.Config, runs []*rundir.Run, dirs []string) (score []float64, baseline float64, name, note string, err error) {
	score = make([]float64, len(runs))
	for i := range score {
		score[i] = math.NaN()
	}
	baseline = math.NaN()
	if f.Data == "" {
		return score, baseline, "accuracy", "", nil
	}
	var mf0 *rundir.ModelFile
	var sc0 *data.Scaler
	for i, r := range runs {
		mf, sc, err := readModelFile(r)
		if err != nil {
			return nil, 0, "", "", err
		}
		if i == 0 {
			mf0, sc0 = mf, sc
		}
		test, err := compareTestData(f, mf, sc)
		if err != nil {
			return nil, 0, "", "", err
		}
		m, err := mf.Spec.Build(test.X, test.Y)
		if err != nil {
			return nil, 0, "", "", fit.InputErrorf("--data %s: %v", f.Data, err)
		}
		draws, err := drawsOf(r, m.Dim())
		if err != nil {
			return nil, 0, "", "", err
		}
		if score[i], name, err = testScore(m, mf.Classifies(), draws, test); err != nil {
			return nil, 0, "", "", err
		}
	}
	// The optimisation baseline: the MAP on the training data of the first
	// run (a file or an embedded data set; generated data are not rebuilt).
	fc := *f
	fc.Model, fc.Target, fc.Labels = mf0.Kind, mf0.Target, mf0.Labels
	if mf0.Columns != nil {
		fc.Columns.Id, fc.Columns.Missing = mf0.Columns.ID, mf0.Columns.Missing
		fc.Columns.Drop = strings.Join(mf0.Columns.Dropped, ",")
		if mf0.Columns.HasText() {
			fc.Columns.Coding = mf0.Columns
		}
	}
	fc.Columns.NA, fc.Columns.Sep, fc.Columns.Decimal = "", "", "."
	fc.Columns.UseRead(mf0.Read, nil) // the training file as the run read it
	train, err := fit.ReadData(&fc, mf0.Data, "model.json data", true)
	if err != nil {
		return score, baseline, name, fmt.Sprintf("optimisation baseline: not computed (%s's training data %q: %v)", dirs[0], mf0.Data, err), nil
	}
	if sc0 != nil {
		sc0.Transform(train.X)
	}
	m, err := mf0.Spec.Build(train.X, train.Y)
	if err != nil {
		return score, baseline, name, fmt.Sprintf("optimisation baseline: not computed (%v)", err), nil
	}
	start := time.Now()
	mp, err := (&approx.RunLaplace{Model: m}).MAP(context.Background())
	if err != nil {
		return score, baseline, name, fmt.Sprintf("optimisation baseline: not computed (MAP: %v)", err), nil
	}
	test, err := compareTestData(f, mf0, sc0)
	if err != nil {
		return nil, 0, "", "", err
	}
	tm, err := mf0.Spec.Build(test.X, test.Y)
	if err != nil {
		return nil, 0, "", "", err
	}
	if baseline, _, err = testScore(tm, mf0.Classifies(), [][]float64{mp}, test); err != nil {
		return nil, 0, "", "", err
	}
	note = fmt.Sprintf("optimisation baseline: the MAP (L-BFGS, %.3g s) on %s's training data %s, as a point estimate.", time.Since(start).Seconds(), dirs[0], mf0.Data)
	return score, baseline, name, note, nil
}

// compareTestData reads --data for a run's model: a generated test set, a
// file or an embedded data set, standardised with the run's scaler.
func compareTestData(f *fit.Config, mf *rundir.ModelFile, sc *data.Scaler) (*data.Dataset, error) {
	fc := *f
	fc.Model, fc.Labels = mf.Kind, mf.Labels
	if mf.Columns.HasText() {
		fc.Columns.Coding = mf.Columns // read as the run's training data were
	}
	d, test, generated, err := fit.GeneratedData(&fc, fc.Data)
	if err != nil {
		return nil, err
	}
	if test != nil {
		d = test
	}
	if !generated {
		if d, err = fit.ReadData(&fc, fc.Data, "--data", true); err != nil {
			return nil, err
		}
	}
	if d.Dim() != len(mf.Features) {
		return nil, fit.InputErrorf("--data %s: %d features, the run was trained on %d", fc.Data, d.Dim(), len(mf.Features))
	}
	d = d.Clone() // the scaler transforms in place
	if sc != nil {
		sc.Transform(d.X)
	}
	return d, nil
}

// testScore is predict.Score on the test set; its errors are input errors
// (the labels of --data, or a model without predictions).
func testScore(m langevin.Model, classifies bool, draws [][]float64, test *data.Dataset) (float64, string, error) {
	v, name, err := predict.Score(m, classifies, draws, test.X, test.Y)
	switch {
	case errors.Is(err, predict.ErrNoPrediction):
		return 0, "", fit.InputErrorf("%v", err)
	case err != nil:
		return 0, "", fit.InputErrorf("--data: %v", err)
	}
	return v, name, nil
}

// runLabels names the run directories dirs in a comparison table: by
// --names (comma-separated, one per directory) or by each directory's base
// name.
func runLabels(dirs []string, names string) ([]string, error) {
	if names != "" {
		l := strings.Split(names, ",")
		if len(l) != len(dirs) {
			return nil, fit.InputErrorf("--names %q: %d labels for %d run directories", names, len(l), len(dirs))
		}
		return l, nil
	}
	labels := make([]string, len(dirs))
	for i, d := range dirs {
		labels[i] = filepath.Base(filepath.Clean(d))
	}
	return labels, nil
}
