package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/rundir"
)

// kfoldFormulaDrop are the run flags of a --formula run that a refit sets
// itself or that described the original file: the folds are written as
// plain CSV (comma, point, NA).
var kfoldFormulaDrop = map[string]bool{"sep": true, "decimal": true, "na": true}

// looKFoldFormula is looKFold of a --formula run. Its folds leave out whole
// levels of a grouping factor (by: a column of the data; "" is the
// formula's first grouping factor, printed as an auto: note; "rows" is
// folds of single rows, and the rule when the formula has no grouping
// factor), as brms's kfold(folds = "grouped", group = by): the levels are
// dealt into K folds in a seeded random order. Each refit runs with the
// run's own arguments on its data without the fold, written as CSV; the
// fold's rows are scored by formula.Model.ScoreNewLevels, the effects of a
// level the refit did not see drawn from the group distribution once a
// draw (NewLevelsSample; brms's allow_new_levels = TRUE).
func looKFoldFormula(dir string, r *rundir.Run, raw json.RawMessage, K int, by string, seed uint64, lpd float64) (*kfoldResult, error) {
	var rec formula.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fit.InputErrorf("%s: model.json: formula: %v", dir, err)
	}
	read := runRead(r) // the run's delimiter, decimal mark and missing-value tokens
	fm, err := rec.Rebuild(read)
	if err != nil {
		return nil, fit.InputErrorf("--kfold: %s: %v", dir, err)
	}
	read.Missing = rec.Missing
	tab, _, err := formula.Read(rec.Data, "auto", fm.Formula, read)
	if err != nil {
		return nil, fit.InputErrorf("--kfold: %s: the run's data: %v", dir, err)
	}
	N := tab.Len()
	if N != fm.Len() {
		return nil, fmt.Errorf("--kfold: %s: %d rows read, the model has %d", rec.Data, N, fm.Len())
	}
	res := &kfoldResult{K: K, pointwise: make([]float64, N)}
	rng := rand.New(rand.NewPCG(seed, 1))
	fold := make([]int, N)
	if by == "" {
		if g := fm.GroupNames(); len(g) > 0 {
			by = g[0]
			res.note = fmt.Sprintf("auto: --kfold-by %s: folds of whole levels of %s, the formula's first grouping factor: each refit predicts levels it has not seen, as brms's kfold(folds = \"grouped\", group = \"%s\") (--kfold-by rows: folds of rows; --kfold-by COLUMN: of another column's values)", by, by, by)
		} else {
			by = "rows"
			res.note = "auto: --kfold-by rows: folds of rows (the formula has no grouping factor)"
		}
	}
	if by == "rows" {
		if K > N {
			return nil, fit.InputErrorf("--kfold %d: expected 2 to %d (the run's rows)", K, N)
		}
		for j, i := range rng.Perm(N) {
			fold[i] = j % K
		}
		res.by = "rows"
	} else {
		col, ok := tab.Column(by)
		if !ok {
			return nil, fit.InputErrorf("--kfold-by %s: no column %q among the formula's columns of %s (%s), nor rows", by, by, rec.Data, strings.Join(tab.Names(), ", "))
		}
		// the level of each row: a factor's code, a number's value
		level := make([]int, N)
		ids := map[string]int{}
		for i := range N {
			key := ""
			if col.Num != nil {
				key = fit.FmtF(col.Num[i])
			} else {
				key = fmt.Sprint(col.Codes[i])
			}
			id, ok := ids[key]
			if !ok {
				id = len(ids)
				ids[key] = id
			}
			level[i] = id
		}
		J := len(ids)
		if K > J {
			return nil, fit.InputErrorf("--kfold %d: %s has %d levels: expected 2 to %d folds of whole levels (or --kfold-by rows)", K, by, J, J)
		}
		lf := make([]int, J)
		for j, l := range rng.Perm(J) {
			lf[l] = j % K
		}
		for i, l := range level {
			fold[i] = lf[l]
		}
		res.by = fmt.Sprintf("whole levels of %s, %d levels", by, J)
	}
	args, err := refitArgs(dir, kfoldFormulaDrop)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "langevin-kfold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for k := range K {
		var train, test []int
		for i, fk := range fold {
			if fk == k {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		trainCSV := filepath.Join(tmp, fmt.Sprintf("train-%d.csv", k+1))
		testCSV := filepath.Join(tmp, fmt.Sprintf("test-%d.csv", k+1))
		if err := writeFrameRows(trainCSV, tab, train); err != nil {
			return nil, err
		}
		if err := writeFrameRows(testCSV, tab, test); err != nil {
			return nil, err
		}
		out := filepath.Join(tmp, fmt.Sprintf("fold-%d", k+1))
		var errb bytes.Buffer
		if code := runCommand(append([]string{"run"}, append(args, "--data", trainCSV, "--out", out, "--quiet")...), io.Discard, &errb); code != 0 {
			return nil, fmt.Errorf("--kfold: the refit without fold %d of %d: exit %d: %s", k+1, K, code, strings.TrimSpace(errb.String()))
		}
		rk, err := readRuns([]string{out})
		if err != nil {
			return nil, err
		}
		rawk := formulaOf(rk)
		if rawk == nil {
			return nil, fmt.Errorf("--kfold: the refit without fold %d: no formula record", k+1)
		}
		var reck formula.Record
		if err := json.Unmarshal(rawk, &reck); err != nil {
			return nil, err
		}
		mk, err := reck.Rebuild(runRead(rk))
		if err != nil {
			return nil, fmt.Errorf("--kfold: fold %d: %v", k+1, err)
		}
		held, _, err := formula.Read(testCSV, "auto", mk.Formula, data.TableOptions{})
		if err != nil {
			return nil, fmt.Errorf("--kfold: fold %d: %v", k+1, err)
		}
		draws, err := drawsOf(rk, mk.Dim())
		if err != nil {
			return nil, err
		}
		sc, err := mk.ScoreNewLevels(held, draws, formula.NewLevelsSample, rand.New(rand.NewPCG(seed, uint64(k)+2)))
		if err != nil {
			return nil, fmt.Errorf("--kfold: fold %d (%s): %v", k+1, res.by, err)
		}
		for j, i := range test {
			res.pointwise[i] = sc.RowLPD[j]
		}
	}
	res.summarize(lpd)
	return res, nil
}

