package rundir

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin/stancsv"
)

// resumeDraw is the row of iteration it of chain k: numbers that need all
// 17 digits, so that a file read back equals them only if written exactly.
func resumeDraw(k, it int) (row, stats []float64) {
	x := math.Sqrt(float64(k*100000+it)) / 3
	return []float64{x, -x / 7, math.Pi * x}, []float64{-x, 1}
}

// TestCheckpointReopen: chain files cut back to a checkpoint (after a
// SIGTERM's closing lines, or a kill's unflushed tail), continued, hold
// exactly the rows of an uninterrupted writer; the draws ResumeChain reads
// back are the numbers written, bit for bit; a file changed since the
// checkpoint, another run's settings, a finished run and a directory without
// resume.json are refused with messages naming them.
func TestCheckpointReopen(t *testing.T) {
	cfg := stancsv.Config{Model: "m", Algorithm: "sgld", NumSamples: 40, NumWarmup: 10, Seed: 1}
	stats, names := []string{"lp__", "accept_stat__"}, []string{"a", "b", "c"}
	const chains, warm, total = 2, 10, 50
	for _, cut := range []int{27, 6} { // after the warm-up, inside it
		checkpointReopen(t, cfg, stats, names, chains, warm, total, cut)
	}
}

func checkpointReopen(t *testing.T, cfg stancsv.Config, stats, names []string, chains, warm, total, cut int) {
	write := func(dir string, stop string) {
		w, err := Create(dir, Options{FlushEvery: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		w.SetRunID("r1")
		if err := w.WriteResumeInfo(&ResumeInfo{Args: []string{"--seed", "1"}}); err != nil {
			t.Fatal(err)
		}
		var cws []*ChainWriter
		for k := 1; k <= chains; k++ {
			cw, err := w.Chain(k, cfg, stats, names)
			if err != nil {
				t.Fatal(err)
			}
			cws = append(cws, cw)
		}
		for it := 1; it <= total; it++ {
			for k, cw := range cws {
				row, st := resumeDraw(k+1, it)
				if err := cw.Draw(it <= warm, it, row, st); err != nil {
					t.Fatal(err)
				}
			}
			if it == cut {
				if err := w.Checkpoint([]byte("state")); err != nil {
					t.Fatal(err)
				}
			}
			if stop == "kill" && it == cut+9 {
				for _, cw := range cws {
					cw.Flush() // some rows past the checkpoint reach the file
				}
				unlockFile(w.lock) // the process dies: the lock goes
				w.lock.Close()
				return
			}
		}
		if stop == "finished" {
			w.Finished(&ResumeInfo{})
		}
		var cause error
		if stop == "sigterm" {
			cause = errors.New("interrupted by SIGTERM during sampling")
		}
		if err := w.Close(cause); err != nil {
			t.Fatal(err)
		}
	}
	ref := t.TempDir()
	write(ref, "finished")
	for _, stop := range []string{"sigterm", "kill"} {
		dir := t.TempDir()
		write(dir, stop)
		os.WriteFile(filepath.Join(dir, SummaryFile), []byte("stale\n"), 0o644)
		w, ri, cp, err := Reopen(dir, Options{})
		if err != nil {
			t.Fatalf("%s: %v", stop, err)
		}
		if cp == nil || string(cp.State) != "state" || len(cp.Chains) != chains || ri.Args[1] != "1" {
			t.Fatalf("%s: checkpoint %+v, resume.json %+v", stop, cp, ri)
		}
		if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
			t.Errorf("%s: the stale summary is left", stop)
		}
		w.SetRunID("r1")
		var cws []*ChainWriter
		for k := 1; k <= chains; k++ {
			cw, wd, pd, err := w.ResumeChain(k, cfg, stats, names, cp.Chains[k-1])
			if err != nil {
				t.Fatalf("%s: %v", stop, err)
			}
			if len(wd.Theta) != min(cut, warm) || len(pd.Theta) != max(cut-warm, 0) || len(pd.Theta) > 0 && pd.Iters[0] != warm+1 {
				t.Fatalf("%s, cut at %d: chain %d: read back %d warm-up and %d draws", stop, cut, k, len(wd.Theta), len(pd.Theta))
			}
			for i, th := range wd.Theta {
				row, st := resumeDraw(k, 1+i)
				if !same(th, row) || !same(wd.Stats[i], st) {
					t.Fatalf("%s: chain %d: warm-up draw %d read back as %v, written %v", stop, k, i, th, row)
				}
			}
			for i, th := range pd.Theta {
				row, st := resumeDraw(k, warm+1+i)
				if !same(th, row) || !same(pd.Stats[i], st) {
					t.Fatalf("%s: chain %d: draw %d read back as %v %v, written %v %v", stop, k, i, th, pd.Stats[i], row, st)
				}
			}
			cws = append(cws, cw)
		}
		for it := cut + 1; it <= total; it++ {
			for k, cw := range cws {
				row, st := resumeDraw(k+1, it)
				if err := cw.Draw(it <= warm, it, row, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		w.Finished(ri)
		if err := w.Close(nil); err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= chains; k++ {
			for _, name := range []string{ChainFile(k), WarmupFile(k)} {
				got, want := dataLines(t, filepath.Join(dir, name)), dataLines(t, filepath.Join(ref, name))
				if got != want {
					t.Fatalf("%s: %s differs from the uninterrupted writer's:\n%s\nwant\n%s", stop, name, got, want)
				}
			}
		}
		if _, _, _, err := Reopen(dir, Options{}); !errors.Is(err, ErrFinished) {
			t.Errorf("%s: a finished run reopened: %v", stop, err)
		}
	}

	if cut != 27 {
		return
	}
	// Refusals.
	dir := t.TempDir()
	write(dir, "kill")
	w, _, cp, _ := Reopen(dir, Options{})
	w.SetRunID("other")
	if _, _, _, err := w.ResumeChain(1, cfg, stats, names, cp.Chains[0]); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("another run's settings: %v", err)
	}
	w.Close(nil)
	dir = t.TempDir()
	write(dir, "kill")
	f, _ := os.OpenFile(filepath.Join(dir, ChainFile(2)), os.O_RDWR, 0)
	f.WriteAt([]byte("9"), 900) // a changed digit before the checkpoint
	f.Close()
	w, _, cp, _ = Reopen(dir, Options{})
	w.SetRunID("r1")
	if _, _, _, err := w.ResumeChain(2, cfg, stats, names, cp.Chains[1]); err == nil || !strings.Contains(err.Error(), "changed since the checkpoint") || !strings.Contains(err.Error(), "chain-2.csv") {
		t.Errorf("a changed file: %v", err)
	}
	w.Close(nil)
	if _, _, _, err := Reopen(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), ResumeFile) {
		t.Errorf("no resume.json: %v", err)
	}
}

// dataLines returns the draw rows of a Stan CSV file (no comments).
func dataLines(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && l[0] != '#' {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func same(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestReadCheckpointHostile puts a symlink, a FIFO, a directory and a sparse
// file larger than the bound in checkpoint.bin's place: each is refused at
// once, without blocking on the FIFO or reading the file.
func TestReadCheckpointHostile(t *testing.T) {
	cases := map[string]func(path string) error{
		"symlink": func(p string) error { return os.Symlink("/dev/zero", p) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"dir":     func(p string) error { return os.Mkdir(p, 0o700) },
		"huge": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(maxCheckpoint + 1)
		},
	}
	for name, create := range cases {
		dir := t.TempDir()
		if err := create(filepath.Join(dir, CheckpointFile)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := ReadCheckpoint(dir); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a file of a run") {
				t.Errorf("%s: error %v, want a refusal", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ReadCheckpoint blocked", name)
		}
	}
}

// TestFinishedFlushesFirst kills a run right after Finished (its files
// never closed, FlushEvery an hour): every draw must be on disk, since the
// checkpoint that could have restored them is gone.
func TestFinishedFlushesFirst(t *testing.T) {
	cfg := stancsv.Config{Model: "m", Algorithm: "sgld", NumSamples: 40, NumWarmup: 0, Seed: 1}
	dir := filepath.Join(t.TempDir(), "run")
	w, err := Create(dir, Options{FlushEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w.SetRunID("r1")
	ri := &ResumeInfo{Args: []string{"--seed", "1"}}
	if err := w.WriteResumeInfo(ri); err != nil {
		t.Fatal(err)
	}
	cw, err := w.Chain(1, cfg, []string{"lp__"}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	for it := 1; it <= 40; it++ {
		row, st := resumeDraw(1, it)
		if err := cw.Draw(false, it, row, st[:1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finished(ri); err != nil {
		t.Fatal(err)
	}
	unlockFile(w.lock) // the process dies here
	w.lock.Close()
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Trace.Draws[0]); n != 40 {
		t.Errorf("%d of 40 draws on disk after Finished", n)
	}
}
