package rundir_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
	"github.com/langevin-go/langevin/stancsv"
)

// A run streams its draws into a run directory as they are taken; reading
// the directory gives them back with the run's status.
func Example() {
	tmp, _ := os.MkdirTemp("", "rundir")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "out")

	m := testmodel.NewMean(100, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3)}
	opts := langevin.Options{Chains: 2, Iters: 1000, BurnIn: 200, Thin: 2, Seed: 1}

	// Create checks and locks the directory before any work is done.
	w, err := rundir.Create(dir, rundir.Options{})
	if err != nil {
		log.Fatal(err)
	}
	chains := make([]*rundir.ChainWriter, opts.Chains)
	for c := range chains {
		cfg := stancsv.Config{Model: "mean", Algorithm: "sgld", Seed: opts.Seed,
			NumSamples: opts.Iters - opts.BurnIn, NumWarmup: opts.BurnIn, Thin: opts.Thin}
		if chains[c], err = w.Chain(c+1, cfg, s.StatNames(), langevin.ParamNames(m)); err != nil {
			log.Fatal(err)
		}
	}
	opts.Sink = func(c int) langevin.DrawSink { return chains[c] }
	_, runErr := langevin.Run(context.Background(), m, s, opts)
	// Close with the run's error: nil marks the files finished.
	if err := w.Close(runErr); err != nil {
		log.Fatal(err)
	}

	// A second run into the same directory is refused.
	_, err = rundir.Create(dir, rundir.Options{})
	fmt.Println(errors.Is(err, rundir.ErrExists))

	r, err := rundir.Read(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Status(), r.Trace.NumChains(), "chains,", len(r.Trace.Draws[0]), "draws each")
	// Output:
	// true
	// finished 2 chains, 400 draws each
}
