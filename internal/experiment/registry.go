// Package experiment holds the reproductions of the source documents' figures
// and tables, one file each, registered by name and run from the command line
// as
//
//	langevin experiment NAME [flags]
//
// An experiment parses its own flags (conventionally --out DIR, --seed and
// --full for the paper's scale), writes its figures (PNG and SVG) and a short
// page (index.md) into the output directory, and prints a table to stdout.
// Each registers itself from an init function, so adding one touches no other
// file: register, don't switch.
package experiment

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// An Experiment reproduces a figure or table end to end.
type Experiment struct {
	Name    string // the command-line name, e.g. "credit"
	Summary string // one line for the list
	// Run parses its own flags from args (see Flags), writes its results
	// under the output directory and its table to stdout, and returns a
	// *UsageError for bad flags (exit code 2), ErrHelp after printing -h,
	// and any other error for a failed run (exit code 1). It stops early,
	// returning ctx.Err(), when ctx is cancelled.
	Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var (
	mu       sync.RWMutex
	registry = map[string]Experiment{}
)

// Register adds e to the registry. It panics on an empty name, a nil Run or a
// name registered twice: these are programmer errors, found at init.
func Register(e Experiment) {
	if e.Name == "" || e.Run == nil {
		panic("experiment: Register needs a name and a Run function")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[e.Name]; dup {
		panic("experiment: " + e.Name + " registered twice")
	}
	registry[e.Name] = e
}

// Lookup returns the experiment registered under name.
func Lookup(name string) (Experiment, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := registry[name]
	return e, ok
}

// Names returns the registered names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// List returns one line per experiment, "  NAME  summary", sorted by name.
func List() string {
	var sb strings.Builder
	for _, n := range Names() {
		e, _ := Lookup(n)
		fmt.Fprintf(&sb, "  %-18s %s\n", n, e.Summary)
	}
	return sb.String()
}

// Run runs the experiment called name with args. An unknown name is a
// *UsageError listing the known ones.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	e, ok := Lookup(name)
	if !ok {
		return Usagef("unknown experiment %q: expected one of %s", name, strings.Join(Names(), ", "))
	}
	return e.Run(ctx, args, stdout, stderr)
}

// UsageError is a usage or input error (a bad flag, a missing file): the
// command line exits with code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError formatted as fmt.Errorf.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Errorf(format, a...)} }

// ErrHelp reports that -h printed the flags: the command line exits with 0.
var ErrHelp = errors.New("help")

// ParseFlags parses args with fs. -h prints the flags to stdout and returns
// ErrHelp; a bad flag or a positional argument returns a one-line *UsageError
// naming it (written --flag, as users type it).
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprintf(stdout, "Usage of langevin %s:\n", fs.Name())
		fs.PrintDefaults()
		return ErrHelp
	}
	if err != nil {
		msg := err.Error()
		msg = strings.Replace(msg, "flag: -", "flag --", 1)
		msg = strings.Replace(msg, "flag -", "flag --", 1)
		msg = strings.Replace(msg, "defined: -", "defined: --", 1)
		return &UsageError{errors.New(msg)}
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q: %s takes only flags", fs.Arg(0), fs.Name())
	}
	return nil
}
