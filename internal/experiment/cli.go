package experiment

import (
	"context"
	"io"
	"path/filepath"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// cliRun adapts an experiment written as a command, which catches its own
// interrupt (os.Interrupt) and ignores ctx, to Experiment.Run.
func cliRun(run func(args []string, stdout, stderr io.Writer) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) error {
		return run(args, stdout, stderr)
	}
}

// writeTrace writes a finished trace, kept and warm-up draws, into the run
// directory dir (package rundir) with the summary table, and returns the
// files written, for the output.
func writeTrace(dir string, cfg stancsv.Config, tr *langevin.Trace, table diag.Table) (string, error) {
	w, err := rundir.Create(dir, rundir.Options{Overwrite: true})
	if err != nil {
		return "", err
	}
	for c := range tr.Draws {
		cw, err := w.Chain(c+1, cfg, tr.StatNames, tr.Names)
		if err != nil {
			w.Close(err)
			return "", err
		}
		if c < len(tr.Warmup) {
			wu := tr.Warmup[c]
			for i, th := range wu.Theta {
				if err := cw.Draw(true, wu.Iters[i], th, wu.Stats[i]); err != nil {
					w.Close(err)
					return "", err
				}
			}
		}
		for i, th := range tr.Draws[c] {
			if err := cw.Draw(false, tr.Iters[c][i], th, tr.Stats[c][i]); err != nil {
				w.Close(err)
				return "", err
			}
		}
	}
	if err := w.WriteSummary(table); err != nil {
		w.Close(err)
		return "", err
	}
	if err := w.Close(nil); err != nil {
		return "", err
	}
	files := filepath.Join(dir, rundir.ChainFile(1))
	if n := len(tr.Draws); n > 1 {
		files += " … " + rundir.ChainFile(n)
	}
	return files + ", " + filepath.Join(dir, rundir.SummaryFile), nil
}
