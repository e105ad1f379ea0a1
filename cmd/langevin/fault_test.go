package main

// Fault tests: they start the command in a process of its own (this test
// binary as the command, see TestMain) and send it real signals.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin/rundir"
)

// asCommand, set in a process's environment, makes this test binary the
// langevin command (TestMain): the tests that need a real process, to
// signal, kill or limit it, start the test binary itself instead of
// building the command (which cost a link, 3–4 s of CPU, in every run of
// the tests). The fuzzing workers, which are also this binary, do not have
// it.
const asCommand = "LANGEVIN_TEST_AS_COMMAND"

// killAtFinish makes the command started by the tests kill itself with
// SIGKILL as the run directory's Finish begins (finishHook).
const killAtFinish = "LANGEVIN_TEST_KILL_AT_FINISH"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		if os.Getenv(killAtFinish) == "1" {
			// Killed where a finished sampling's directory is not yet
			// complete (no summary.csv, model.json).
			finishHook = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		}
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) // as main does
	}
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// binary returns the path of an executable that is the langevin command
// when started by command (this test binary with asCommand set).
func binary(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// commandProc is exec.CommandContext of the langevin command (binary) with args.
func commandProc(ctx context.Context, t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(os.Environ(), asCommand+"=1")
	return cmd
}

// proc is a running langevin.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	code           int
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: commandProc(context.Background(), t, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.code = -int(ws.Signal())
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to end, at most d.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("%v still running after %v\nstderr: %s", p.cmd.Args, d, p.stderr.String())
	}
	return 0
}

// hangGuard is how long the fault tests wait for a process or an event
// before calling it a hang: a watchdog, not a speed claim (a loaded 2-core
// machine stretches seconds into minutes). What the tests claim about speed
// ("stops promptly", "refused before any work") they measure in the
// process's CPU time, which load does not stretch (procCPU, proc.cpu).
const hangGuard = 3 * time.Minute

// procCPU returns the CPU time (user + system) the running process pid has
// used so far: utime and stime of /proc/PID/stat, in clock ticks of 1/100 s
// (USER_HZ, 100 on Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// pid (comm) state ppid …: comm may hold spaces; fields after ')'
	// start with state (field 3), so utime (14) and stime (15) are 11, 12.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// selfCPU returns the CPU time (user + system) this process has used.
func selfCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpu returns the CPU time (user + system) the ended process used.
func (p *proc) cpu() time.Duration {
	return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
}

// waitUntil polls cond every 10 ms, at most d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("after %v: %s never happened", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hasRows reports whether DIR/name holds a data row.
func hasRows(dir, name string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && (line[0] == '-' || line[0] >= '0' && line[0] <= '9') {
			return true
		}
	}
	return false
}

// longRun is a run of the toy target that takes many seconds, with draws
// from the first fraction of a second.
var longRun = []string{"run", "--model", "gauss2", "--sampler", "sgld", "--iters", "50000000", "--burnin", "1000", "--thin", "10", "--chains", "2", "--quiet"}

// checkNoTornRows checks that every line of every file in dir ends with a
// newline and every data row has as many fields as the header.
func checkNoTornRows(t *testing.T, dir string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a line cut short: %q", p, b[max(0, len(b)-80):])
		}
		fields := -1
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" || strings.HasPrefix(line, "#") || filepath.Base(p) == "summary.csv" {
				continue
			}
			n := strings.Count(line, ",") + 1
			if fields < 0 {
				fields = n
			} else if n != fields {
				t.Errorf("%s:%d: %d fields, header has %d: a torn row", p, i+1, n, fields)
			}
		}
	}
}

// TestFaultKill9 kills a run with SIGKILL at random moments, 20 times (3
// with -short): the chain files never hold a torn row, and langevin summary
// reads what is there and says the run is unfinished.
func TestFaultKill9(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 3
	}
	rng := rand.New(rand.NewPCG(14, 1))
	for i := range n {
		dir := filepath.Join(t.TempDir(), "out")
		p := start(t, append(longRun, "--seed", strconv.Itoa(i+1), "--out", dir)...)
		waitUntil(t, hangGuard, "the first draws on disk", func() bool { return hasRows(dir, "chain-1.csv") })
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		if code := p.wait(t, hangGuard); code != -int(syscall.SIGKILL) {
			t.Fatalf("kill %d: exit %d, want killed", i, code)
		}
		checkNoTornRows(t, dir)
		r, err := rundir.Read(dir)
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		if r.Finished() || r.Trace.NumDraws() == 0 {
			t.Errorf("kill %d: %d draws, status %q", i, r.Trace.NumDraws(), r.Status())
		}
		code, out, errOut := runMain("summary", dir)
		if code != 0 || !strings.Contains(out, "unfinished") || strings.Contains(out, "NA") {
			t.Errorf("kill %d: summary exit %d: %s%s", i, code, out, errOut)
		}
	}
}

