package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/rundir"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/formula"
)

// --formula: a model written as statisticians write it (lme4/brms), built
// by package formula from the CSV file --data; the command only reads the
// flags and prints what the package decided.

// buildFormulaModel reads --data as a table (data.ReadTable, through
// formula.Read: every format of the plain path but LIBSVM, under its
// memory bound) and builds the --formula model on all its rows; --test,
// when given, is read the same way and returned for the test-set table.
func buildFormulaModel(j *fit.Problem) (*formula.Frame, error) {
	c := j.C
	f, err := formula.Parse(c.Formula.Text)
	if err != nil {
		return nil, fit.InputErrorf("--formula: %v", err)
	}
	priors, err := formula.ParsePriors(c.Formula.Priors)
	if err != nil {
		return nil, fit.InputErrorf("--priors: %v", err)
	}
	// Missing values matter in the formula's columns only (as brms's
	// model.frame); --missing drop drops their rows, counted per column.
	tab, dropped, err := readFormulaData(c, c.Data, "--data", f)
	if err != nil {
		return nil, err
	}
	if dropped != nil {
		note := "data:     no missing values in the formula's columns (--missing drop: rows with one would have been dropped)"
		if dropped.Rows > 0 {
			note = "warning:  rows containing missing values were excluded from the model (--missing drop): " + dropped.String()
		}
		j.DataNotes = append(j.DataNotes, note)
	}
	var test *formula.Frame
	if c.Test != "" {
		if test, _, err = readFormulaData(c, c.Test, "--test", f); err != nil {
			return nil, err
		}
	}
	// The design's columns: a quarter of the memory budget, as the data.
	m, err := formula.New(f, tab, formula.Options{Family: c.Formula.Family, Priors: priors, MaxDesignBytes: budget.Memory() / 4})
	if err != nil {
		return nil, fit.InputErrorf("--formula %q on --data %s: %v", clipText(c.Formula.Text, 200), c.Data, err)
	}
	j.M = m
	j.ModelSettings = formulaSettings(m, c.Formula.Priors)
	j.Train = &data.Dataset{Source: c.Data, Y: make([]float64, tab.Len())}
	if c.Out != "" || c.Report {
		rec, err := formula.NewRecord(m, c.Data, c.Formula.Priors, c.Columns.Missing, formula.Options{Family: c.Formula.Family}, formula.NewLevelsPopulation)
		if err != nil {
			return nil, fit.InputErrorf("--data: %v", err)
		}
		if j.FormulaRecord, err = json.Marshal(rec); err != nil {
			return nil, err
		}
	}
	if test != nil {
		if err := checkFormulaTest(m, test, c.Test); err != nil {
			return nil, err
		}
	}
	return test, nil
}

// checkFormulaTest refuses, before any sampling, a --test file the model
// cannot score: no response, or a group level the training data lack.
// Held-out rows of a new level are refused as brms refuses them by default
// (allow_new_levels = FALSE): the level's effect is not estimated, and
// scoring it at the population level or with sampled effects is a choice
// (langevin predict --new-levels makes it).
func checkFormulaTest(m *formula.Model, test *formula.Frame, path string) error {
	if _, ok, err := m.Observed(test); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("no column for the response %s", m.Formula.Response.Text)
		}
		return fit.InputErrorf("--test %s: the response: %v (the held-out rows are scored against it)", path, err)
	}
	_, err := m.Predict(test, nil, formula.NewLevelsError, nil)
	var nl *formula.NewLevelError
	if errors.As(err, &nl) {
		return fit.InputErrorf("--test %s: column %q: level %q (%d new level(s) in all) is not among the training data's levels of the grouping factor %s: held-out rows of a new level are refused, as brms does by default (allow_new_levels = FALSE), since its effect is not estimated; drop those rows, or predict them with langevin predict --new-levels population|sample", path, nl.Group, clipText(nl.Level, 40), nl.Count, nl.Group)
	}
	if err != nil {
		return fit.InputErrorf("--test %s: %v", path, err)
	}
	return nil
}

