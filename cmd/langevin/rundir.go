package main

// The command's one place that reads and writes run directories (langevin
// run --out DIR), all through package rundir: the chain and warm-up files
// are streamed as the draws come, then DIR/summary.csv, DIR/model.json (the
// model's spec and the data's columns) and DIR/scaler.json.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// runDir is an open run directory of langevin run.
type runDir struct {
	W      *rundir.Writer
	chains []*rundir.ChainWriter

	resume       *resumeState       // langevin run --resume DIR: where it resumes from
	info         *rundir.ResumeInfo // DIR/resume.json
	checkpointed bool               // a checkpoint was written
	resumable    bool               // the run stopped early and has a checkpoint
	finished     bool               // the sampling finished (Sampled): MarkFinished marks the directory
	keep         *langevin.Trace    // Keep's trace, applied by Finish
	// Sampling is set when the sampling begins: from then on the directory
	// holds the run (one stopped before keeps nothing).
	Sampling bool
}

// finishHook, when set (by tests), is called as Finish begins: where a
// kill leaves a finished sampling whose directory is not yet complete.
var finishHook func()

// flushEvery bounds how long a draw waits in memory before it reaches its
// chain file: what a crash can lose.
const flushEvery = 250 * time.Millisecond

// createRunDir checks and locks dir before any work: a file, an unwritable
// directory, a directory holding another run (unless overwrite) or one that
// another process writes are input errors, found at once.
func createRunDir(dir string, overwrite bool) (*runDir, error) {
	w, err := rundir.Create(dir, rundir.Options{Overwrite: overwrite, FlushEvery: flushEvery})
	if err != nil {
		if errors.Is(err, rundir.ErrNotRun) {
			return nil, fit.InputErrorf("--out %v: give a new or empty directory (a run writes a dozen files into it)", err)
		}
		if errors.Is(err, rundir.ErrExists) {
			return nil, fit.InputErrorf("--out %v: use --overwrite to replace it, or another directory", err)
		}
		return nil, fit.InputErrorf("--out %v", err)
	}
	return &runDir{W: w}, nil
}

// OpenChains opens the files of chains first, …, first+chains−1 (1-based),
// for the run's draws to stream into. The run's identifier is derived from
// cfg, so that the chains of one analysis run in separate processes
// (--chain-id) share it and their files are those of the run of all chains.
func (rd *runDir) OpenChains(cfg stancsv.Config, first, chains int, statNames, names []string) error {
	rd.W.SetRunID(runID(cfg, statNames, names))
	for k := first; k < first+chains; k++ {
		cw, err := rd.W.Chain(k, cfg, statNames, names)
		if err != nil {
			rd.W.Close(flagErr(err))
			return err
		}
		rd.chains = append(rd.chains, cw)
	}
	return nil
}

// Sink is langevin.Options.Sink.
func (rd *runDir) Sink(c int) langevin.DrawSink { return rd.chains[c] }

// Keep makes the chain files hold the draws of tr when the run thinned
// them further after writing them (auto's bound on the kept draws), so that
// the files and the printed summary are of the same draws.
//
// Finish applies it after marking the directory finished: until then the
// files stay as the last checkpoint counts them, so that a run killed or
// stopped before its directory is complete resumes from it.
func (rd *runDir) Keep(tr *langevin.Trace) {
	if rd.resumable {
		return // the files stay as written: the checkpoint counts their rows
	}
	rd.keep = tr
}

// Finish writes the summary (not when table is nil: a failed run leaves
// no summary.csv that could be read as its answer), the model's spec and
// the scaler, closes the files with the run's status and returns the list
// of files for the output.
func (rd *runDir) Finish(runErr error, table diag.Table, mf *rundir.ModelFile, sc *data.Scaler) (string, error) {
	if finishHook != nil {
		finishHook()
	}
	dir := rd.W.Dir()
	var err error
	if table != nil {
		err = rd.W.WriteSummary(table)
	}
	if err == nil && mf != nil {
		err = rd.W.WriteSpec(mf)
	}
	if err == nil && sc != nil {
		err = rd.W.WriteScaler(sc)
	}
	if err == nil {
		err = rd.MarkFinished()
	}
	if tr := rd.keep; tr != nil && err == nil {
		for c, cw := range rd.chains {
			if c < len(tr.Iters) {
				cw.Keep(tr.Iters[c], tr.Thin)
			}
		}
	}
	if cerr := rd.W.Close(flagErr(runErr)); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	files := filepath.Join(dir, rundir.ChainFile(rd.chains[0].Chain()))
	if len(rd.chains) > 1 {
		files += " … " + rundir.ChainFile(rd.chains[len(rd.chains)-1].Chain())
	}
	if table != nil {
		files += ", " + filepath.Join(dir, rundir.SummaryFile)
	}
	if mf != nil {
		files += ", " + filepath.Join(dir, rundir.SpecFile)
	}
	return files, nil
}

