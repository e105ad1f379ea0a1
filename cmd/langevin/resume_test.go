package main

// langevin run --resume DIR: a run killed (SIGKILL) or stopped (SIGTERM) at
// a random moment of its sampling, then resumed, leaves the chain files of a
// run never stopped, bit for bit.

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
)

// drawRows returns the draw rows of DIR/name (the lines that are not
// comments: the header and the rows, as written).
func drawRows(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
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

// sameRunFiles checks that the chain and warm-up files of dir hold the rows
// of ref's, and that summary.csv is the same.
func sameRunFiles(t *testing.T, ref, dir string, chains int) (rows int) {
	t.Helper()
	for k := 1; k <= chains; k++ {
		for _, name := range []string{"chain-%d.csv", "warmup-%d.csv"} {
			name = strings.Replace(name, "%d", string(rune('0'+k)), 1)
			if _, err := os.Stat(filepath.Join(ref, name)); err != nil {
				continue
			}
			want, got := drawRows(t, ref, name), drawRows(t, dir, name)
			if got != want {
				t.Fatalf("%s differs from the uninterrupted run's: %d lines, want %d", name, strings.Count(got, "\n")+1, strings.Count(want, "\n")+1)
			}
			rows += strings.Count(got, "\n")
		}
	}
	a, _ := os.ReadFile(filepath.Join(ref, "summary.csv"))
	b, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if string(a) != string(b) || len(a) == 0 {
		t.Errorf("summary.csv differs:\n%s\nwant\n%s", b, a)
	}
	return rows
}

// refSampling finds the sampling's wall time in the time line of a run.
var refSampling = regexp.MustCompile(`time: .* sampling ([0-9.]+)`)

var resumedAt = regexp.MustCompile(`resuming .* from its checkpoint at iteration (\d+)|no checkpoint`)

// resumeAfterSignal runs args uninterrupted into ref, then again into dir,
// sends sig at a random moment of the sampling (after the first draws
// reach the files), resumes with --resume dir, and checks the files equal.
func resumeAfterSignal(t *testing.T, seed uint64, sig syscall.Signal, args ...string) {
	resumeAfterSignals(t, seed, sig, 1, args...)
}

// resumeAfterSignals is resumeAfterSignal with the resumed runs killed
// again (SIGKILL) kills−1 times, each resumed in turn.
func resumeAfterSignals(t *testing.T, seed uint64, sig syscall.Signal, kills int, args ...string) {
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	args = append([]string{"run", "--data", "australian", "--quiet", "--checkpoint", "20ms"}, args...)
	p := start(t, append(args, "--out", ref)...)
	if code := p.wait(t, hangGuard); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, p.stderr.String())
	}
	resumeAgainst(t, seed, sig, kills, ref, p.stdout.String(), args...)
}

// resumeAgainst is resumeAfterSignals with the uninterrupted run of args
// done already: its directory ref and its standard output refOut.
func resumeAgainst(t *testing.T, seed uint64, sig syscall.Signal, kills int, ref, refOut string, args ...string) {
	dir := filepath.Join(t.TempDir(), "run")
	// The signal comes at a random moment within the reference run's
	// sampling time after the first draws reach the files (warm-up or
	// kept); if the run ends first (a fast, idle machine), again sooner.
	m := refSampling.FindStringSubmatch(refOut)
	if m == nil {
		t.Fatalf("no sampling time in the output:\n%s", refOut)
	}
	var p *proc
	secs, _ := strconv.ParseFloat(m[1], 64)
	rng := rand.New(rand.NewPCG(seed, 24))
	want := -int(syscall.SIGKILL)
	if sig == syscall.SIGTERM {
		want = 143
	}
	frac := 0.7
	for attempt := 0; ; attempt++ {
		os.RemoveAll(dir)
		p = start(t, append(args, "--out", dir)...)
		waitUntil(t, hangGuard, "the first draws on disk", func() bool { return hasRows(dir, "chain-1.csv") || hasRows(dir, "warmup-1.csv") })
		if attempt < 2 {
			time.Sleep(time.Duration(rng.Float64() * frac * secs * float64(time.Second)))
		} // else at once: the sampling has just begun
		if !signalMidRun(t, p, dir, sig) {
			if attempt == 2 {
				t.Fatalf("the run finished its sampling before the signal, sent as its first draws reached the files\n%s", p.stderr.String())
			}
			frac /= 3
			continue // the sampling finished before the signal
		}
		if code := p.wait(t, hangGuard); code != want {
			t.Fatalf("after %v: exit %d, want %d\n%s", sig, code, want, p.stderr.String())
		}
		break
	}
	killed := strings.Count(drawRows(t, dir, "chain-1.csv"), "\n")
	var r *proc
	for k := 1; k < kills; k++ { // the resumed run killed again, if its sampling has not finished
		r = start(t, "run", "--resume", dir)
		time.Sleep(time.Duration(rng.Float64() * 0.3 * secs * float64(time.Second)))
		r.cmd.Process.Signal(syscall.SIGKILL)
		code := r.wait(t, hangGuard)
		t.Logf("resumed run %d: %s; killed (exit %d)", k, strings.TrimSpace(resumedAt.FindString(r.stderr.String())), code)
		if ri, err := rundir.ReadResumeInfo(dir); err == nil && ri.Finished {
			t.Logf("resumed run %d finished its sampling before the kill", k)
			break
		}
		r = nil
	}
	if r == nil {
		r = start(t, "run", "--resume", dir)
		if code := r.wait(t, hangGuard); code != 0 {
			t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
		}
	}
	m = resumedAt.FindStringSubmatch(r.stderr.String())
	if m == nil {
		t.Fatalf("resume does not say where from:\n%s", r.stderr.String())
	}
	rows := sameRunFiles(t, ref, dir, 4)
	t.Logf("%v with %d rows in chain-1.csv; %s; %d rows in all equal to the uninterrupted run's", sig, killed, m[0], rows)
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.bin")); err == nil {
		t.Error("checkpoint.bin left after the run finished")
	}
	if code, _, errOut := runMain("run", "--resume", dir); code != 2 || !strings.Contains(errOut, "nothing to resume") {
		t.Errorf("--resume of a finished run: exit %d: %s", code, errOut)
	}
}

