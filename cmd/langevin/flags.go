package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/langevin-go/langevin/fit"
)

// parseFlags parses args with fs. -h prints the flags to stdout and returns
// errHelp; a bad flag returns a one-line input error naming it.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprintf(stdout, "Usage of langevin %s:\n", fs.Name())
		fs.PrintDefaults()
		return errHelp
	}
	return flagError(err)
}

// flagError turns a flag package error into a one-line input error that
// names the flag as users write it (--batch, not -batch).
func flagError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	msg = strings.Replace(msg, "flag: -", "flag --", 1)
	msg = strings.Replace(msg, "flag -", "flag --", 1)
	return fit.InputError{Err: errors.New(msg)}
}
