// Command langevin runs stochastic-gradient Bayesian inference from the shell
// and summarises CmdStan-format draws.
//
//	langevin run [flags]          sample a model's posterior (default: logistic
//	                              regression on the embedded Australian credit data)
//	langevin summary FILE…        summary table of CmdStan CSV files (Stan's too)
//	langevin datasets             list the embedded data sets
//	langevin experiment NAME      reproduce a figure or table of the source documents
//	langevin report DIR           one self-contained HTML report of a run's output
//	langevin convert --data F --out F.lvs   write a data store, streamed by run and predict
//
// Exit codes: 0 success, 2 usage or input error, 1 run failure, 128 + the
// signal's number for a run stopped by a signal (130 SIGINT, 143 SIGTERM;
// the draws so far are kept).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `langevin: scalable Bayesian learning with stochastic-gradient MCMC

Usage:
  langevin run [flags]        sample a posterior (no flags: logistic regression on
                              the embedded Australian credit data, SGLD, 4 chains)
  langevin summary FILE...    summary table of CmdStan-format CSV files
  langevin datasets           list the embedded data sets
  langevin experiment NAME    reproduce a figure or table of the source documents
  langevin report DIR         DIR/report.html: settings, summary, warnings and plots
                              of the CSV files of langevin run --out DIR
  langevin predict --samples DIR --data FILE
                              posterior predictive metrics of a run --out DIR on new data
  langevin compare DIR... [--data FILE] [--out DIR]
                              runs side by side: marginals overlaid, ESS, ESS/s, test
                              accuracy with the optimisation (MAP) baseline
  langevin convert --data FILE --out FILE.lvs [--target COL] [--float32]
                              write a CSV or Parquet file once as a data store,
                              which run and predict --data FILE.lvs stream from
                              disk (logistic: data larger than memory)
  langevin help [COMMAND]     this text, or a command's flags
  langevin version            the version and the source revision of this binary

Exit codes: 0 success, 2 usage or input error, 1 run failure; a run stopped by
SIGINT or SIGTERM keeps its draws and exits with 128 + the signal's number
(130, 143).
`

// inputError is a usage or input error: exit code 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func inputErrorf(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

// errHelp reports that help was printed: exit code 0.
var errHelp = errors.New("help")

// Main runs the command line args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "summary":
		err = cmdSummary(args[1:], stdout, stderr)
	case "datasets":
		err = cmdDatasets(args[1:], stdout)
	case "experiment":
		err = cmdExperiment(args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "predict":
		err = cmdPredict(args[1:], stdout, stderr)
	case "convert":
		err = cmdConvert(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		// help COMMAND is COMMAND -h; help help, help -h and -h -h are help.
		if len(args) > 1 && !isHelp(args[1]) {
			return Main([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, version())
		return 0
	default:
		fmt.Fprintf(stderr, "langevin: unknown command %q: expected run, summary, datasets, experiment, report, predict, compare, convert or help\n", args[0])
		return 2
	}
	var intr *interrupted
	switch {
	case err == nil || errors.Is(err, errHelp):
		return 0
	case errors.As(err, &intr):
		fmt.Fprintf(stderr, "langevin %s: %s\n", args[0], oneLine(err))
		return intr.exitCode()
	case errors.As(err, new(inputError)):
		fmt.Fprintf(stderr, "langevin %s: %s\n", args[0], oneLine(err))
		return 2
	default:
		fmt.Fprintf(stderr, "langevin %s: %s\n", args[0], oneLine(err))
		return 1
	}
}

func isHelp(s string) bool {
	switch s {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// version returns the module's version and the source revision the binary
// was built from, as the Go toolchain records them.
func version() string {
	v, rev, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "langevin " + v
	if rev != "" {
		out += " (revision " + rev[:min(12, len(rev))]
		if dirty {
			out += ", modified"
		}
		out += ")"
	}
	return out + ", " + runtime.Version()
}

// oneLine joins the lines of an error (errors.Join of several chains) with
// "; ", so that every error is one line.
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