// signalMidRun freezes p (SIGSTOP) and, when its sampling is still under way
// (the process is alive and DIR/resume.json does not say finished), sends it
// sig and lets it go on (SIGCONT: a stopped process handles SIGTERM only
// then): the signal lands at a known point of an unfinished run, never after
// a fast run has ended. It reports false, the run let go on to its end,
// when the sampling had finished.
func signalMidRun(t *testing.T, p *proc, dir string, sig syscall.Signal) bool {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGSTOP)
	stat := fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid)
	waitUntil(t, hangGuard, "the process stopped", func() bool {
		select {
		case <-p.done:
			return true
		default:
		}
		b, err := os.ReadFile(stat)
		if err != nil {
			time.Sleep(50 * time.Millisecond) // no /proc: give the stop time to land
			return true
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		return len(f) > 0 && (f[0] == "T" || f[0] == "t" || f[0] == "Z")
	})
	select {
	case <-p.done:
		return false
	default:
	}
	if ri, err := rundir.ReadResumeInfo(dir); err == nil && ri.Finished {
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.wait(t, hangGuard)
		return false
	}
	p.cmd.Process.Signal(sig)
	p.cmd.Process.Signal(syscall.SIGCONT)
	return true
}

// TestResumeKillSGLDCV: SGLD with control variates (the MAP found again by
// the resumed run), SIGKILL at a random moment of the sampling.
func TestResumeKillSGLDCV(t *testing.T) {
	if testing.Short() {
		// The same job as TestResumeSIGTERM's, killed instead: a SIGKILL's
		// resume is TestResumeKillDefaultJob's and TestResumeKillNetwork's;
		// the sampler's state, langevin's TestRunResume.
		t.Skip("the full suite's: -short resumes this job in TestResumeSIGTERM")
	}
	resumeAfterSignal(t, 1, syscall.SIGKILL, "--sampler", "sgld", "--cv", "--iters", "80000", "--burnin", "2000", "--thin", "10")
}

// TestResumeKillCyclicalSGHMC: cyclical SGHMC (momentum, the schedule's
// position and its exploration phases, whose draws are not kept), killed,
// resumed and killed again twice before the last resume.
//
// With -short the run is half as long (20,000 iterations, the same 4 cycles).
func TestResumeKillCyclicalSGHMC(t *testing.T) {
	iters := "40000"
	if testing.Short() {
		iters = "20000"
	}
	resumeAfterSignals(t, 2, syscall.SIGKILL, 3, "--sampler", "csghmc", "--iters", iters, "--cycles", "4", "--burnin", "1000", "--thin", "10")
}

// TestResumeKillNUTS: NUTS, killed during its warm-up adaptation or its
// sampling (the step size, the metric's windows, the dual averaging).
func TestResumeKillNUTS(t *testing.T) {
	if testing.Short() {
		// -short: the default job (auto → NUTS here) in
		// TestResumeKillDefaultJob; NUTS's warm-up state from any
		// checkpoint in langevin's TestRunResume and sampler's
		// TestResumeExact.
		t.Skip("the full suite's: -short resumes NUTS in TestResumeKillDefaultJob")
	}
	resumeAfterSignal(t, 3, syscall.SIGKILL, "--sampler", "nuts", "--iters", "2000", "--burnin", "1000", "--thin", "1")
}

// TestResumeSIGTERM: a run stopped by SIGTERM (a Slurm pre-emption) closes
// its files with "Run stopped", keeps its checkpoint and resumes exactly.
//
// With -short the run is half as long (15,000 iterations).
func TestResumeSIGTERM(t *testing.T) {
	iters := "30000"
	if testing.Short() {
		iters = "15000"
	}
	resumeAfterSignal(t, 4, syscall.SIGTERM, "--sampler", "sgld", "--cv", "--iters", iters, "--burnin", "2000", "--thin", "10")
}