var drawsLine = regexp.MustCompile(`draws: +(\d+) chains × ([\d, ]+) kept`)

// TestFaultSignals sends SIGTERM and SIGINT during loading, the MAP,
// burn-in, sampling and the test-set predictions: the run stops promptly with exit code 128 + the
// signal, the draws so far are readable by langevin summary, with the
// counts the run printed, and the chain files say the run stopped. With
// -short, SIGINT only during the sampling.
func TestFaultSignals(t *testing.T) {
	type phase struct {
		name  string
		args  func(dir string) []string
		ready func(dir string) bool
		draws bool // draws are kept
	}
	fifo := filepath.Join(t.TempDir(), "data.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	phases := []phase{
		{"loading", func(dir string) []string {
			return []string{"run", "--data", fifo, "--out", dir, "--quiet"} // blocks: nobody writes the FIFO
		}, func(dir string) bool {
			// The FIFO is open for reading: opening it to write succeeds.
			// The writer stays open, silent, until the process ends.
			if !exists(dir, ".lock") {
				return false
			}
			w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return false
			}
			t.Cleanup(func() { w.Close() })
			return true
		}, false},
		{"the MAP", func(dir string) []string {
			return []string{"run", "--data", "moons", "--model", "mlp", "--sampler", "sgld", "--init", "map", "--map-iters", "100000000", "--out", dir, "--quiet"}
		}, func(dir string) bool {
			if !exists(dir, ".lock") { // the signal handler is in place
				return false
			}
			time.Sleep(300 * time.Millisecond) // the data and the model take milliseconds
			return true
		}, false},
		{"burn-in", func(dir string) []string {
			return []string{"run", "--model", "gauss2", "--iters", "50000000", "--burnin", "40000000", "--thin", "10", "--chains", "2", "--out", dir, "--quiet"}
		}, func(dir string) bool { return hasRows(dir, "warmup-1.csv") }, false},
		{"sampling", func(dir string) []string { return append(longRun, "--out", dir) },
			func(dir string) bool { return hasRows(dir, "chain-1.csv") && hasRows(dir, "chain-2.csv") }, true},
		{"the test-set predictions", func(dir string) []string {
			// 49,500 test rows × 4000 draws: tens of seconds of predictions.
			return []string{"run", "--data", "spirals", "--k", "10", "--n", "55000", "--model", "softmax", "--test-frac", "0.9",
				"--iters", "3000", "--burnin", "1000", "--thin", "1", "--chains", "2", "--quiet", "--out", dir}
		}, func(dir string) bool { return exists(dir, rundir.SummaryFile) }, false},
	}
	for i, ph := range phases {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			if testing.Short() && sig == syscall.SIGINT && ph.name != "sampling" {
				continue // -short: SIGINT in one phase (both signals take one path, runctl's)
			}
			name := ph.name + "/" + sig.String()
			dir := filepath.Join(t.TempDir(), "out")
			p := start(t, ph.args(dir)...)
			waitUntil(t, hangGuard, name+": the phase", func() bool { return ph.ready(dir) })
			before, err := procCPU(p.cmd.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			p.cmd.Process.Signal(sig)
			code := p.wait(t, hangGuard)
			// Promptly: the CPU spent after the signal (closing the files,
			// the partial summary), not the wall clock, which load stretches.
			if after := p.cpu() - before; after > 2*time.Second {
				t.Errorf("%s: %v of CPU after the signal", name, after)
			}
			if code != 128+int(sig) {
				t.Errorf("%s: exit %d, want %d; stderr %s", name, code, 128+int(sig), p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "interrupted by SIG") {
				t.Errorf("%s: stderr %q does not say the run was interrupted", name, p.stderr.String())
			}
			if !ph.draws {
				continue
			}
			checkNoTornRows(t, dir)
			out := p.stdout.String()
			if strings.Contains(out, " NA ") || strings.Contains(out, "Inf per second") {
				t.Errorf("%s: the partial summary has NA or Inf:\n%s", name, out)
			}
			m := drawsLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("%s: no draws line in\n%s", name, out)
			}
			r, err := rundir.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			var counts []string
			for _, d := range r.Trace.Draws {
				counts = append(counts, strconv.Itoa(len(d)))
			}
			if printed := strings.TrimSpace(m[2]); printed != strings.Join(counts, ", ") && !(len(counts) > 0 && allSame(counts) && printed == counts[0]) {
				t.Errorf("%s: the run printed %s kept, the files hold %v", name, printed, counts)
			}
			if want := "stopped: interrupted by " + map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[sig]; !strings.Contains(r.Status(), want) {
				t.Errorf("%s: status %q, want %q", name, r.Status(), want)
			}
			code, sout, serr := runMain("summary", dir)
			if code != 0 || !strings.Contains(sout, "unfinished") {
				t.Errorf("%s: summary exit %d: %s%s", name, code, sout, serr)
			}
			if _, err := os.Stat(filepath.Join(dir, rundir.SummaryFile)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		_ = i
	}
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func allSame(s []string) bool {
	for _, v := range s {
		if v != s[0] {
			return false
		}
	}
	return true
}

// TestFaultRunDirs: a second run into a used directory is refused with exit
// 2; with --overwrite none of the first run's files remain; a run into a
// directory another run is writing is refused; a bad --out fails with exit
// 2 before any work (under 1 s of CPU, the process's start included).
func TestFaultRunDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	quick := []string{"--model", "gauss2", "--iters", "2000", "--burnin", "500", "--thin", "1", "--quiet", "--out", dir}
	p := start(t, append([]string{"run", "--chains", "4", "--seed", "1"}, quick...)...)
	if code := p.wait(t, hangGuard); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, p.stderr.String())
	}
	p = start(t, append([]string{"run", "--chains", "2", "--seed", "2"}, quick...)...)
	if code := p.wait(t, hangGuard); code != 2 || !strings.Contains(p.stderr.String(), "--overwrite") {
		t.Errorf("second run into a used directory: exit %d, %s", code, p.stderr.String())
	}
	p = start(t, append([]string{"run", "--chains", "2", "--seed", "2", "--overwrite"}, quick...)...)
	if code := p.wait(t, hangGuard); code != 0 {
		t.Fatalf("--overwrite: exit %d: %s", code, p.stderr.String())
	}
	for _, old := range []string{"chain-3.csv", "chain-4.csv", "warmup-3.csv", "warmup-4.csv"} {
		if _, err := os.Stat(filepath.Join(dir, old)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after --overwrite, the first run's %s remains", old)
		}
	}
	r, err := rundir.Read(dir)
	if err != nil || r.Trace.NumChains() != 2 || r.Config["seed"] != "2" || !r.Finished() {
		t.Errorf("after --overwrite: %v", err)
	}

	// Two runs on one directory at once.
	busy := filepath.Join(t.TempDir(), "busy")
	p = start(t, append(longRun, "--out", busy)...)
	waitUntil(t, hangGuard, "the first run's draws", func() bool { return hasRows(busy, "chain-1.csv") })
	q := start(t, append(longRun, "--out", busy, "--overwrite")...)
	if code := q.wait(t, hangGuard); code != 2 || !strings.Contains(q.stderr.String(), "another process") {
		t.Errorf("second concurrent run: exit %d, %s", code, q.stderr.String())
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, hangGuard)
	if r, err := rundir.Read(busy); err != nil || r.Trace.NumChains() != 2 {
		t.Errorf("the first run's directory after the second was refused: %v", err)
	}

	// Bad --out: a file, a directory under a file, a directory that cannot
	// be made; refused before any work: the default job's loading, MAP and
	// sampling take over a second of CPU, the refusal a few hundredths.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, bad := range []string{file, filepath.Join(file, "sub"), "/proc/langevin-out"} {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		cmd := commandProc(ctx, t, "run", "--out", bad, "--quiet")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		cancel()
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if code := cmd.ProcessState.ExitCode(); code != 2 || cpu > time.Second || !strings.Contains(stderr.String(), "--out") {
			t.Errorf("--out %s: exit %d after %v of CPU: %s", bad, code, cpu, stderr.String())
		}
	}
}