// printFormulaTest prints the test-set table of a --formula run with
// --test: RMSE (accuracy for bernoulli and probit) of the posterior mean
// and the mean log predictive density per row, in the data's units, for
// the posterior and the MAP (formula.Model.ScoreNew).
func printFormulaTest(w io.Writer, m *formula.Model, tr *langevin.Trace, mapTheta []float64, test *formula.Frame) {
	d := m.Dim()
	rows := tr.Rows()
	for i := range rows {
		rows[i] = rows[i][:d]
	}
	metric := "RMSE"
	if m.Family == "bernoulli" || m.Family == "probit" {
		metric = "accuracy"
	}
	score := func(draws [][]float64) (float64, float64, error) {
		sc, err := m.ScoreNew(test, draws)
		if err != nil {
			return 0, 0, err
		}
		return sc.Value, sc.LPD, nil
	}
	tt, err := fit.NewTestTable(metric, test.Len(), rows, mapTheta, score, "")
	if err != nil {
		fmt.Fprintf(w, "test set: %v\n\n", err)
		return
	}
	tt.Format(w)
}

// readFormulaData reads the formula's columns of path (--data or --test,
// named by flagName) in --format, as the plain path reads a file: a line
// longer than data.MaxLineBytes and values past a quarter of the memory
// budget refused, gzip decompressed.
func readFormulaData(c *fit.Config, path, flagName string, f *formula.Formula) (*formula.Frame, *formula.Dropped, error) {
	if c.Format == "libsvm" {
		return nil, nil, fit.InputErrorf("--format libsvm: a --formula names its columns, and LIBSVM has none (read delimited text with a header line, Parquet or a data store)")
	}
	tab, dropped, err := formula.Read(path, c.Format, f, c.Columns.TableOptions(budget.Memory()/4))
	switch {
	case errors.Is(err, formula.ErrMissing):
		return nil, nil, fit.InputErrorf("%s %v (--missing drop drops them)", flagName, err)
	case errors.Is(err, data.ErrTooLarge):
		return nil, nil, fit.InputErrorf("%s %v (a quarter of the memory budget: of half this machine's memory, or of a quarter of ulimit -v); read fewer rows", flagName, err)
	case err != nil:
		return nil, nil, fit.InputErrorf("%s %v", flagName, err)
	}
	return tab, dropped, nil
}

// formulaSettings are the settings that name a --formula run's model in
// the chain files' header, the summary and the report: model = glmm (a
// generalised linear mixed model: the formula has group-level terms) or
// glm, then the formula, the family (canonical: bernoulli for logistic)
// and the priors as given (none: brms's defaults, printed as auto: lines).
// model stays one word, as CmdStan's model name and every other run's
// (--model's kind); formula and family are their own keys, as brms's
// summary prints them.
func formulaSettings(m *formula.Model, priors string) [][2]string {
	kind := "glm"
	if m.HasGroups() {
		kind = "glmm"
	}
	return [][2]string{{"model", kind}, {"formula", m.Formula.Text}, {"family", m.Family}, {"priors", priors}}
}

// runRead returns the options the run read its data file with (its --na,
// --sep and --decimal, recorded in model.json), for reading that file
// again.
func runRead(r *rundir.Run) data.TableOptions {
	var f fit.ColumnFlags
	if r.Spec != nil {
		if mf, err := rundir.DecodeModelFile(r.Spec); err == nil {
			f.UseRead(mf.Read, nil)
		}
	}
	return f.TableOptions(budget.Memory() / 4)
}

// formulaOf returns model.json's formula record, nil when the run is not
// a --formula run (or model.json does not decode: readModelFile says why).
func formulaOf(r *rundir.Run) json.RawMessage {
	if r.Spec == nil {
		return nil
	}
	mf, err := rundir.DecodeModelFile(r.Spec)
	if err != nil {
		return nil
	}
	return mf.Formula
}

