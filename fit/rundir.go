package fit

// The command's one place that reads and writes run directories (langevin
// run --out DIR), all through package rundir: the chain and warm-up files
// are Streamed as the draws come, then DIR/summary.csv, DIR/model.json (the
// model's spec and the data's columns) and DIR/scaler.json.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// ModelFile is DIR/model.json (rundir.ModelFile: the schema and its
// decoder live in package rundir).
type ModelFile = rundir.ModelFile

// savedSplit is the seeded split a run made (rundir.Split).
type savedSplit = rundir.Split

// RunDir is an open run directory of langevin run.
type RunDir struct {
	W      *rundir.Writer
	chains []*rundir.ChainWriter

	resume       *ResumeState       // langevin run --resume DIR: where it resumes from
	info         *rundir.ResumeInfo // DIR/resume.json
	checkpointed bool               // a checkpoint was written
	resumable    bool               // the run stopped early and has a checkpoint
	finished     bool               // the sampling finished (Sampled): MarkFinished marks the directory
	keep         *langevin.Trace    // Keep's trace, applied by Finish
	// Sampling is set when the sampling begins: from then on the directory
	// holds the run (one stopped before keeps nothing).
	Sampling bool
}

// FinishHook, when set (by tests), is called as Finish begins: where a
// kill leaves a finished sampling whose directory is not yet complete.
var FinishHook func()

// SettingsOf lists the settings of the configuration c: the run's, or the
// configuration as run (--sampler auto's choice). The model is --model's,
// or the one the run built when j.ModelSettings names it (--formula). On a
// network run by --sampler auto, precond and init are the plan's
// (fisher-groups: its per-group Fisher preconditioner; modes: each chain at
// its own Adam mode) and modes is their number.
func (j *Problem) SettingsOf(c *Config) [][2]string {
	b := j.Env
	step := ""
	if b.Sched != nil {
		step = FmtF(b.Sched.At(1))
	}
	all := [][2]string{{"model", c.Model}}
	if j.ModelSettings != nil {
		all = slices.Clone(j.ModelSettings)
	}
	all = append(all, [][2]string{
		{"data", c.Data}, {"test", c.Test}, {"target", c.Target},
		{"algorithm", c.Sampler}, {"schedule", c.Schedule},
		{"step", step}, {"step_a", FmtF(b.StepA)},
		{"step_b", FmtF(c.StepB)}, {"decay", FmtF(c.Decay)},
		{"batch", strconv.Itoa(c.Batch)}, {"replace", strconv.FormatBool(c.Replace)},
		{"temperature", FmtF(c.Temperature)}, {"precond", c.Precond},
		{"clip", FmtF(c.Clip)}, {"clip_value", FmtF(c.ClipValue)},
		{"chains", strconv.Itoa(c.Chains)}, {"iters", strconv.Itoa(c.Iters)},
		{"burnin", strconv.Itoa(c.Burnin)}, {"thin", strconv.Itoa(c.Thin)},
		{"seed", strconv.FormatUint(c.Seed, 10)}, {"init", c.Init},
		{"standardize", strconv.FormatBool(c.Standardize)}, {"intercept", strconv.FormatBool(c.Intercept)},
		{"noise_every", strconv.Itoa(c.NoiseEvery)},
	}...)
	if b != nil && b.Auto != nil && b.Auto.Net != nil {
		// --sampler auto on a network: the plan's starts and preconditioner,
		// not the flags' (unused) values, so that the chain files say what ran.
		net := b.Auto.Net
		for i, kv := range all {
			switch kv[0] {
			case "precond":
				all[i][1] = "fisher-groups"
			case "init":
				all[i][1] = "modes"
			}
		}
		all = append(all, [2]string{"modes", strconv.Itoa(len(net.Modes))})
	}
	var out [][2]string
	for _, kv := range all {
		if c.Formula.Text != "" && (kv[0] == "standardize" || kv[0] == "intercept") {
			continue // the formula says whether it has an intercept; nothing is standardised
		}
		if kv[1] != "" {
			out = append(out, kv)
		}
	}
	return out
}

