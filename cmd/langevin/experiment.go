package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/experiment"
)

// cmdExperiment runs langevin experiment NAME [flags]: the reproductions of
// the source documents, registered in package internal/experiment.
func cmdExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintf(stdout, "Usage: langevin experiment NAME [flags]   (langevin experiment NAME -h for its flags)\n\nExperiments:\n%s", experiment.List())
		if len(args) == 0 {
			return fit.InputErrorf("no experiment named: expected one of %s", strings.Join(experiment.Names(), ", "))
		}
		return errHelp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := experiment.Run(ctx, args[0], args[1:], stdout, stderr)
	var ue *experiment.UsageError
	switch {
	case errors.Is(err, experiment.ErrHelp):
		return errHelp
	case errors.As(err, &ue):
		return fit.InputError{Err: ue.Err}
	}
	return err
}

func init() {
	// experiment uci measures langevin run itself: it calls the command
	// in-process, through the same code path as the shell.
	experiment.RunCommand = func(args []string, stdout, stderr io.Writer) error {
		if code := Main(args, stdout, stderr); code > 128 {
			// 128 + the signal's number: the run handled a signal.
			return fmt.Errorf("langevin %s: exit %d: %w", args[0], code, experiment.ErrInterrupted)
		} else if code != 0 {
			return fmt.Errorf("langevin %s: exit %d", args[0], code)
		}
		return nil
	}
}
