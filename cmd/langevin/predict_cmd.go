package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/internal/runctl"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/rundir"
)

// cmdPredict scores the posterior predictive of a langevin run --out DIR on
// new data: it rebuilds the model from DIR/model.json, reads the draws of
// DIR/chain-*.csv, applies the training standardisation and prints the
// metrics; --out writes one row of predictions per data row.
func cmdPredict(args []string, stdout, _ io.Writer) error {
	f := fit.Config{Set: map[string]bool{}}
	var samples, out string
	var level float64
	var bins int
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.StringVar(&samples, "samples", "", "`DIR` written by langevin run --out (chain-*.csv and model.json), or DIR1,DIR2,… of runs of single chains (--chain-id), combined")
	fs.StringVar(&f.Data, "data", "", "data to predict: a CSV or LIBSVM `FILE` with the training features (with the target column too, the metrics; without it, the predictions only), or moons|spirals|gap1d|fashion-mnist (its test set)")
	fs.StringVar(&f.Target, "target", "", "target `COL`umn (default: the run's target column, else the last column)")
	fs.StringVar(&f.Format, "format", "auto", "data format: auto|"+strings.Join(data.Formats(), "|"))
	fs.Float64Var(&level, "level", 0.9, "level of the credible intervals")
	fs.IntVar(&bins, "bins", 15, "confidence bins of the expected calibration error")
	fs.StringVar(&out, "out", "", "write per-row predictions to `FILE` (CSV)")
	var split string
	fs.StringVar(&split, "split", "all", "rows of --data to score: all, or test|train of the run's own seeded split (--data must be the run's data; the run's own data needs --split: all scores its training rows too)")
	fs.StringVar(&f.Columns.Id, "id", "", "ID `COL`umn of --data written beside each prediction (default: the run's --id column, when the file has it)")
	fs.StringVar(&f.Columns.Missing, "missing", "", "missing values in --data: error or drop (default: the run's --missing rule)")
	registerTextFlags(fs, &f.Columns)
	fs.Uint64Var(&f.Seed, "seed", 2, "generated data: random seed (the run's default seed 1 generated its training data)")
	fs.IntVar(&f.N, "n", 1000, "generated data: number of points")
	fs.Float64Var(&f.Noise, "noise", 0.1, "generated data: noise sd")
	fs.IntVar(&f.K, "k", 3, "--data spirals: number of arms")
	var newLevels string
	fs.StringVar(&newLevels, "new-levels", "", "a --formula run: group levels absent from the training data are predicted at the population level (population, the run's default), with effects drawn from the group distribution (sample), or refused (error)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.Set[fl.Name] = true })
	switch {
	case samples == "":
		return fit.InputErrorf("--samples: no directory given (the --out DIR of langevin run)")
	case f.Data == "":
		return fit.InputErrorf("--data: no data given")
	case !(level > 0 && level < 1):
		return fit.InputErrorf("--level %v: expected a number in (0, 1)", level)
	case bins < 1:
		return fit.InputErrorf("--bins %d: expected at least 1", bins)
	case split != "all" && split != "test" && split != "train":
		return fit.InputErrorf("--split %q: expected all, test or train", split)
	}
	dirs := strings.Split(samples, ",")
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
			return fit.InputErrorf("--samples %s: %v (written by langevin run --out)", dir, err)
		}
	}
	r, err := readRuns(dirs)
	if err != nil {
		return err
	}
	if r.Spec != nil { // new rows in the run's format (--na, --sep, --decimal), unless given here
		if mf, err := rundir.DecodeModelFile(r.Spec); err == nil {
			f.Columns.UseRead(mf.Read, f.Set)
		}
	}
	if raw := formulaOf(r); raw != nil {
		if err := f.Columns.Check(); err != nil {
			return err
		}
		return predictFormula(stdout, raw, r, f.Data, f.Columns.TableOptions(budget.Memory()/4), newLevels, level, f.Seed, out)
	}
	if newLevels != "" {
		return fit.InputErrorf("--new-levels: only for a --formula run (model.json has no formula)")
	}
	mf, sc, err := readModelFile(r)
	if err != nil {
		return err
	}
	f.Model, f.Labels = mf.Kind, mf.Labels
	if err := f.Columns.Check(); err != nil {
		return err
	}
	// New rows are read by the run's coding when it says more than the
	// column names (text columns, an ID, dropped columns or rows); a table of
	// numbers is matched by name, or by position without a header.
	if mf.Columns.HasText() {
		f.Columns.Coding = mf.Columns
	}
	if f.Target == "" && mf.Columns != nil {
		f.Target = mf.Target // the file may lack it: predictions only
	}
	f.Columns.OptionalTarget = true
	if f.Columns.Missing == "" && mf.Columns != nil {
		f.Columns.Missing = mf.Columns.Missing
	}
	if split != "all" && f.IsStoreData() {
		return fit.InputErrorf("--split %s: not for a store (a store run splits by a hash of each row: score its test rows with langevin run)", split)
	}
	if f.IsStoreData() {
		if f.Streams() {
			return predictStore(stdout, &f, mf, sc, r, samples, level, bins, out)
		}
		if err := f.CheckStoreFits(); err != nil {
			return err
		}
	}
	d, test, generated, err := fit.GeneratedData(&f, f.Data)
	if err != nil {
		return err
	}
	if test != nil {
		d = test
	}
	if !generated && !f.Set["split"] && fit.SameData(f.Data, mf.Data) {
		return fit.InputErrorf("--data %s is the data the run was fitted to: --split test scores the rows it held out, --split all every row (its training rows too, whose scores flatter the model)", f.Data)
	}
	if !generated {
		if d, err = fit.ReadData(&f, f.Data, "--data", true); err != nil {
			return err
		}
	}
	if split != "all" {
		if generated {
			return fit.InputErrorf("--split %s: --data %s is generated; predict scores its own test set", split, f.Data)
		}
		if d, err = applySplit(mf.Split, d, split, f.Data); err != nil {
			return err
		}
	}
	var offVals []float64
	if mf.Spec.Offset != "" {
		if offVals, err = fit.TakeColumn(d, mf.Spec.Offset, "the run's offset column"); err != nil {
			return err
		}
	}
	// Columns are matched by name with the training data's.
	if err := fit.AlignColumns(&data.Dataset{Names: mf.Features, Source: mf.Data}, d, "--data"); err != nil {
		return err
	}
	if sc != nil {
		sc.Transform(d.X)
	}
	fit.PrintCoding(stdout, d)
	if d.Y == nil {
		return predictUnlabelled(stdout, mf, sc, d, r, offVals, level, out, samples)
	}
	m, err := mf.Spec.BuildOffset(d.X, d.Y, offVals)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", f.Data, err)
	}
	draws, err := predictiveDraws(r, mf, m.Dim())
	if err != nil {
		return err
	}
	rows := fmt.Sprintf("%d rows", d.Len())
	if split != "all" {
		rows = fmt.Sprintf("the %d %s rows of the run's split", d.Len(), split)
	}
	fmt.Fprintf(stdout, "%s (%s) on %s: %s, %d draws from %s\n", mf.Kind, mf.Data, d.Source, rows, len(draws), samples)
	if l := classesLine(mf); l != "" && mf.Labels != nil {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintln(stdout)
	if g, ok := m.(*model.GLM); ok {
		return predictGLM(stdout, g, draws, d, fit.LogOffsets(mf.Spec, offVals), out)
	}
	if r, ok := m.(predict.Regressor); ok && !mf.Classifies() {
		reg, err := fit.Regress(r, draws, d.X, level, sc)
		if err != nil {
			return err
		}
		fit.PrintRegression(stdout, reg, d.Y)
		if out != "" {
			return writeCSV(out, fit.WithIDs(d, func(w io.Writer) error { return reg.WriteCSV(w, d.Y) }))
		}
		return nil
	}
	c, ok := m.(predict.Classifier)
	if !ok {
		return fit.InputErrorf("model %s: no class probabilities", mf.Kind)
	}
	res, err := predict.Classify(c, draws, d.X, predict.ClassifyOptions{Level: level})
	if err != nil {
		return err
	}
	met, err := predict.Evaluate(res.Probs, d.Y, bins)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", f.Data, err)
	}
	fit.PrintClassScores(stdout, met, meanOf(res.Entropy), meanOf(res.Expected), meanOf(res.MutualInfo))
	if out != "" {
		return writeCSV(out, fit.WithIDs(d, func(w io.Writer) error { return res.WriteCSV(w, d.Y) }))
	}
	return nil
}