// flushEvery bounds how long a draw waits in memory before it reaches its
// chain file: what a crash can lose.
const flushEvery = 250 * time.Millisecond

// CreateRunDir checks and locks dir before any work: a file, an unwritable
// directory, a directory holding another run (unless overwrite) or one that
// another process writes are input errors, found at once.
func CreateRunDir(dir string, overwrite bool) (*RunDir, error) {
	w, err := rundir.Create(dir, rundir.Options{Overwrite: overwrite, FlushEvery: flushEvery})
	if err != nil {
		if errors.Is(err, rundir.ErrNotRun) {
			return nil, InputErrorf("--out %v: give a new or empty directory (a run writes a dozen files into it)", err)
		}
		if errors.Is(err, rundir.ErrExists) {
			return nil, InputErrorf("--out %v: use --overwrite to replace it, or another directory", err)
		}
		return nil, InputErrorf("--out %v", err)
	}
	return &RunDir{W: w}, nil
}

// OpenChains opens the files of chains first, …, first+chains−1 (1-based),
// for the run's draws to stream into. The run's identifier is derived from
// cfg, so that the chains of one analysis run in separate processes
// (--chain-id) share it and their files are those of the run of all chains.
func (rd *RunDir) OpenChains(cfg stancsv.Config, first, chains int, statNames, names []string) error {
	rd.W.SetRunID(runID(cfg, statNames, names))
	for k := first; k < first+chains; k++ {
		cw, err := rd.W.Chain(k, cfg, statNames, names)
		if err != nil {
			rd.W.Close(err)
			return err
		}
		rd.chains = append(rd.chains, cw)
	}
	return nil
}

// openRunDir creates (and locks) dir and opens the files of chains first,
// …, first+chains−1.
func openRunDir(dir string, cfg stancsv.Config, first, chains int, statNames, names []string) (*RunDir, error) {
	rd, err := CreateRunDir(dir, false)
	if err != nil {
		return nil, err
	}
	if err := rd.OpenChains(cfg, first, chains, statNames, names); err != nil {
		return nil, err
	}
	return rd, nil
}

// Sink is langevin.Options.Sink.
func (rd *RunDir) Sink(c int) langevin.DrawSink { return rd.chains[c] }

// Keep makes the chain files hold the draws of tr when the run thinned
// them further after writing them (auto's bound on the kept draws), so that
// the files and the printed summary are of the same draws.
//
// Finish applies it after marking the directory finished: until then the
// files stay as the last checkpoint counts them, so that a run killed or
// stopped before its directory is complete resumes from it.
func (rd *RunDir) Keep(tr *langevin.Trace) {
	if rd.resumable {
		return // the files stay as written: the checkpoint counts their rows
	}
	rd.keep = tr
}

