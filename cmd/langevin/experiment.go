package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
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

func experimentNames() []string {
	names := make([]string, 0, len(experiments))
	for n := range experiments {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func experimentList() string {
	var sb strings.Builder
	for _, n := range experimentNames() {
		fmt.Fprintf(&sb, "  %-16s %s\n", n, experiments[n].summary)
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
	e, ok := experiments[args[0]]
	if !ok {
		return inputErrorf("unknown experiment %q: expected one of %s", args[0], strings.Join(experimentNames(), ", "))
	}
	return e.run(args[1:], stdout, stderr)
}
