package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/stancsv"
)

func writeOutput(f *runFlags, tr *langevin.Trace, table diag.Table, m langevin.Model) (string, error) {
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
	spec, err := writeModelSpec(f, m)
	if err != nil {
		return "", err
	}
	files := filepath.Join(f.out, "chain-1.csv")
	if len(tr.Draws) > 1 {
		files += fmt.Sprintf(" … chain-%d.csv", len(tr.Draws))
	}
	if spec != "" {
		sp += ", " + spec
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
