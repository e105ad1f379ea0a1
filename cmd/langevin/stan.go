package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

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
		f, err := os.Open(c.Data)
		if err != nil {
			return fit.InputErrorf("--data: %v", err)
		}
		d, err = stan.ReadData(c.Data, f) // streamed: 8 bytes a number, not the file in memory
		f.Close()
		if err != nil {
			return fit.InputError{Err: err}
		}
	}
	var m *stan.Model
	if c.Rows != "" {
		m, err = stan.NewRows(prog, d, c.Rows)
	} else {
		m, err = stan.New(prog, d)
	}
	if err != nil {
		return fit.InputError{Err: err}
	}
	if m.Dim() == 0 {
		return fit.InputErrorf("--stan %s: the program has no parameters: nothing to sample (sampling generated quantities alone is not supported yet)", c.Stan)
	}
	for _, n := range m.Notes {
		j.Stderr.Write([]byte("langevin run: note: " + n + "\n"))
	}
	interruptStan(m, c.MaxTime, j.Stderr)
	m.OnFault(func(err error) {
		fmt.Fprintf(j.Stderr, "langevin run: warning: %v: the point was rejected and the run goes on, but its draws may be biased\n", err)
	})
	j.M = m
	j.ModelSettings = [][2]string{{"model", "stan"}, {"stan", c.Stan}}
	if c.Rows != "" {
		j.ModelSettings = append(j.ModelSettings, [2]string{"rows", c.Rows})
	}
	source := c.Data
	if d == nil {
		source = "no data"
	}
	j.Train = &data.Dataset{Source: source}
	return nil
}

// stanGrace is how long past --max-time a Stan program's evaluation may
// run before it is interrupted: the run stops itself at --max-time between
// iterations, so only an evaluation stuck in a loop is still running then.
const stanGrace = 5 * time.Second

// interruptStan interrupts m's evaluations (Model.Interrupt: each loop
// rejects at its next iteration) at the first SIGINT or SIGTERM, and
// stanGrace after maxTime (if set), so that a program whose loop does not
// end lets the run stop cleanly with its draws; a second signal still
// exits at once (runctl).
func interruptStan(m *stan.Model, maxTime time.Duration, stderr io.Writer) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var expire <-chan time.Time
	if maxTime > 0 {
		expire = time.After(maxTime + stanGrace)
	}
	go func() {
		select {
		case <-sigs:
		case <-expire:
			fmt.Fprintf(stderr, "langevin run: --max-time %v passed %v ago and the Stan program is still evaluating (a loop that does not end?): interrupting it\n", maxTime, stanGrace)
		}
		signal.Stop(sigs)
		m.Interrupt()
	}()
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