// chainConfig is the configuration the chain files of a run record: c, the
// run's configuration as planned (--sampler auto: the sampler, batch and
// burn-in it chose).
func chainConfig(j *fit.Problem, c *fit.Config) stancsv.Config {
	cfg := stancsv.Config{Method: "sample", Algorithm: c.Sampler,
		NumSamples: c.Iters - c.Burnin, NumWarmup: c.Burnin, Thin: c.Thin, Seed: c.Seed}
	for _, kv := range j.SettingsOf(c) {
		switch kv[0] {
		case "model":
			cfg.Model = kv[1]
		case "algorithm", "iters", "burnin", "thin", "seed", "test", "target":
		default:
			cfg.Extra = append(cfg.Extra, kv)
		}
	}
	return cfg
}

// modelFile returns DIR/model.json's contents, nil for the toy targets.
func modelFile(j *fit.Problem) *rundir.ModelFile {
	if j.FormulaRecord != nil {
		return &rundir.ModelFile{Data: j.C.Data, Formula: j.FormulaRecord, Read: j.C.Columns.ReadSettings()}
	}
	if j.Train == nil || j.C.Formula.Text != "" || j.C.Stan != "" || !j.Spec.NeedsData() {
		return nil
	}
	return &rundir.ModelFile{Spec: j.Spec, Data: j.C.Data, Target: j.Train.Target, Features: j.Train.Names, Split: (*rundir.Split)(j.TestSplit), Columns: j.Train.Coding, Labels: j.C.Labels, Read: j.C.Columns.ReadSettings()}
}

// applySplit returns the part of d named by which (train or test) under
// the saved split s, or an input error if d is not the run's data (another
// number of rows) or the run made no split.
func applySplit(s *rundir.Split, d *data.Dataset, which, source string) (*data.Dataset, error) {
	if s == nil {
		return nil, fit.InputErrorf("--split %s: the run made no train/test split of its data (its test set came from --test or a generated set); score that test file instead", which)
	}
	if d.Len() != s.Rows {
		return nil, fit.InputErrorf("--split %s: --data %s has %d rows, the run split %d: give the run's own --data", which, source, d.Len(), s.Rows)
	}
	train, test := data.TrainTest(d, s.TestFrac, s.Seed)
	if which == "train" {
		return train, nil
	}
	return test, nil
}

// readRun reads a run directory (langevin report, predict).
func readRun(dir string) (*rundir.Run, error) {
	r, err := rundir.Read(dir)
	if err != nil {
		return nil, fit.InputError{Err: err}
	}
	return r, nil
}

