package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/langevin-go/langevin/rundir"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/formula"
)

// --formula: a model written as statisticians write it (lme4/brms), built
// by package formula from the CSV file --data; the command only reads the
// flags and prints what the package decided.

type formulaConfig struct {
	text, family, priors string
}

func registerFormulaFlags(fs *flag.FlagSet, f *formulaConfig) {
	fs.StringVar(&f.text, "formula", "", "model `FORMULA` as lme4/brms write it, e.g. 'y ~ x + (1 + x | g)' (see docs/formulas.md); --data is a CSV file with a header, text columns are categorical; replaces --model")
	fs.StringVar(&f.family, "family", "gaussian", "--formula: response family gaussian|bernoulli (logistic)|probit|poisson|negbinomial|student")
	fs.StringVar(&f.priors, "priors", "", "--formula: priors replacing brms's defaults, 'class ~ dist(args); …' with class Intercept|b|sd|cor|sigma|nu|shape, e.g. 'b ~ normal(0, 1); sd ~ exponential(1)'")
}

// buildFormulaModel reads --data as a table and builds the --formula model
// on all its rows (no test split: the formula names its own columns).
func (j *job) buildFormulaModel() error {
	c := j.c
	f, err := formula.Parse(c.formula.text)
	if err != nil {
		return inputErrorf("--formula: %v", err)
	}
	priors, err := formula.ParsePriors(c.formula.priors)
	if err != nil {
		return inputErrorf("--priors: %v", err)
	}
	tab, err := formula.ReadCSVFile(c.data)
	if err != nil {
		return inputErrorf("--data: %v", err)
	}
	m, err := formula.New(f, tab, formula.Options{Family: c.formula.family, Priors: priors})
	if err != nil {
		return inputErrorf("--formula %q on --data %s: %v", c.formula.text, c.data, err)
	}
	j.m = m
	j.train = &data.Dataset{Source: c.data, Y: make([]float64, tab.Len())}
	if c.out != "" || c.report {
		rec, err := formula.NewRecord(m, c.data, c.formula.priors, formula.Options{Family: c.formula.family}, formula.NewLevelsPopulation)
		if err != nil {
			return inputErrorf("--data: %v", err)
		}
		if j.formulaRecord, err = json.Marshal(rec); err != nil {
			return err
		}
	}
	return nil
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
// new-levels rule of the record or --new-levels.
func predictFormula(w io.Writer, raw json.RawMessage, r *rundir.Run, path, newLevels string, level float64, seed uint64, out string) error {
	var rec formula.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return inputErrorf("--samples %s: model.json: formula: %v", r.Dir, err)
	}
	if newLevels == "" {
		newLevels = rec.NewLevels
	}
	rule, err := formula.ParseNewLevels(newLevels)
	if err != nil {
		return inputErrorf("--new-levels: %v", err)
	}
	m, err := rec.Rebuild()
	if err != nil {
		return inputErrorf("--samples %s: %v", r.Dir, err)
	}
	tab, err := formula.ReadCSVFile(path)
	if err != nil {
		return inputErrorf("--data: %v", err)
	}
	draws, err := drawsOf(r, m.Dim())
	if err != nil {
		return err
	}
	pred, err := m.Predict(tab, draws, rule, rand.New(rand.NewPCG(seed, 0x707264)))
	if err != nil {
		return inputErrorf("--data %s: %v", path, err)
	}
	fmt.Fprintf(w, "%s regression (formula %s, %s) on %s: %d rows, %d draws from %s\n", m.Family, rec.Formula, rec.Data, path, tab.Len(), len(draws), r.Dir)
	fmt.Fprintf(w, "new levels: %s (%s)\n", rule, formula.NewLevelsWhy(rule))
	for _, l := range pred.NewLevels {
		fmt.Fprintf(w, "new level: %s\n", l)
	}
	s := pred.Summarize(level)
	if y, ok := m.Observed(tab); ok {
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
func printFormulaHeader(w io.Writer, j *job, pc *runConfig) {
	m := j.m.(*formula.Model)
	fmt.Fprintf(w, "%s regression (formula) on %s (N = %d, d = %d), %s, %s\n", m.Family, j.c.data, m.Len(), m.Dim(), pc.describe(), j.c.chainsText())
	blockPlan := j.env != nil && j.env.auto != nil && j.env.auto.plan != nil && j.env.auto.plan.Arrow != nil
	if m.HasGroups() && pc.def.kind.minibatch && !blockPlan {
		fmt.Fprintf(w, "warning:  %s\n", formula.StochasticGradientCaveat)
	}
	fmt.Fprintf(w, "formula:  %s\n", m.Formula.Text)
	for _, g := range m.Groups() {
		fmt.Fprintf(w, "groups:   %s\n", g)
	}
	for _, p := range m.PriorLines() {
		fmt.Fprintf(w, "auto: prior %s\n", p)
	}
	fmt.Fprintln(w)
}
