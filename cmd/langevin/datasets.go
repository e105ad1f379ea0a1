package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/langevin-go/langevin/data"
)

func cmdDatasets(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("datasets", flag.ContinueOnError)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	for _, name := range data.BuiltinNames() {
		d, err := data.Builtin(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-12s %d rows, %d features, target %q\n", name, d.Len(), d.Dim(), d.Target)
	}
	return nil
}
