package main

// langevin run --resume DIR: the run's arguments come back from
// DIR/resume.json, the plan is made again (it is deterministic given the
// seed), and the chains continue from DIR/checkpoint.bin (package rundir
// for the files, langevin.Options.Resume for the chains' states).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// resumeFree are the flags that a resumed run may change: they change no
// draw.
var resumeFree = map[string]bool{"quiet": true, "report": true, "max-time": true, "checkpoint": true}

// resumeState is what a resumed run carries from its start to its chains.
type resumeState struct {
	dir  string
	info *rundir.ResumeInfo
	cp   *rundir.Checkpoint // nil: no checkpoint, the run starts again
}

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
		return nil, nil, inputErrorf("--resume %s: no %s: not the directory of a run that can be resumed (langevin run --out DIR writes one)", dir, rundir.ResumeFile)
	}
	if err != nil {
		return nil, nil, inputErrorf("--resume %v", err)
	}
	if ri.Finished {
		return nil, nil, inputErrorf("--resume %s: %v (langevin summary %s reads it)", dir, rundir.ErrFinished, dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if wd, err := os.Getwd(); err == nil && ri.Dir != "" && ri.Dir != wd {
		// Relative paths of the saved arguments are the run's.
		if err := os.Chdir(ri.Dir); err != nil {
			return nil, nil, inputErrorf("--resume %s: the run began in %s (its relative paths are from there): %v", dir, ri.Dir, err)
		}
	}
	saved, given := &runConfig{}, &runConfig{}
	fsSaved, fsGiven := newRunFlagSet(saved), newRunFlagSet(given)
	for _, fs := range []*flag.FlagSet{fsSaved, fsGiven} {
		fs.SetOutput(io.Discard)
	}
	if err := fsSaved.Parse(ri.Args); err != nil {
		return nil, nil, inputErrorf("--resume %s: %s: %v", dir, rundir.ResumeFile, err)
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
		return nil, nil, inputErrorf("--resume %s: a resumed run keeps the settings it started with; changed: %s. Drop them, or start a new run in another directory", dir, strings.Join(bad, ", "))
	}
	for _, in := range ri.Inputs {
		now, err := rundir.DigestFile(in.Flag, in.Path)
		if err != nil || now == nil || now.Size != in.Size || now.SHA256 != in.SHA256 {
			why := "changed"
			if now == nil {
				why = "is missing"
			}
			return nil, nil, inputErrorf("--resume %s: --%s %s %s since the run began (size %d, sha256 %.12s…): a resumed run must read the same data; restore it, or start a new run", dir, in.Flag, in.Path, why, in.Size, in.SHA256)
		}
	}
	return append(out, "--out", dir), &resumeState{dir: dir, info: ri}, nil
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
				return "", nil, inputErrorf("flag needs an argument: --resume DIR")
			}
			i++
			val = args[i]
		}
		if val == "" {
			return "", nil, inputErrorf("--resume: give the run's directory")
		}
		dir = val
	}
	return dir, rest, nil
}

// inputDigests identifies the run's input files, for resume.json.
func inputDigests(c *runConfig) ([]rundir.InputFile, error) {
	var out []rundir.InputFile
	for _, f := range []struct{ flag, path string }{{"data", c.data}, {"test", c.test}} {
		if f.path == "" {
			continue
		}
		in, err := rundir.DigestFile(f.flag, f.path)
		if err != nil {
			return nil, inputErrorf("--%s %v", f.flag, err)
		}
		if in != nil {
			out = append(out, *in)
		}
	}
	return out, nil
}

// reopenRunDir locks the directory of a run to resume, and reads its
// checkpoint.
func reopenRunDir(rs *resumeState) (*runDir, error) {
	w, _, cp, err := rundir.Reopen(rs.dir, rundir.Options{FlushEvery: flushEvery})
	if err != nil {
		if errors.Is(err, rundir.ErrLocked) {
			return nil, inputErrorf("--resume %v: is the run still going?", err)
		}
		return nil, inputErrorf("--resume %v", err)
	}
	rs.cp = cp
	return &runDir{w: w, resume: rs}, nil
}

