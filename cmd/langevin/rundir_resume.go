package main

// langevin run --resume DIR: the run's arguments come back from
// DIR/resume.json, the plan is made again (it is deterministic given the
// seed), and the chains continue from DIR/checkpoint.bin (package rundir
// for the files, langevin.Options.Resume for the chains' states).

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// resumeState is what a resumed run carries from its start to its chains.
type resumeState struct {
	dir  string
	info *rundir.ResumeInfo
	cp   *rundir.Checkpoint // nil: no checkpoint, the run starts again
}

// newResumeState is the state of langevin run --resume DIR: DIR and its
// resume.json.
func newResumeState(dir string, ri *rundir.ResumeInfo) *resumeState {
	return &resumeState{dir: dir, info: ri}
}

// inputDigests identifies the run's input files, for resume.json.
func inputDigests(c *fit.Config) ([]rundir.InputFile, error) {
	var out []rundir.InputFile
	for _, f := range []struct{ flag, path string }{{"data", c.Data}, {"test", c.Test}} {
		if f.path == "" {
			continue
		}
		in, err := rundir.DigestFile(f.flag, f.path)
		if err != nil {
			return nil, fit.InputErrorf("--%s %v", f.flag, err)
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
			return nil, fit.InputErrorf("--resume %v: is the run still going?", err)
		}
		return nil, fit.InputErrorf("--resume %v", err)
	}
	rs.cp = cp
	return &runDir{W: w, resume: rs, info: rs.info}, nil
}

// ResumeChains opens the chain files of a resumed run at its checkpoint and
// returns where the chains continue from; nil, with the files made anew,
// when there is no checkpoint (the run starts again).
func (rd *runDir) ResumeChains(cfg stancsv.Config, first, chains int, statNames, names []string) (*langevin.Resume, error) {
	rs := rd.resume
	if rs.cp == nil {
		return nil, rd.OpenChains(cfg, first, chains, statNames, names)
	}
	var lcp langevin.Checkpoint
	if err := lcp.UnmarshalBinary(rs.cp.State); err != nil {
		return nil, fit.InputErrorf("--resume %s: %s: %v", rs.dir, rundir.CheckpointFile, err)
	}
	if len(rs.cp.Chains) != chains {
		return nil, fit.InputErrorf("--resume %s: the checkpoint holds %d chains, the run %d", rs.dir, len(rs.cp.Chains), chains)
	}
	rd.W.SetRunID(runID(cfg, statNames, names))
	res := &langevin.Resume{Checkpoint: &lcp}
	for i, m := range rs.cp.Chains {
		cw, warm, post, err := rd.W.ResumeChain(first+i, cfg, statNames, names, m)
		if err != nil {
			return nil, fit.InputErrorf("--resume %v", err)
		}
		rd.chains = append(rd.chains, cw)
		res.Warmup = append(res.Warmup, warm)
		res.Draws = append(res.Draws, post)
	}
	return res, nil
}

// Checkpoint is langevin.Options.Checkpoint: the chain files flushed and
// synced, then DIR/checkpoint.bin.
func (rd *runDir) Checkpoint(cp *langevin.Checkpoint) error {
	b, err := cp.MarshalBinary()
	if err != nil {
		return err
	}
	rd.checkpointed = true
	return rd.W.Checkpoint(b)
}

// SaveResumeInfo writes DIR/resume.json: the arguments, their working
// directory and the input files' digests.
func (rd *runDir) SaveResumeInfo(c *fit.Config, args []string) error {
	ins, err := inputDigests(c)
	if err != nil {
		return err
	}
	wd, _ := os.Getwd()
	rd.info = &rundir.ResumeInfo{Args: args, Dir: wd, Inputs: ins}
	if c.Checkpoint == 0 {
		rd.info.NoCheckpoint = "--checkpoint 0"
	}
	if err := rd.W.WriteResumeInfo(rd.info); err != nil {
		return fmt.Errorf("--out %v", err)
	}
	return nil
}

// Sampled records the end of the sampling: finished (not stopped by a
// signal) leaves nothing to resume once the directory is complete (Finish
// marks it then, MarkFinished for a run with no draw to write); until then
// a kill leaves the checkpoint and the files as written, and --resume
// samples again from the checkpoint to the same end. A run stopped early
// keeps its checkpoint and its chain files as written.
func (rd *runDir) Sampled(tr *langevin.Trace, finished bool, stderr io.Writer) {
	if rd.info == nil {
		return
	}
	if tr.NoCheckpoint != "" && rd.info.NoCheckpoint == "" {
		rd.info.NoCheckpoint = tr.NoCheckpoint
		if err := rd.W.WriteResumeInfo(rd.info); err != nil {
			fmt.Fprintf(stderr, "langevin run: warning: %v\n", err)
		}
	}
	if finished {
		rd.finished = true
		return
	}
	rd.resumable = rd.checkpointed || (rd.resume != nil && rd.resume.cp != nil)
}

// MarkFinished marks a finished sampling's directory as complete
// (resume.json: nothing to resume; the checkpoint removed): Finish calls it
// once summary.csv, model.json and scaler.json are written, before the chain
// files are rewritten to the kept draws; a run with no draw to write calls
// it itself.
func (rd *runDir) MarkFinished() error {
	if rd.info == nil || !rd.finished || rd.info.Finished {
		return nil
	}
	return rd.W.Finished(rd.info)
}

// Describe says where a resumed run continues from.
func (rs *resumeState) Describe() string {
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

// Resuming reports whether the run directory continues a run (--resume).
func (rd *runDir) Resuming() bool { return rd.resume != nil }
