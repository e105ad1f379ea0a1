package main

// The one reader and writer of a run directory (langevin run --out DIR):
// DIR/chain-K.csv (CmdStan format, the kept draws), DIR/warmup-K.csv (the
// burn-in draws), DIR/summary.csv, DIR/model.json (the model's spec, the
// data's columns and the training standardisation). run, report, predict
// and the experiments read and write run directories only through here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/stancsv"
)

func writeOutput(f *runFlags, tr *langevin.Trace, table diag.Table, m langevin.Model, spec model.Spec) (string, error) {
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return "", err
	}
	cols := append(append([]string(nil), tr.StatNames...), tr.Names...)
	row := make([]float64, len(cols))
	for c := range tr.Draws {
		path := filepath.Join(f.out, fmt.Sprintf("chain-%d.csv", c+1))
		fh, err := os.Create(path)
		if err != nil {
			return "", err
		}
		cfg := stancsv.Config{
			Model: f.model, Method: "sample", Algorithm: f.sampler,
			NumSamples: f.iters - f.burnin, NumWarmup: f.burnin, Thin: f.thin,
			Seed: f.seed, ChainID: c + 1,
			Extra: [][2]string{
				{"data", f.data}, {"schedule", f.schedule}, {"step", strconv.FormatFloat(buildSchedule(f, m.Len()).At(1), 'g', -1, 64)},
				{"step_a", strconv.FormatFloat(stepA(f, m.Len()), 'g', -1, 64)}, {"step_b", fmtF(f.stepB)}, {"decay", fmtF(f.decay)},
				{"batch", strconv.Itoa(f.batch)}, {"replace", strconv.FormatBool(f.replace)},
				{"temperature", fmtF(f.temperature)}, {"init", f.init},
				{"standardize", strconv.FormatBool(f.standardize)}, {"intercept", strconv.FormatBool(f.intercept)},
				{"precond", f.precond}, {"clip", fmtF(f.clip)}, {"clip_value", fmtF(f.clipValue)},
				{"noise_every", strconv.Itoa(f.noiseEvery)}, {"chains", strconv.Itoa(f.chains)},
			},
		}
		sw, err := stancsv.NewWriter(fh, cfg, cols)
		if err != nil {
			fh.Close()
			return "", err
		}
		for i, th := range tr.Draws[c] {
			copy(row, tr.Stats[c][i])
			copy(row[len(tr.StatNames):], th)
			if err := sw.Write(row); err != nil {
				fh.Close()
				return "", err
			}
		}
		if err := sw.Flush(); err != nil {
			fh.Close()
			return "", err
		}
		if err := fh.Close(); err != nil {
			return "", err
		}
		if err := writeWarmup(f, tr, c, cfg, cols, m.Len()); err != nil { // warmup-K.csv, for langevin report
			return "", err
		}
	}
	sp := filepath.Join(f.out, "summary.csv")
	fh, err := os.Create(sp)
	if err != nil {
		return "", err
	}
	if err := table.WriteCSV(fh); err != nil {
		fh.Close()
		return "", err
	}
	if err := fh.Close(); err != nil {
		return "", err
	}
	specPath, err := writeModelFile(f, spec)
	if err != nil {
		return "", err
	}
	files := filepath.Join(f.out, "chain-1.csv")
	if len(tr.Draws) > 1 {
		files += fmt.Sprintf(" … chain-%d.csv", len(tr.Draws))
	}
	if specPath != "" {
		sp += ", " + specPath
	}
	return files + ", " + sp, nil
}

