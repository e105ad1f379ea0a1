package fit

import (
	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// RunWriter is where the run of a Problem writes as it goes (langevin run's
// output directory): the chains' draws as they come, the checkpoints, and at the
// end the summary and the model. The command passes one in Settings (its
// run directory's, written through package rundir).
type RunWriter interface {
	// Open opens the files of chains chains from chain first (1-based) of
	// a run as planned (the headers record it), with the sampler's
	// statistics and the draws' names; resuming a run, it returns where the
	// chains continue from (nil: from the start).
	Open(planned *Config, first, chains int, statNames, names []string) (*langevin.Resume, error)
	// Sink is langevin.Options.Sink.
	Sink(chain int) langevin.DrawSink
	// Checkpoint is langevin.Options.Checkpoint.
	Checkpoint(cp *langevin.Checkpoint) error
	// Sampled records the end of the sampling; finished: not stopped by a
	// signal.
	Sampled(tr *langevin.Trace, finished bool)
	// Abandon closes a run that has no draw to write, with its error.
	Abandon(runErr error) error
	// Finish makes the files hold the draws of tr, writes the summary
	// (table nil: none, a failed run) and the model with the chains'
	// weights (nil: none), closes the files with runErr as their status and
	// returns the files written, for the output.
	Finish(tr *langevin.Trace, runErr error, table diag.Table, weights *ChainWeights) (string, error)
}