// Finish writes the summary (not when table is nil: a failed run leaves
// no summary.csv that could be read as its answer), the model's spec and
// the scaler, closes the files with the run's status and returns the list
// of files for the output.
func (rd *RunDir) Finish(runErr error, table diag.Table, mf *ModelFile, sc *data.Scaler) (string, error) {
	if FinishHook != nil {
		FinishHook()
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
	if cerr := rd.W.Close(runErr); err == nil {
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

// ChainConfig is the configuration the chain files of a run record: c, the
// run's configuration as planned (--sampler auto: the sampler, batch and
// burn-in it chose).
func (j *Problem) ChainConfig(c *Config) stancsv.Config {
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

// ModelFile returns DIR/model.json's contents, nil for the toy targets.
func (j *Problem) ModelFile() *ModelFile {
	if j.FormulaRecord != nil {
		return &ModelFile{Data: j.C.Data, Formula: j.FormulaRecord, Read: j.C.Columns.ReadSettings()}
	}
	if j.Train == nil || j.C.Formula.Text != "" || j.C.Stan != "" || !j.Spec.NeedsData() {
		return nil
	}
	return &ModelFile{Spec: j.Spec, Data: j.C.Data, Target: j.Train.Target, Features: j.Train.Names, Split: j.split, Columns: j.Train.Coding, Labels: j.C.Labels, Read: j.C.Columns.ReadSettings()}
}

// ApplySplit returns the part of d named by which (train or test) under
// the saved split s, or an input error if d is not the run's data (another
// number of rows) or the run made no split.
func ApplySplit(s *savedSplit, d *data.Dataset, which, source string) (*data.Dataset, error) {
	if s == nil {
		return nil, InputErrorf("--split %s: the run made no train/test split of its data (its test set came from --test or a generated set); score that test file instead", which)
	}
	if d.Len() != s.Rows {
		return nil, InputErrorf("--split %s: --data %s has %d rows, the run split %d: give the run's own --data", which, source, d.Len(), s.Rows)
	}
	train, test := data.TrainTest(d, s.TestFrac, s.Seed)
	if which == "train" {
		return train, nil
	}
	return test, nil
}

// ReadRun reads a run directory (langevin report, predict).
func ReadRun(dir string) (*rundir.Run, error) {
	r, err := rundir.Read(dir)
	if err != nil {
		return nil, InputError{Err: err}
	}
	return r, nil
}

// ReadRuns reads one run directory, or several holding chains of one
// analysis run in separate processes (langevin run --chain-id), combined in
// chain order; it refuses directories of different analyses.
func ReadRuns(dirs []string) (*rundir.Run, error) {
	if len(dirs) == 1 {
		return ReadRun(dirs[0])
	}
	runs := make([]*rundir.Run, len(dirs))
	for i, dir := range dirs {
		r, err := ReadRun(dir)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	r, err := rundir.Combine(runs...)
	if err != nil {
		return nil, InputError{Err: err}
	}
	return r, nil
}

// ReadModelFile returns the model spec and the scaler of a run directory.
func ReadModelFile(r *rundir.Run) (*ModelFile, *data.Scaler, error) {
	path := filepath.Join(strings.Split(r.Dir, ", ")[0], rundir.SpecFile)
	if r.Spec == nil {
		return nil, nil, InputErrorf("--samples %s: no %s (written by langevin run --out)", r.Dir, rundir.SpecFile)
	}
	mf, err := rundir.DecodeModelFile(r.Spec)
	if err != nil {
		return nil, nil, InputErrorf("%s: %v", path, err)
	}
	sc := r.Scaler
	scPath := filepath.Join(strings.Split(r.Dir, ", ")[0], rundir.ScalerFile)
	if sc == nil && mf.Mean != nil {
		sc, scPath = &data.Scaler{Mean: mf.Mean, Scale: mf.Scale}, path
		if err := rundir.CheckScaler(sc); err != nil {
			return nil, nil, InputErrorf("%s: %v", path, err)
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
func checkModelFile(r *rundir.Run, mf *ModelFile, sc *data.Scaler, path, scPath string) error {
	standardised := false
	for _, kv := range r.Settings {
		if kv[0] == "standardize" {
			standardised = kv[1] == "true"
		}
	}
	if sc == nil && standardised && mf.Spec.NeedsData() {
		return InputErrorf("%s: missing, but the chain files record standardize = true: the draws are on the standardised scale; restore the run's %s (or run again)", scPath, rundir.ScalerFile)
	}
	if mf.Spec.YStandardized && (sc == nil || sc.TargetScale == 0) {
		// The model predicts the standardised response: without its mean
		// and sd the predictions could not be put back in y's units.
		return InputErrorf("%s: no target_mean and target_scale, but %s says the run standardised the response (y_standardized): restore the run's %s (or run again)", scPath, path, rundir.ScalerFile)
	}
	if sc != nil && len(sc.Mean) != len(mf.Features) {
		return InputErrorf("%s: %d means and scales, but %s names %d features: expected one per feature", scPath, len(sc.Mean), path, len(mf.Features))
	}
	return nil
}

// DrawsOf returns every kept draw of the run, the first d columns of each
// (derived quantities follow the parameters).
func DrawsOf(r *rundir.Run, d int) ([][]float64, error) {
	var draws [][]float64
	for _, ch := range r.Trace.Draws {
		for _, row := range ch {
			if len(row) < d {
				return nil, InputErrorf("--samples %s: the chains have %d columns, model.json describes a model with %d parameters", r.Dir, len(row), d)
			}
			draws = append(draws, row[:d])
		}
	}
	if len(draws) == 0 {
		return nil, InputError{Err: errors.New("--samples " + r.Dir + ": no draws")}
	}
	return draws, nil
}

// PredictiveDraws returns the draws of the run's posterior predictive, the
// first d columns of each: every kept draw alike (DrawsOf), or, when
// model.json records the chains' weights (a network's stacking), draws
// whose equal-weight mixture is the chains' mixture with those weights
// (MixtureDraws: the chains cut to the shortest).
func PredictiveDraws(r *rundir.Run, mf *ModelFile, d int) ([][]float64, error) {
	all, err := DrawsOf(r, d)
	if err != nil || mf == nil || mf.ChainWeights == nil {
		return all, err
	}
	if len(mf.ChainWeights) != len(r.Trace.Draws) {
		return nil, InputErrorf("%s: %d chain_weights, but %s has %d chain files: expected one weight a chain", filepath.Join(r.Dir, rundir.SpecFile), len(mf.ChainWeights), r.Dir, len(r.Trace.Draws))
	}
	return MixtureDraws(r.Trace, d, mf.ChainWeights), nil
}

// runID is the identifier of a run: a hash of its configuration and
// columns, the same for every process of one analysis.
func runID(cfg stancsv.Config, statNames, names []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%#v\n%q\n%q\n", cfg, statNames, names)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// FmtF formats v in the shortest form that reads back exactly.
func FmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rowBytes is the memory of one kept draw of m in a trace: the model's
// columns (derived quantities included) and about 8 sampler statistics as
// float64s, two slice headers and the iteration.
func rowBytes(m langevin.Model) int64 {
	cols := int64(m.Dim()+len(DerivedNames(m))) + 8
	return cols*8 + 56
}

// CheckRunSize refuses, before the sampling, a run whose draws held in
// memory (warm-up included: run keeps them for the report) would not fit:
// the rows langevin.Options.KeptRows counts (auto's growing thinning, MaxKeep,
// included), each of the model's columns and about 8 statistics, and the
// d×d matrices of the dense curvature the run forms (DenseCurvatureNeed).
// The arithmetic saturates: --iters near 2^63 is refused, not wrapped round.
func CheckRunSize(c *Config, m langevin.Model, o langevin.Options) error {
	warm, post := o.KeptRows()
	keep := budget.SatAdd(warm, post)
	cols := int64(m.Dim()+len(DerivedNames(m))) + 8 // + the sampler's statistics, about 8
	perRow := rowBytes(m)
	draws := budget.SatMul(budget.SatMul(int64(max(o.Chains, 1)), keep), perRow)
	curv, what := DenseCurvatureNeed(c, m)
	need := budget.SatAdd(draws, curv)
	limit := budget.Memory()
	if need <= limit {
		return nil
	}
	why := ""
	if warm > post {
		why = fmt.Sprintf(" (%d of them warm-up draws, kept for the report)", warm)
	}
	if curv > 0 && draws <= limit { // the curvature tips it: say so, and what to change
		return InputErrorf("%s: %s (%s) and the %d × %d kept draws%s of %d columns (%s) would take %s in memory, more than %s (half this machine's memory, or a quarter of ulimit -v): %s",
			runSizeSettings(c, o), what, budget.FmtBytes(curv), max(o.Chains, 1), keep, why, cols, budget.FmtBytes(draws), budget.FmtBytes(need), budget.FmtBytes(limit), curvatureAdvice(c))
	}
	return InputErrorf("%s: the %d × %d kept draws%s of %d columns would take %s in memory, more than %s (half this machine's memory, or a quarter of ulimit -v): raise --thin, or lower --iters or --chains",
		runSizeSettings(c, o), max(o.Chains, 1), keep, why, cols, budget.FmtBytes(need), budget.FmtBytes(limit))
}

// DenseCurvatureNeed returns the memory of the d×d matrices a run of c on m
// forms, and what they are: the dense Laplace approximation (the Hessian,
// its Cholesky factor, the precision and the covariance) under
// --precond laplace or --init laplace, and --sampler auto's dense plan (the
// Laplace approximation and the step rule's matrices) at most
// DenseCurvatureMax parameters; 0 when the run forms none (auto's
// diagonal, block-arrow, cost and network plans; the samplers that need no
// Laplace approximation).
func DenseCurvatureNeed(c *Config, m langevin.Model) (int64, string) {
	d := m.Dim()
	if c.Sampler == "auto" {
		_, isNet := m.(Network)
		_, isMLP := m.(*model.MLP)
		if !isNet && !isMLP && !BlockPlanned(m, nil) && !CostPlanned(m) && !DiagPlanned(m, c.planKind()) {
			return DenseCurvatureBytes(d, DenseCurvatureMatrices), fmt.Sprintf("the plan's dense curvature at d = %d (%d d×d matrices: the Hessian, the Laplace covariance and the step rule's)", d, DenseCurvatureMatrices)
		}
	}
	if c.UsesLaplacePrecondOn(m) || c.UsesLaplaceInitOn(m) {
		return DenseCurvatureBytes(d, LaplaceMatrices), fmt.Sprintf("the dense Laplace approximation at d = %d (%d d×d matrices: the Hessian, the precision, its Cholesky factor and the covariance)", d, LaplaceMatrices)
	}
	return 0, ""
}

// curvatureAdvice is what to change when the dense curvature does not fit.
func curvatureAdvice(c *Config) string {
	switch {
	case c.Sampler == "auto" && c.Init == "laplace" && c.Set["init"]:
		return "drop --init laplace (the plan starts the chains itself), or lower --chains"
	case c.Sampler == "auto":
		return "lower --chains or --target-ess"
	case c.Set["precond"] || c.Set["init"]:
		return "drop --precond laplace / --init laplace, or use --sampler auto (diagonal above d = 2500)"
	}
	return "use --precond none and --init map, or --sampler auto (diagonal above d = 2500)"
}

// runSizeSettings names what set the draws a run keeps: the flags given,
// and the values the plan chose (or the defaults) for those not given, by
// what they are ("burn-in 481848") — never as a flag the user did not give
// ("--iters 10000000", auto's cap, which its bound on kept draws makes moot).
func runSizeSettings(c *Config, o langevin.Options) string {
	var given, chosen []string
	for _, s := range []struct {
		flag, what string
		set, used  int
		counts     bool // the value enters the count (iterations: not under a bound on kept draws)
	}{
		{"chains", "chains", c.Chains, o.Chains, true},
		{"iters", "iterations", c.Iters, o.Iters, o.MaxKeep == 0},
		{"burnin", "burn-in", c.Burnin, o.BurnIn, o.SaveWarmup || o.MaxKeep == 0},
		{"thin", "thin", c.Thin, o.Thin, true},
	} {
		switch {
		case c.Set[s.flag] && s.flag == "chains" && c.ChainID > 0:
			given = append(given, fmt.Sprintf("--chains %d --chain-id %d", s.set, c.ChainID))
		case c.Set[s.flag]:
			given = append(given, fmt.Sprintf("--%s %d", s.flag, s.set))
		case !s.counts:
		case s.flag == "chains":
			chosen = append(chosen, fmt.Sprintf("%d chains", s.used))
		default: // the plan's or the default: named by what it is, not as a flag
			chosen = append(chosen, fmt.Sprintf("%s %d", s.what, s.used))
		}
	}
	if _, post := o.KeptRows(); o.MaxKeep > 0 && post > 2*int64(o.MaxKeep) {
		chosen = append(chosen, fmt.Sprintf("the plan's rounds of %d iterations (a chain holds a round's draws before its bound of %d kept draws thins them)", o.CheckEvery, o.MaxKeep))
	}
	return strings.Join(append(given, chosen...), ", ")
}