func stepA(f *runFlags, n int) float64 {
	if f.set["step"] {
		return f.step
	}
	return defaultStep(f, n)
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeWarmup writes chain c's burn-in draws (thinned like the kept ones) to
// DIR/warmup-K.csv, a Stan CSV file of warm-up rows only (save_warmup = 1,
// num_samples = 0), so that langevin report can shade the burn-in and find
// the noise crossover while chain-K.csv stays exactly what Stan tools expect.
func writeWarmup(f *runFlags, tr *langevin.Trace, c int, cfg stancsv.Config, cols []string, n int) error {
	if c >= len(tr.Warmup) || len(tr.Warmup[c].Theta) == 0 {
		return nil
	}
	cfg.NumSamples, cfg.SaveWarmup = 0, true
	fh, err := os.Create(filepath.Join(f.out, fmt.Sprintf("warmup-%d.csv", c+1)))
	if err != nil {
		return err
	}
	sw, err := stancsv.NewWriter(fh, cfg, cols)
	if err != nil {
		fh.Close()
		return err
	}
	row := make([]float64, len(cols))
	w := tr.Warmup[c]
	for i, th := range w.Theta {
		copy(row, w.Stats[i])
		copy(row[len(tr.StatNames):], th)
		if err := sw.Write(row); err != nil {
			fh.Close()
			return err
		}
	}
	if err := sw.WriteAdaptation(buildSchedule(f, n).At(f.burnin+1), nil); err != nil {
		fh.Close()
		return err
	}
	if err := sw.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// readRunDir reads DIR/chain-*.csv into a Trace, with the burn-in draws of
// DIR/warmup-*.csv (or of the chain files themselves, when they were saved
// with save_warmup = 1), and the settings recorded in chain-1.csv's comments.
func readRunDir(dir string) (*langevin.Trace, [][2]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, nil, inputError{err}
	}
	if !st.IsDir() {
		return nil, nil, inputErrorf("%s: not a directory: expected the --out DIR of langevin run", dir)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "chain-*.csv"))
	type numbered struct {
		n    int
		path string
	}
	var files []numbered
	for _, p := range paths {
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "chain-"), ".csv")
		if n, err := strconv.Atoi(base); err == nil {
			files = append(files, numbered{n, p})
		}
	}
	if len(files) == 0 {
		return nil, nil, inputErrorf("%s: no chain-1.csv, chain-2.csv, …: expected the --out DIR of langevin run", dir)
	}
	sort.Slice(files, func(a, b int) bool { return files[a].n < files[b].n })

	tr := &langevin.Trace{}
	var settings [][2]string
	var cols []string
	for ci, nf := range files {
		f, err := stancsv.ReadFile(nf.path)
		if err != nil {
			return nil, nil, inputError{err}
		}
		if ci == 0 {
			cols = f.Columns
			for _, c := range cols {
				if strings.HasSuffix(c, "__") {
					tr.StatNames = append(tr.StatNames, c)
				} else {
					tr.Names = append(tr.Names, c)
				}
			}
			tr.Dim = len(tr.Names)
			settings = configSettings(f)
			tr.Thin = max(1, atoi(f.Config["thin"]))
			tr.BurnIn = atoi(f.Config["num_warmup"])
		} else if !equal(cols, f.Columns) {
			return nil, nil, inputErrorf("%s: columns differ from %s's", nf.path, files[0].path)
		}
		if len(f.Draws) == 0 {
			return nil, nil, inputErrorf("%s: no draws", nf.path)
		}
		split := func(rows [][]float64, firstIter int) ([][]float64, [][]float64, []int) {
			theta := make([][]float64, len(rows))
			stats := make([][]float64, len(rows))
			iters := make([]int, len(rows))
			for t, row := range rows {
				for k, c := range cols {
					if strings.HasSuffix(c, "__") {
						stats[t] = append(stats[t], row[k])
					} else {
						theta[t] = append(theta[t], row[k])
					}
				}
				iters[t] = firstIter + t*tr.Thin
			}
			return theta, stats, iters
		}
		th, sts, its := split(f.Draws, tr.BurnIn+1)
		tr.Draws = append(tr.Draws, th)
		tr.Stats = append(tr.Stats, sts)
		tr.Iters = append(tr.Iters, its)
		warm := f.Warmup
		wp := filepath.Join(dir, fmt.Sprintf("warmup-%d.csv", nf.n))
		if wf, err := stancsv.ReadFile(wp); err == nil {
			if !equal(cols, wf.Columns) {
				return nil, nil, inputErrorf("%s: columns differ from %s's", wp, nf.path)
			}
			warm = wf.Warmup
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, inputError{err}
		}
		wth, wst, wit := split(warm, 1)
		tr.Warmup = append(tr.Warmup, langevin.Draws{Theta: wth, Stats: wst, Iters: wit})
	}
	return tr, settings, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// configSettings returns the "key = value" comment lines before the draws in
