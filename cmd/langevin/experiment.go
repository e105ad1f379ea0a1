package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	exps "github.com/langevin-go/langevin/internal/experiment"
)

// An experiment reproduces a figure or table of the source documents end to
// end: langevin experiment NAME [flags]. Each experiment lives in its own file
// (experiment_NAME.go) and registers itself from an init function, so that
// experiments can be added without touching this file.
type experiment struct {
	name    string // the command-line name, e.g. "credit"
	summary string // one line for the list
	// run parses its own flags from args (conventionally --out DIR and
	// --seed), writes its results and returns an inputError for bad flags.
	run func(args []string, stdout, stderr io.Writer) error
}

var experiments = map[string]experiment{}

func registerExperiment(e experiment) {
	if _, dup := experiments[e.name]; dup {
		panic("langevin: experiment " + e.name + " registered twice")
	}
	experiments[e.name] = e
}

// experimentNames returns the names of this package's experiments and of
// package internal/experiment (exps)'s, sorted.
func experimentNames() []string {
	names := exps.Names()
	for n := range experiments {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func experimentList() string {
	var sb strings.Builder
	for _, n := range experimentNames() {
		summary := experiments[n].summary
		if e, ok := exps.Lookup(n); ok {
			summary = e.Summary
		}
		fmt.Fprintf(&sb, "  %-18s %s\n", n, summary)
	}
	return sb.String()
}

func cmdExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintf(stdout, "Usage: langevin experiment NAME [flags]   (langevin experiment NAME -h for its flags)\n\nExperiments:\n%s", experimentList())
		if len(args) == 0 {
			return inputErrorf("no experiment named: expected one of %s", strings.Join(experimentNames(), ", "))
		}
		return errHelp
	}
	if e, ok := exps.Lookup(args[0]); ok {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		err := e.Run(ctx, args[1:], stdout, stderr)
		var ue *exps.UsageError
		switch {
		case errors.Is(err, exps.ErrHelp):
			return errHelp
		case errors.As(err, &ue):
			return inputError{ue.Err}
		}
		return err
	}
	e, ok := experiments[args[0]]
	if !ok {
		return inputErrorf("unknown experiment %q: expected one of %s", args[0], strings.Join(experimentNames(), ", "))
	}
	return e.run(args[1:], stdout, stderr)
}
