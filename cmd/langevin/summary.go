package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
)

// cmdSummary prints the summary table of CmdStan-format CSV files, one file
// per chain (langevin's, CmdStan's or cmdstanr's, gzip-compressed or not), or
// of a run directory (the --out DIR of langevin run). Warm-up draws saved in
// the files are left out. A run that did not finish is read as far as it
// got (whole lines only) and said to be unfinished; chains of different
// lengths are cut to the shortest, and chains without draws left out.
func cmdSummary(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	asCSV := fs.Bool("csv", false, "print the table as CSV")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fit.InputErrorf("no files: usage: langevin summary [--csv] FILE... or DIR... (run directories; several are chains of one analysis, --chain-id, combined)")
	}
	var r *rundir.Run
	var err error
	if st, serr := os.Stat(fs.Arg(0)); serr == nil && st.IsDir() {
		if r, err = readRuns(fs.Args()); err != nil {
			return err
		}
	} else {
		if r, err = rundir.ReadFiles(fs.Args()...); err != nil {
			return fit.InputError{Err: err}
		}
	}
	tr := r.Trace
	if tr.NumDraws() == 0 {
		return fit.InputErrorf("%s: no draws yet (%s)", fs.Arg(0), r.Status())
	}
	params, note := fit.CommonLength(tr)
	params, s2note := runSigma2InTargetUnits(r, tr.Names, params)
	table := diag.Summarize(tr.Names, params)
	if *asCSV {
		return table.WriteCSV(stdout)
	}
	counts := make([]int, tr.NumChains())
	same := true
	for c, d := range tr.Draws {
		counts[c] = len(d)
		same = same && counts[c] == counts[0]
	}
	if same {
		fmt.Fprintf(stdout, "%d chains × %d draws", tr.NumChains(), counts[0])
	} else {
		fmt.Fprintf(stdout, "%d chains × %s draws", tr.NumChains(), fit.JoinInts(counts))
	}
	if r.Finished() || !r.RecordsStatus() {
		fmt.Fprint(stdout, "\n\n")
	} else {
		fmt.Fprintf(stdout, "; run %s\n\n", r.Status())
	}
	if err := table.Format(stdout); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	if s2note != "" {
		fmt.Fprintln(stdout, s2note)
	}
	if t := runDataScaleText(r); t != "" {
		fmt.Fprint(stdout, "\n"+t)
	}
	for _, ch := range r.Chains {
		if ch.Torn {
			fmt.Fprintf(stdout, "%s: its last line was cut short (a crash while writing) and is left out\n", ch.Path)
		}
	}
	return nil
}
