package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
)

// resumeFree are the flags that a resumed run may change: they change no
// draw.
var resumeFree = map[string]bool{"quiet": true, "report": true, "max-time": true, "checkpoint": true}

// resumeArgs returns the arguments of the run to resume when args hold
// --resume DIR: DIR's saved arguments, with the flags of resumeFree given
// in args, and --out DIR. Any other flag of args must have the saved value:
// a resumed run keeps its settings.
func resumeArgs(args []string) ([]string, *resumeState, error) {
	dir, rest, err := cutResumeFlag(args)
	if err != nil || dir == "" {
		return args, nil, err
	}
	ri, err := rundir.ReadResumeInfo(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fit.InputErrorf("--resume %s: no %s: not the directory of a run that can be resumed (langevin run --out DIR writes one)", dir, rundir.ResumeFile)
	}
	if err != nil {
		return nil, nil, fit.InputErrorf("--resume %v", err)
	}
	if ri.Finished {
		return nil, nil, fit.InputErrorf("--resume %s: %v (langevin summary %s reads it)", dir, rundir.ErrFinished, dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if wd, err := os.Getwd(); err == nil && ri.Dir != "" && ri.Dir != wd {
		// Relative paths of the saved arguments are the run's.
		if err := os.Chdir(ri.Dir); err != nil {
			return nil, nil, fit.InputErrorf("--resume %s: the run began in %s (its relative paths are from there): %v", dir, ri.Dir, err)
		}
	}
	saved, given := &fit.Config{}, &fit.Config{}
	fsSaved, fsGiven := newRunFlagSet(saved), newRunFlagSet(given)
	for _, fs := range []*flag.FlagSet{fsSaved, fsGiven} {
		fs.SetOutput(io.Discard)
	}
	if err := fsSaved.Parse(ri.Args); err != nil {
		return nil, nil, fit.InputErrorf("--resume %s: %s: %v", dir, rundir.ResumeFile, err)
	}
	if err := fsGiven.Parse(rest); err != nil {
		return nil, nil, flagError(err)
	}
	out := append([]string(nil), ri.Args...)
	var bad []string
	fsGiven.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "out":
			if abs, _ := filepath.Abs(f.Value.String()); abs != dir {
				bad = append(bad, fmt.Sprintf("--out %s (resumed into %s)", f.Value, dir))
			}
		case resumeFree[f.Name]:
			out = append(out, "--"+f.Name+"="+f.Value.String())
		case f.Value.String() != fsSaved.Lookup(f.Name).Value.String():
			bad = append(bad, fmt.Sprintf("--%s %s (the run's: %s)", f.Name, f.Value, fsSaved.Lookup(f.Name).Value))
		}
	})
	if len(bad) > 0 {
		return nil, nil, fit.InputErrorf("--resume %s: a resumed run keeps the settings it started with; changed: %s. Drop them, or start a new run in another directory", dir, strings.Join(bad, ", "))
	}
	for _, in := range ri.Inputs {
		now, err := rundir.DigestFile(in.Flag, in.Path)
		if err != nil || now == nil || now.Size != in.Size || now.SHA256 != in.SHA256 {
			why := "changed"
			if now == nil {
				why = "is missing"
			}
			return nil, nil, fit.InputErrorf("--resume %s: --%s %s %s since the run began (size %d, sha256 %.12s…): a resumed run must read the same data; restore it, or start a new run", dir, in.Flag, in.Path, why, in.Size, in.SHA256)
		}
	}
	return append(out, "--out", dir), newResumeState(dir, ri), nil
}

// cutResumeFlag removes --resume DIR (or --resume=DIR) from args.
func cutResumeFlag(args []string) (dir string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "resume" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return "", nil, fit.InputErrorf("flag needs an argument: --resume DIR")
			}
			i++
			val = args[i]
		}
		if val == "" {
			return "", nil, fit.InputErrorf("--resume: give the run's directory")
		}
		dir = val
	}
	return dir, rest, nil
}
