package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
	if err != nil {
		msg := err.Error()
		// flag says "-batch"; users write --batch.
		msg = strings.Replace(msg, "flag: -", "flag --", 1)
		msg = strings.Replace(msg, "flag -", "flag --", 1)
		return inputError{errors.New(msg)}
	}
	return nil
}