// predictFormula predicts new data from a --formula run: the model rebuilt
// from its record (formula.Record.Rebuild), the θ draws of the run, the
// new-levels rule of the record or --new-levels; the file read with read
// (the run's --na, --sep and --decimal unless predict's own say otherwise).
func predictFormula(w io.Writer, raw json.RawMessage, r *rundir.Run, path string, read data.TableOptions, newLevels string, level float64, seed uint64, out string) error {
	var rec formula.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return fit.InputErrorf("--samples %s: model.json: formula: %v", r.Dir, err)
	}
	if newLevels == "" {
		newLevels = rec.NewLevels
	}
	rule, err := formula.ParseNewLevels(newLevels)
	if err != nil {
		return fit.InputErrorf("--new-levels: %v", err)
	}
	m, err := rec.Rebuild(runRead(r))
	if err != nil {
		return fit.InputErrorf("--samples %s: %v", r.Dir, err)
	}
	tab, _, err := formula.Read(path, "auto", m.Formula, read) // the run's --na, --sep, --decimal, or predict's
	if err != nil {
		return fit.InputErrorf("--data: %v", err)
	}
	draws, err := drawsOf(r, m.Dim())
	if err != nil {
		return err
	}
	pred, err := m.Predict(tab, draws, rule, rand.New(rand.NewPCG(seed, 0x707264)))
	if err != nil {
		return fit.InputErrorf("--data %s: %v", path, err)
	}
	y, ok, err := m.Observed(tab)
	if err != nil {
		return fit.InputErrorf("--data %s: the response: %v", path, err)
	}
	fmt.Fprintf(w, "%s regression (formula %s, %s) on %s: %d rows, %d draws from %s\n", m.Family, rec.Formula, rec.Data, path, tab.Len(), len(draws), r.Dir)
	fmt.Fprintf(w, "new levels: %s (%s)\n", rule, formula.NewLevelsWhy(rule))
	for _, l := range pred.NewLevels {
		fmt.Fprintf(w, "new level: %s\n", l)
	}
	s := pred.Summarize(level)
	if ok {
		fmt.Fprintf(w, "%s\n", s.Score(y, m.Family))
	}
	fmt.Fprintln(w)
	if out != "" {
		return writeCSV(out, func(fw io.Writer) error { return s.WriteCSV(fw) })
	}
	return s.Print(w, 10)
}

// printFormulaHeader prints the model, its groups and its priors, and the
// caveat of a stochastic-gradient sampler on a hierarchical model.
func printFormulaHeader(w io.Writer, j *fit.Problem, pc *fit.Config) {
	m := j.M.(*formula.Model)
	fmt.Fprintf(w, "%s regression (formula) on %s (N = %d, d = %d), %s, %s\n", m.Family, j.C.Data, m.Len(), m.Dim(), pc.Describe(), j.C.ChainsText())
	blockPlan := j.Env != nil && j.Env.BlockPlanned()
	if m.HasGroups() && pc.Def.Kind.Minibatch && !blockPlan {
		fmt.Fprintf(w, "warning:  %s\n", formula.StochasticGradientCaveat)
	}
	fmt.Fprintf(w, "formula:  %s\n", m.Formula.Text)
	for _, l := range m.Warnings() {
		fmt.Fprintf(w, "warning:  %s\n", l)
	}
	for _, l := range j.DataNotes {
		fmt.Fprintln(w, l)
	}
	for _, g := range m.Groups() {
		fmt.Fprintf(w, "groups:   %s\n", g)
	}
	for _, p := range m.PriorLines() {
		fmt.Fprintf(w, "auto: prior %s\n", p)
	}
	fmt.Fprintln(w)
}

// formulaTable is the summary table a --formula run prints: the
// parameters as brms reports them, r_g[level,coef] spelt as brms does,
// without θ's internal columns (the chain files and summary.csv keep
// every column under CmdStan's names).
func formulaTable(t diag.Table, m *formula.Model) diag.Table {
	names := m.PrintedNames()
	out := make(diag.Table, 0, len(names))
	for _, s := range t {
		if n, ok := names[s.Name]; ok {
			s.Name = n
			out = append(out, s)
		}
	}
	return out
}

// formulaReportTrace is the trace a --formula run's report draws: the
// columns of formulaTable (brms's names, θ's internal columns left out),
// so that its first plots are b_Intercept, b_x, … rather than the scaled
// design's θ.
func formulaReportTrace(tr *langevin.Trace, m *formula.Model) *langevin.Trace {
	names := m.PrintedNames()
	var cols []int
	var out []string
	for j, n := range tr.Names {
		if p, ok := names[n]; ok {
			cols, out = append(cols, j), append(out, p)
		}
	}
	pick := func(rows [][]float64) [][]float64 {
		sel := make([][]float64, len(rows))
		for i, r := range rows {
			sel[i] = make([]float64, len(cols))
			for k, j := range cols {
				sel[i][k] = r[j]
			}
		}
		return sel
	}
	v := *tr
	v.Names, v.Dim = out, len(out)
	v.Draws = make([][][]float64, len(tr.Draws))
	for c, d := range tr.Draws {
		v.Draws[c] = pick(d)
	}
	v.Warmup = make([]langevin.Draws, len(tr.Warmup))
	for c, w := range tr.Warmup {
		v.Warmup[c] = langevin.Draws{Theta: pick(w.Theta), Stats: w.Stats, Iters: w.Iters}
	}
	return &v
}

// clipText returns s, or its first n characters and "…" (a message names
// a long formula or level, never copies it whole).
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
