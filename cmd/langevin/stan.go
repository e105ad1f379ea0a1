package main

import (
	"os"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/stan"
)

// --stan: a Stan program as the model, built by package stan with --data
// as its JSON data; the command only reads the files and prints the notes.

// buildStanModel reads --stan and --data and builds the model.
func buildStanModel(j *fit.Problem) error {
	c := j.C
	src, err := os.ReadFile(c.Stan)
	if err != nil {
		return fit.InputErrorf("--stan: %v", err)
	}
	prog, err := stan.Parse(c.Stan, string(src))
	if err != nil {
		return fit.InputError{Err: err}
	}
	var d *stan.Data
	if c.Set["data"] {
		b, err := os.ReadFile(c.Data)
		if err != nil {
			return fit.InputErrorf("--data: %v", err)
		}
		if d, err = stan.ParseData(c.Data, b); err != nil {
			return fit.InputError{Err: err}
		}
	}
	m, err := stan.New(prog, d)
	if err != nil {
		return fit.InputError{Err: err}
	}
	for _, n := range m.Notes {
		j.Stderr.Write([]byte("langevin run: note: " + n + "\n"))
	}
	j.M = m
	j.ModelSettings = [][2]string{{"model", "stan"}, {"stan", c.Stan}}
	source := c.Data
	if d == nil {
		source = "no data"
	}
	j.Train = &data.Dataset{Source: source}
	return nil
}

// stanTable is the summary table a --stan run prints: the parameters,
// transformed parameters and generated quantities as CmdStan names them,
// without the unconstrained θ (the chain files and summary.csv keep every
// column).
func stanTable(t diag.Table, m *stan.Model) diag.Table {
	keep := map[string]bool{}
	for _, n := range m.DerivedNames() {
		keep[n] = true
	}
	out := make(diag.Table, 0, len(keep))
	for _, s := range t {
		if keep[s.Name] {
			out = append(out, s)
		}
	}
	return out
}
