package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/stancsv"
)

// cmdSummary prints the summary table of CmdStan-format CSV files, one file
// per chain (langevin's, CmdStan's or cmdstanr's). Warm-up draws saved in the
// files are left out.
func cmdSummary(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	asCSV := fs.Bool("csv", false, "print the table as CSV")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return inputErrorf("no files: usage: langevin summary [--csv] FILE... or DIR... (run directories; several are chains of one analysis, --chain-id, combined)")
	}
	if st, err := os.Stat(fs.Arg(0)); err == nil && st.IsDir() {
		r, err := readRuns(fs.Args())
		if err != nil {
			return err
		}
		tr := r.Trace
		table := diag.Summarize(tr.Names, tr.Params())
		if *asCSV {
			return table.WriteCSV(stdout)
		}
		fmt.Fprintf(stdout, "%d chains × %d draws from %s\n\n", tr.NumChains(), tr.NumDraws()/max(1, tr.NumChains()), r.Dir)
		return table.Format(stdout)
	}
	var names []string
	var params [][][]float64
	var first string
	ndraws := -1
	for _, path := range fs.Args() {
		f, err := stancsv.ReadFile(path)
		if err != nil {
			return inputError{err}
		}
		pn := f.ParamNames()
		if names == nil {
			names, first = pn, path
			params = make([][][]float64, len(names))
		} else if !slices.Equal(names, pn) {
			return inputErrorf("%s: parameters differ from %s's", path, first)
		}
		if ndraws >= 0 && len(f.Draws) != ndraws {
			return inputErrorf("%s: %d draws, %s has %d: chains must have equal lengths", path, len(f.Draws), first, ndraws)
		}
		ndraws = len(f.Draws)
		if ndraws == 0 {
			return inputErrorf("%s: no draws", path)
		}
		for j, name := range names {
			col, _ := f.Column(name)
			params[j] = append(params[j], col)
		}
	}
	table := diag.Summarize(names, params)
	if *asCSV {
		return table.WriteCSV(stdout)
	}
	fmt.Fprintf(stdout, "%d chains × %d draws\n\n", len(fs.Args()), ndraws)
	return table.Format(stdout)
}
