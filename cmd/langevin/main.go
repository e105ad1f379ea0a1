// Command langevin runs stochastic-gradient Bayesian inference from the shell
// and summarises CmdStan-format draws.
//
//	langevin run [flags]          sample a model's posterior (default: logistic
//	                              regression on the embedded Australian credit data,
//	                              --sampler auto)
//	langevin summary FILE…        summary table of CmdStan CSV files (Stan's too)
//	langevin datasets             list the embedded data sets
//	langevin experiment NAME      reproduce a figure or table of the source documents
//	langevin report DIR           one self-contained HTML report of a run's output
//	langevin predict --samples DIR --data FILE   score a run on new data
//	langevin compare DIR…         runs side by side (marginals, ESS, test accuracy)
//	langevin loo DIR…             PSIS leave-one-out predictive accuracy; several runs compared
//	langevin convert --data F --out F.lvs   write a data store, streamed by run and predict
//	langevin help [COMMAND]       the usage, or a command's flags
//	langevin version              the version and source revision of the binary
//
// The commands are a table (commands in main.go), as cmd/go's.
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

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/runctl"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// A command is one of langevin's subcommands, as cmd/go's base.Command: its
// usage line, its description (the lines after the first are indented under
// it) and the function that runs it. The usage text, the package doc's list
// and the unknown-command message come from the table.
type command struct {
	usageLine string // "run [flags]": the name, then the arguments
	short     string // one or more lines of usage text
	run       func(args []string, stdout, stderr io.Writer) error
}

// name is the command's name, the first word of its usage line.
func (c *command) name() string { return strings.Fields(c.usageLine)[0] }

// commands is the table of langevin's commands, in the order of the usage
// text; help and version are handled by Main.
var commands = []*command{
	{"run [flags]", "sample a posterior (no flags: logistic regression on\nthe embedded Australian credit data, --sampler auto:\nNUTS here, 4 chains, until bulk-ESS 400)", cmdRun},
	{"summary FILE...", "summary table of CmdStan-format CSV files", cmdSummary},
	{"datasets", "list the embedded data sets", func(args []string, stdout, _ io.Writer) error { return cmdDatasets(args, stdout) }},
	{"experiment NAME", "reproduce a figure or table of the source documents", cmdExperiment},
	{"report DIR", "DIR/report.html: settings, summary, warnings and plots\nof the CSV files of langevin run --out DIR", cmdReport},
	{"predict --samples DIR --data FILE", "\nposterior predictive metrics of a run --out DIR on new data", cmdPredict},
	{"compare DIR... [--data FILE] [--out DIR]", "\nruns side by side: marginals overlaid, ESS, ESS/s, test\naccuracy with the optimisation (MAP) baseline", cmdCompare},
	{"loo DIR... [--out FILE]", "\nPSIS leave-one-out predictive accuracy of runs\n(linear, logistic, GLMs): elpd_loo, p_loo, Pareto k;\nseveral runs compared and weighted (stacking)", cmdLoo},
	{"convert --data FILE --out FILE.lvs [--target COL] [--float32]", "\nwrite a CSV or Parquet file once as a data store,\nwhich run and predict --data FILE.lvs stream from\ndisk (logistic: data larger than memory)", cmdConvert},
	{"help [COMMAND]", "this text, or a command's flags", nil},
	{"version", "the version and the source revision of this binary", nil},
}

// usage is langevin's usage text, built from the table of commands.
var usage = func() string {
	var sb strings.Builder
	sb.WriteString("langevin: scalable Bayesian learning with stochastic-gradient MCMC\n\nUsage:\n")
	for _, c := range commands {
		lines := strings.Split(c.short, "\n")
		head := "  langevin " + c.usageLine
		if lines[0] == "" { // the description starts on the next line
			sb.WriteString(head + "\n")
		} else {
			fmt.Fprintf(&sb, "%-30s%s\n", head, lines[0])
		}
		for _, l := range lines[1:] {
			fmt.Fprintf(&sb, "%30s%s\n", "", l)
		}
	}
	sb.WriteString(`
Exit codes: 0 success, 2 usage or input error, 1 run failure; a run stopped by
SIGINT or SIGTERM keeps its draws and exits with 128 + the signal's number
(130, 143).
`)
	return sb.String()
}()

// lookup returns the command named name, or nil.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name() == name && c.run != nil {
			return c
		}
	}
	return nil
}

// commandNames lists the commands as "run, summary, … or help".
func commandNames() string {
	var names []string
	for _, c := range commands {
		if c.name() != "version" {
			names = append(names, c.name())
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// errHelp reports that help was printed: exit code 0.
var errHelp = errors.New("help")

// Main runs the command line args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	// fit names the settings in its messages ({iters}); the command's are
	// its flags (--iters).
	ow, ew := newFlagWriter(stdout), newFlagWriter(stderr)
	defer ow.Flush()
	defer ew.Flush()
	return phrasedMain(args, ow, ew)
}

// phrasedMain is Main, its output phrased.
func phrasedMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch cmd := lookup(args[0]); {
	case cmd != nil:
		err = cmd.run(args[1:], stdout, stderr)
	case isHelp(args[0]):
		// help COMMAND is COMMAND -h; help help, help -h and -h -h are help.
		if len(args) > 1 && !isHelp(args[1]) {
			return phrasedMain([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case args[0] == "version" || args[0] == "-version" || args[0] == "--version":
		fmt.Fprintln(stdout, version())
		return 0
	default:
		fmt.Fprintf(stderr, "langevin: unknown command %q: expected %s\n", args[0], commandNames())
		return 2
	}
	var intr *runctl.Interrupted
	switch {
	case err == nil || errors.Is(err, errHelp):
		return 0
	case errors.As(err, &intr):
		fmt.Fprintf(stderr, "langevin %s: %s\n", args[0], oneLine(err))
		return intr.ExitCode()
	case errors.As(err, new(fit.InputError)):
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