// resumeChains opens the chain files of a resumed run at its checkpoint and
// returns where the chains continue from; nil, with the files made anew,
// when there is no checkpoint (the run starts again).
func (rd *runDir) resumeChains(cfg stancsv.Config, first, chains int, statNames, names []string) (*langevin.Resume, error) {
	rs := rd.resume
	if rs.cp == nil {
		return nil, rd.openChains(cfg, first, chains, statNames, names)
	}
	var lcp langevin.Checkpoint
	if err := lcp.UnmarshalBinary(rs.cp.State); err != nil {
		return nil, inputErrorf("--resume %s: %s: %v", rs.dir, rundir.CheckpointFile, err)
	}
	if len(rs.cp.Chains) != chains {
		return nil, inputErrorf("--resume %s: the checkpoint holds %d chains, the run %d", rs.dir, len(rs.cp.Chains), chains)
	}
	rd.w.SetRunID(runID(cfg, statNames, names))
	res := &langevin.Resume{Checkpoint: &lcp}
	for i, m := range rs.cp.Chains {
		cw, warm, post, err := rd.w.ResumeChain(first+i, cfg, statNames, names, m)
		if err != nil {
			return nil, inputErrorf("--resume %v", err)
		}
		rd.chains = append(rd.chains, cw)
		res.Warmup = append(res.Warmup, warm)
		res.Draws = append(res.Draws, post)
	}
	return res, nil
}

// checkpoint is langevin.Options.Checkpoint: the chain files flushed and
// synced, then DIR/checkpoint.bin.
func (rd *runDir) checkpoint(cp *langevin.Checkpoint) error {
	b, err := cp.MarshalBinary()
	if err != nil {
		return err
	}
	rd.checkpointed = true
	return rd.w.Checkpoint(b)
}

// saveResumeInfo writes DIR/resume.json: the arguments, their working
// directory and the input files' digests.
func (rd *runDir) saveResumeInfo(c *runConfig, args []string) error {
	ins, err := inputDigests(c)
	if err != nil {
		return err
	}
	wd, _ := os.Getwd()
	rd.info = &rundir.ResumeInfo{Args: args, Dir: wd, Inputs: ins}
	if c.checkpoint == 0 {
		rd.info.NoCheckpoint = "--checkpoint 0"
	}
	if err := rd.w.WriteResumeInfo(rd.info); err != nil {
		return fmt.Errorf("--out %v", err)
	}
	return nil
}

// sampled records the end of the sampling: finished (not stopped by a
// signal) leaves nothing to resume; a run stopped early keeps its
// checkpoint and its chain files as written.
func (rd *runDir) sampled(tr *langevin.Trace, finished bool, stderr io.Writer) {
	if rd.info == nil {
		return
	}
	if tr.NoCheckpoint != "" && rd.info.NoCheckpoint == "" {
		rd.info.NoCheckpoint = tr.NoCheckpoint
		if err := rd.w.WriteResumeInfo(rd.info); err != nil {
			fmt.Fprintf(stderr, "langevin run: warning: %v\n", err)
		}
	}
	if finished {
		if err := rd.w.Finished(rd.info); err != nil {
			fmt.Fprintf(stderr, "langevin run: warning: %v\n", err)
		}
		return
	}
	rd.resumable = rd.checkpointed || (rd.resume != nil && rd.resume.cp != nil)
}

// describe says where a resumed run continues from.
func (rs *resumeState) describe() string {
	if rs.cp == nil {
		why := "the run stopped before its first checkpoint"
		if rs.info.NoCheckpoint != "" {
			why = "the run made none: " + rs.info.NoCheckpoint
		}
		return fmt.Sprintf("resuming %s: no checkpoint (%s): the run starts again from the beginning, with the same draws", rs.dir, why)
	}
	var lcp langevin.Checkpoint
	if lcp.UnmarshalBinary(rs.cp.State) != nil {
		return "resuming " + rs.dir
	}
	return fmt.Sprintf("resuming %s from its checkpoint at iteration %d", rs.dir, lcp.Iter)
}