// readRuns reads one run directory, or several holding chains of one
// analysis run in separate processes (langevin run --chain-id), combined in
// chain order; it refuses directories of different analyses.
func readRuns(dirs []string) (*rundir.Run, error) {
	if len(dirs) == 1 {
		return readRun(dirs[0])
	}
	runs := make([]*rundir.Run, len(dirs))
	for i, dir := range dirs {
		r, err := readRun(dir)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	r, err := rundir.Combine(runs...)
	if err != nil {
		return nil, fit.InputError{Err: err}
	}
	return r, nil
}

// readModelFile returns the model spec and the scaler of a run directory.
func readModelFile(r *rundir.Run) (*rundir.ModelFile, *data.Scaler, error) {
	path := filepath.Join(strings.Split(r.Dir, ", ")[0], rundir.SpecFile)
	if r.Spec == nil {
		return nil, nil, fit.InputErrorf("--samples %s: no %s (written by langevin run --out)", r.Dir, rundir.SpecFile)
	}
	mf, err := rundir.DecodeModelFile(r.Spec)
	if err != nil {
		return nil, nil, fit.InputErrorf("%s: %v", path, err)
	}
	sc := r.Scaler
	scPath := filepath.Join(strings.Split(r.Dir, ", ")[0], rundir.ScalerFile)
	if sc == nil && mf.Mean != nil {
		sc, scPath = &data.Scaler{Mean: mf.Mean, Scale: mf.Scale}, path
		if err := rundir.CheckScaler(sc); err != nil {
			return nil, nil, fit.InputErrorf("%s: %v", path, err)
		}
	}
	if err := checkModelFile(r, mf, sc, path, scPath); err != nil {
		return nil, nil, err
	}
	return mf, sc, nil
}

// checkModelFile checks model.json (its features named once each:
// rundir.DecodeModelFile) and the scaler against each other and the chain
// files, trusted no more than input: as many scales as features, and a scaler present when the chain
// files record that the run standardised its features.
func checkModelFile(r *rundir.Run, mf *rundir.ModelFile, sc *data.Scaler, path, scPath string) error {
	standardised := false
	for _, kv := range r.Settings {
		if kv[0] == "standardize" {
			standardised = kv[1] == "true"
		}
	}
	if sc == nil && standardised && mf.Spec.NeedsData() {
		return fit.InputErrorf("%s: missing, but the chain files record standardize = true: the draws are on the standardised scale; restore the run's %s (or run again)", scPath, rundir.ScalerFile)
	}
	if mf.Spec.YStandardized && (sc == nil || sc.TargetScale == 0) {
		// The model predicts the standardised response: without its mean
		// and sd the predictions could not be put back in y's units.
		return fit.InputErrorf("%s: no target_mean and target_scale, but %s says the run standardised the response (y_standardized): restore the run's %s (or run again)", scPath, path, rundir.ScalerFile)
	}
	if sc != nil && len(sc.Mean) != len(mf.Features) {
		return fit.InputErrorf("%s: %d means and scales, but %s names %d features: expected one per feature", scPath, len(sc.Mean), path, len(mf.Features))
	}
	return nil
}

// drawsOf returns every kept draw of the run, the first d columns of each
// (derived quantities follow the parameters).
func drawsOf(r *rundir.Run, d int) ([][]float64, error) {
	var draws [][]float64
	for _, ch := range r.Trace.Draws {
		for _, row := range ch {
			if len(row) < d {
				return nil, fit.InputErrorf("--samples %s: the chains have %d columns, model.json describes a model with %d parameters", r.Dir, len(row), d)
			}
			draws = append(draws, row[:d])
		}
	}
	if len(draws) == 0 {
		return nil, fit.InputError{Err: errors.New("--samples " + r.Dir + ": no draws")}
	}
	return draws, nil
}

// predictiveDraws returns the draws of the run's posterior predictive, the
// first d columns of each: every kept draw alike (drawsOf), or, when
// model.json records the chains' weights (a network's stacking), draws
// whose equal-weight mixture is the chains' mixture with those weights
// (MixtureDraws: the chains cut to the shortest).
func predictiveDraws(r *rundir.Run, mf *rundir.ModelFile, d int) ([][]float64, error) {
	all, err := drawsOf(r, d)
	if err != nil || mf == nil || mf.ChainWeights == nil {
		return all, err
	}
	if len(mf.ChainWeights) != len(r.Trace.Draws) {
		return nil, fit.InputErrorf("%s: %d chain_weights, but %s has %d chain files: expected one weight a chain", filepath.Join(r.Dir, rundir.SpecFile), len(mf.ChainWeights), r.Dir, len(r.Trace.Draws))
	}
	return fit.MixtureDraws(r.Trace, d, mf.ChainWeights), nil
}

// runID is the identifier of a run: a hash of its configuration and
// columns, the same for every process of one analysis.
func runID(cfg stancsv.Config, statNames, names []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%#v\n%q\n%q\n", cfg, statNames, names)
	return hex.EncodeToString(h.Sum(nil)[:8])
}