// refitArgs are the arguments a run ran with (resume.json), without the
// flags a K-fold refit sets itself (kfoldDrop and extra).
func refitArgs(dir string, extra map[string]bool) ([]string, error) {
	ri, err := rundir.ReadResumeInfo(dir)
	if err != nil {
		return nil, fit.InputErrorf("--kfold: %s: the run's arguments are read from its resume.json: %v", dir, err)
	}
	c := &fit.Config{}
	fs := newRunFlagSet(c)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(ri.Args); err != nil {
		return nil, fit.InputErrorf("--kfold: %s: resume.json: %v", dir, err)
	}
	var args []string
	fs.Visit(func(fl *flag.Flag) {
		if !kfoldDrop[fl.Name] && !extra[fl.Name] {
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return args, nil
}

// writeFrameRows writes the rows of tab as CSV with a header: numbers
// exactly ('g', −1), a factor's level names, NA for a missing value.
func writeFrameRows(path string, tab *formula.Frame, rows []int) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(fh)
	names := tab.Names()
	cols := make([]formula.Column, len(names))
	for j, n := range names {
		cols[j], _ = tab.Column(n)
	}
	w.Write(names)
	rec := make([]string, len(names))
	for _, i := range rows {
		for j, c := range cols {
			switch {
			case c.Num != nil && !math.IsNaN(c.Num[i]):
				rec[j] = fit.FmtF(c.Num[i])
			case c.Num == nil && c.Codes[i] >= 0:
				rec[j] = c.Levels[c.Codes[i]]
			default:
				rec[j] = "NA"
			}
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