// file order, without CmdStan's bookkeeping keys.
func configSettings(f *stancsv.File) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, line := range f.Comments {
		l := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if strings.HasPrefix(l, "Adaptation terminated") {
			break
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || strings.Contains(k, " ") || seen[k] {
			continue
		}
		switch k {
		case "id", "method", "random", "output", "file", "save_warmup", "sample":
			continue
		}
		seen[k] = true
		out = append(out, [2]string{k, strings.TrimSuffix(v, " (Default)")})
	}
	return out
}

// modelFile is DIR/model.json, written by langevin run --out DIR next to the
// chains: the model's spec (model.Spec, whose fields it inlines) and what
// langevin predict needs to read new data as the training data were read.
type modelFile struct {
	model.Spec
	Data     string    `json:"data"`
	Target   string    `json:"target"`
	Features []string  `json:"features"`
	Mean     []float64 `json:"standardize_mean,omitempty"`
	Scale    []float64 `json:"standardize_scale,omitempty"`
	// Intercept is the setting of files written before model.Spec
	// (no_intercept); read only.
	Intercept *bool `json:"intercept,omitempty"`
}

// writeModelFile writes DIR/model.json and returns its path; it writes
// nothing (and returns "") for the toy targets, which have no data.
func writeModelFile(f *runFlags, spec model.Spec) (string, error) {
	train := f.train
	if train == nil || !spec.NeedsData() {
		return "", nil
	}
	mf := modelFile{Spec: spec, Data: f.data, Target: train.Target, Features: train.Names}
	if f.scaler != nil {
		mf.Mean, mf.Scale = f.scaler.Mean, f.scaler.Scale
	}
	b, err := json.MarshalIndent(mf, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(f.out, "model.json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// readModelFile reads DIR/model.json.
func readModelFile(dir string) (*modelFile, error) {
	path := filepath.Join(dir, "model.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, inputErrorf("--samples %s: %v (written by langevin run --out)", dir, err)
	}
	var mf modelFile
	if err := json.Unmarshal(b, &mf); err != nil {
		return nil, inputErrorf("%s: %v", path, err)
	}
	if mf.Intercept != nil && !*mf.Intercept {
		mf.NoIntercept = true
	}
	if err := mf.Spec.Validate(); err != nil {
		return nil, inputErrorf("%s: %v", path, err)
	}
	return &mf, nil
}

// readDraws reads the parameter columns of DIR/chain-*.csv in the order of
// the model's parameters (derived quantities are dropped).
func readDraws(dir string) ([][]float64, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "chain-*.csv"))
	if len(files) == 0 {
		return nil, inputErrorf("--samples %s: no chain-*.csv files", dir)
	}
	sort.Strings(files)
	var draws [][]float64
	for _, path := range files {
		cf, err := stancsv.ReadFile(path)
		if err != nil {
			return nil, inputError{err}
		}
		var cols []int
		for j, c := range cf.Columns {
			if len(c) < 2 || c[len(c)-2:] != "__" {
				if c == "sigma2" {
					continue // derived
				}
				cols = append(cols, j)
			}
		}
		for _, row := range cf.Draws {
			th := make([]float64, len(cols))
			for k, j := range cols {
				th[k] = row[j]
			}
			draws = append(draws, th)
		}
	}
	if len(draws) == 0 {
		return nil, inputErrorf("--samples %s: no draws", dir)
	}
	return draws, nil
}
