package main

import (
	"fmt"
	"io"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
)

// --formula: a model written as statisticians write it (lme4/brms), built
// by package formula from the CSV file --data; the command only reads the
// flags and prints what the package decided.

// buildFormulaModel reads --data as a table and builds the --formula model
// on all its rows (no test split: the formula names its own columns).
func buildFormulaModel(j *fit.Problem) error {
	c := j.C
	f, err := formula.Parse(c.Formula.Text)
	if err != nil {
		return fit.InputErrorf("--formula: %v", err)
	}
	priors, err := formula.ParsePriors(c.Formula.Priors)
	if err != nil {
		return fit.InputErrorf("--priors: %v", err)
	}
	tab, err := formula.ReadCSVFile(c.Data)
	if err != nil {
		return fit.InputErrorf("--data: %v", err)
	}
	m, err := formula.New(f, tab, formula.Options{Family: c.Formula.Family, Priors: priors})
	if err != nil {
		return fit.InputErrorf("--formula %q on --data %s: %v", c.Formula.Text, c.Data, err)
	}
	j.M = m
	j.Train = &data.Dataset{Source: c.Data, Y: make([]float64, tab.Len())}
	return nil
}

// printFormulaHeader prints the model, its groups and its priors, and the
// caveat of a stochastic-gradient sampler on a hierarchical model.
func printFormulaHeader(w io.Writer, j *fit.Problem, pc *fit.Config) {
	m := j.M.(*formula.Model)
	fmt.Fprintf(w, "%s regression (formula) on %s (N = %d, d = %d), %s, %s\n", m.Family, j.C.Data, m.Len(), m.Dim(), pc.Describe(), j.C.ChainsText())
	if m.HasGroups() && pc.Def.Kind.Minibatch {
		fmt.Fprintf(w, "warning:  %s\n", formula.StochasticGradientCaveat)
	}
	fmt.Fprintf(w, "formula:  %s\n", m.Formula.Text)
	for _, g := range m.Groups() {
		fmt.Fprintf(w, "groups:   %s; effects non-centred, r = diag(sd)·L·z\n", g)
	}
	for _, p := range m.PriorLines() {
		fmt.Fprintf(w, "auto: prior %s\n", p)
	}
	fmt.Fprintln(w)
}