// TestResumeRefuses: a resumed run keeps its settings and its data: a
// changed flag or data file is exit 2 naming them; a directory that is no
// run's is exit 2 naming resume.json.
func TestResumeRefuses(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "d.csv")
	var sb strings.Builder
	sb.WriteString("x1,x2,y\n")
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if x1-x2+rng.NormFloat64() > 0 {
			y = 1
		}
		sb.WriteString(strings.Join([]string{fit.FmtF(x1), fit.FmtF(x2), string(rune('0' + y))}, ",") + "\n")
	}
	os.WriteFile(data, []byte(sb.String()), 0o644)
	dir := filepath.Join(base, "run")
	p := start(t, "run", "--data", data, "--sampler", "sgld", "--iters", "50000000", "--burnin", "100", "--thin", "100", "--chains", "2", "--quiet", "--checkpoint", "20ms", "--out", dir)
	waitUntil(t, hangGuard, "a checkpoint", func() bool { _, err := os.Stat(filepath.Join(dir, "checkpoint.bin")); return err == nil })
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, hangGuard)
	code, _, errOut := runMain("run", "--resume", dir, "--chains", "3", "--seed", "2", "--quiet")
	if code != 2 || !strings.Contains(errOut, "--chains 3 (the run's: 2)") || !strings.Contains(errOut, "--seed 2 (the run's: 1)") {
		t.Errorf("changed flags: exit %d: %s", code, errOut)
	}
	os.WriteFile(data, []byte(sb.String()+"0.1,0.2,1\n"), 0o644)
	code, _, errOut = runMain("run", "--resume", dir)
	if code != 2 || !strings.Contains(errOut, "--data "+data+" changed since the run began") {
		t.Errorf("changed data: exit %d: %s", code, errOut)
	}
	code, _, errOut = runMain("run", "--resume", base)
	if code != 2 || !strings.Contains(errOut, "resume.json") {
		t.Errorf("not a run: exit %d: %s", code, errOut)
	}
}

// TestResumeKillDefaultJob: the default job (--sampler auto: here NUTS with
// the ESS stop and the growing thinning, whose length the draws decide)
// resumes exactly too: the same stop, the same thinning, the same files.
//
// The uninterrupted run is defaultRun's, the shared default job: its
// --report and the --checkpoint interval change no draw (resume lets both
// differ from the run's, resumeFree).
func TestResumeKillDefaultJob(t *testing.T) {
	out, ref := defaultRun(t)
	resumeAgainst(t, 5, syscall.SIGKILL, 1, ref, out, "run", "--data", "australian", "--quiet", "--checkpoint", "20ms")
}

// TestResumeKillNetwork: a network run of --sampler auto (the network plan:
// random fan-in starts, Adam, SGHMC chains wrapped in restarts, the
// function-space R̂ stop, the growing thinning) resumes exactly too.
//
// With -short the network is smaller (100 rows, 5 hidden units: the same
// plan — random starts, Adam modes, SGHMC, the function-space stop, thinning
// grown to 64 — at a quarter of the CPU).
func TestResumeKillNetwork(t *testing.T) {
	n, hidden := "200", "10"
	if testing.Short() {
		n, hidden = "100", "5"
	}
	resumeAfterSignal(t, 6, syscall.SIGKILL, "--model", "mlp", "--data", "moons", "--n", n, "--hidden", hidden)
}

// TestResumeKilledBeforeSummary: a run killed after its sampling finished
// but before its directory was complete (no summary.csv nor model.json: the
// kill lands as the directory's Finish begins) was marked finished, so
// --resume said "nothing to resume" and predict had no model.json; now it
// resumes from its last checkpoint to the same draws, summary.csv and
// model.json as a run never killed.
func TestResumeKilledBeforeSummary(t *testing.T) {
	base := t.TempDir()
	ref, dir := filepath.Join(base, "ref"), filepath.Join(base, "run")
	args := []string{"run", "--data", "australian", "--quiet", "--checkpoint", "20ms", "--sampler", "sgld", "--iters", "20000", "--burnin", "2000", "--thin", "20", "--chains", "2"}
	if code, _, errOut := runMain(append(args, "--out", ref)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, errOut)
	}
	cmd := commandProc(context.Background(), t, append(args, "--out", dir)...)
	cmd.Env = append(cmd.Env, killAtFinish+"=1")
	cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the run was not killed at its Finish: %v", cmd.ProcessState)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); err == nil {
		t.Fatal("summary.csv written before the kill")
	}
	code, _, errOut := runMain("run", "--resume", dir)
	if code != 0 {
		t.Fatalf("--resume after a kill before the summary: exit %d: %s", code, errOut)
	}
	sameRunFiles(t, ref, dir, 2)
	for _, name := range []string{"model.json", "scaler.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if code, _, errOut := runMain("run", "--resume", dir); code != 2 || !strings.Contains(errOut, "nothing to resume") {
		t.Errorf("--resume of the completed run: exit %d: %s", code, errOut)
	}
}