// writeCSV writes the per-row predictions of --out FILE: to a temporary
// file beside it, renamed to FILE once whole, so that a signal or an error
// never leaves a torn CSV under FILE's name (an older FILE stays as it was
// until the new one is complete).
func writeCSV(path string, write func(io.Writer) error) error {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fit.InputErrorf("--out %s: %v", path, err)
	}
	tmp := fh.Name()
	// A signal while the file is written removes the temporary file and
	// exits as the default action would (128 + the signal's number).
	sigs, done := make(chan os.Signal, 1), make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-sigs:
			os.Remove(tmp)
			runctl.Exit((&runctl.Interrupted{Sig: sig}).ExitCode())
		case <-done:
		}
	}()
	defer func() { signal.Stop(sigs); close(done) }()
	bw := bufio.NewWriterSize(fh, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

// meanOf returns the mean of v.
func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// predictGLM prints a GLM's posterior predictive scores on d (accuracy for
// probit, the RMSE of the predictive mean otherwise, and the mean log
// predictive density) and writes y and the predictive mean to out.
func predictGLM(w io.Writer, g *model.GLM, draws [][]float64, d *data.Dataset, offset []float64, out string) error {
	mean := predict.OffsetMean(g, draws, d.X, offset, nil)
	var score float64
	for i, m := range mean {
		if g.Kind() == model.Probit {
			if (m >= 0.5) == (d.Y[i] == 1) {
				score++
			}
		} else {
			score += (m - d.Y[i]) * (m - d.Y[i])
		}
	}
	score /= float64(len(mean))
	name := "accuracy"
	if g.Kind() != model.Probit {
		name, score = "RMSE of the predictive mean", math.Sqrt(score)
	}
	fmt.Fprintf(w, "%s %.4f   mean log predictive density %.4f\n", name, score, predict.OffsetLogPredictiveDensity(g, draws, d.X, offset, d.Y))
	if out == "" {
		return nil
	}
	var sb strings.Builder
	sb.WriteString("y,mean\n")
	for i, m := range mean {
		fmt.Fprintf(&sb, "%g,%g\n", d.Y[i], m)
	}
	return writeCSV(out, fit.WithIDs(d, func(w io.Writer) error { _, err := io.WriteString(w, sb.String()); return err }))
}
