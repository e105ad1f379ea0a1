// Command hostile probes the langevin command with hostile inputs and
// faults, each case in its own process, and prints good or bad per case
// with what it measured (exit code, CPU seconds user+system, peak RSS):
//
//	go run ./bench/hostile            # every case (minutes; writes ~250 MB under -tmp)
//	go run ./bench/hostile -fast      # the cases CI runs (.ci/run), about a minute of CPU
//	go run ./bench/hostile -run resume
//
// It exits 1 when a case is bad. The binary is built without cgo (as
// released) unless -bin names one. A case is good when langevin does what
// it promises: input errors exit 2 naming the file, column or flag; no Go
// panic or trace ever; peak RSS at most 1 GiB; signals keep the draws and
// end the process within 3 s of CPU; --resume gives the bytes of a run
// never stopped; the same seed gives the same draws with 1 or 2 cores.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	maxRSS    = 1 << 10 // MiB: the bound on every input
	maxSigCPU = 3.0     // s of CPU from a signal to the exit
)

// outcome is what a finished process did.
type outcome struct {
	code           int
	stdout, stderr string
	cpu            float64 // s, user + system
	rss            int64   // MiB, peak
	wall           time.Duration
}

func (o *outcome) String() string {
	return fmt.Sprintf("exit %d, %.1f s CPU, %d MiB", o.code, o.cpu, o.rss)
}

// trace reports whether the output holds a Go panic or runtime trace.
func (o *outcome) trace() bool {
	s := o.stdout + o.stderr
	return strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") || strings.Contains(s, "fatal error:")
}

type env struct {
	bin, tmp, repo string
}

// proc is a started langevin process.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr lockedBuf
	t0             time.Time
}

// lockedBuf is a buffer safe to read while the process writes it.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (e *env) start(extraEnv []string, shell string, args ...string) *proc {
	p := &proc{}
	if shell != "" { // a shell prefix such as "ulimit -f 100 &&"
		p.cmd = exec.Command("sh", append([]string{"-c", shell + ` exec "$0" "$@"`, e.bin}, args...)...)
	} else {
		p.cmd = exec.Command(e.bin, args...)
	}
	p.cmd.Env = append(os.Environ(), extraEnv...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.t0 = time.Now()
	if err := p.cmd.Start(); err != nil {
		panic(err)
	}
	return p
}

// wait waits at most limit for p (then kills it: exit -1).
func (p *proc) wait(limit time.Duration) *outcome {
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-done
	}
	o := &outcome{code: p.cmd.ProcessState.ExitCode(), stdout: p.stdout.String(), stderr: p.stderr.String(), wall: time.Since(p.t0)}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.code = -int(ws.Signal())
	}
	o.cpu = (p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()).Seconds()
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.rss = ru.Maxrss >> 10
	}
	return o
}

// cpuNow is the CPU time p has used so far, from /proc.
func (p *proc) cpuNow() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100 // clock ticks
}

func (e *env) run(args ...string) *outcome {
	return e.start(nil, "", args...).wait(10 * time.Minute)
}

// path returns a fresh path under the probe's directory.
func (e *env) path(name string) string {
	p := filepath.Join(e.tmp, name)
	os.RemoveAll(p)
	return p
}

func write(path string, s string) string {
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		panic(err)
	}
	return path
}

// table writes n rows of d numeric features and a 0/1 target y.
func table(path string, n, d int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	for j := range d {
		fmt.Fprintf(&b, "x%d,", j+1)
	}
	b.WriteString("y\n")
	for range n {
		s := 0.0
		for j := range d {
			v := rng.NormFloat64()
			s += v / float64(j+1)
			b.WriteString(strconv.FormatFloat(v, 'f', 3, 64))
			b.WriteByte(',')
		}
		if rng.Float64()*2-1 < s/2 {
			b.WriteString("1\n")
		} else {
			b.WriteString("0\n")
		}
		if b.Len() > 1<<20 {
			f.Write(b.Bytes())
			b.Reset()
		}
	}
	f.Write(b.Bytes())
	f.Close()
	return path
}

// result of a case.
type result struct {
	good   bool
	detail string
	skip   bool
}

func good(f string, a ...any) result { return result{true, fmt.Sprintf(f, a...), false} }
func bad(f string, a ...any) result  { return result{false, fmt.Sprintf(f, a...), false} }

// inputError checks exit 2, no trace, the bound on RSS and each want in
// stderr.
func inputError(o *outcome, wants ...string) result {
	if o.code != 2 || o.trace() || o.rss > maxRSS {
		return bad("%v, want exit 2, no trace, ≤ %d MiB: %s", o, maxRSS, firstLine(o.stderr))
	}
	for _, w := range wants {
		if !strings.Contains(o.stderr, w) {
			return bad("%v: error lacks %q: %s", o, w, firstLine(o.stderr))
		}
	}
	return good("%v: %s", o, firstLine(o.stderr))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

type probe struct {
	name string
	fast bool
	run  func(e *env) result
}

var smallRun = []string{"run", "--sampler", "sgld", "--iters", "2000", "--burnin", "500", "--thin", "10", "--chains", "2", "--quiet"}

func main() {
	fast := flag.Bool("fast", false, "only the fast cases (CI)")
	bin := flag.String("bin", "", "langevin binary (default: built from -repo without cgo)")
	repo := flag.String("repo", ".", "the repository's root")
	tmp := flag.String("tmp", "", "working directory (default a new temporary one, removed at the end)")
	only := flag.String("run", "", "only the cases whose name matches this regular expression")
	flag.Parse()
	e := &env{bin: *bin, tmp: *tmp, repo: *repo}
	if e.tmp == "" {
		d, err := os.MkdirTemp("", "hostile")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(d)
		e.tmp = d
	}
	if e.bin == "" {
		e.bin = filepath.Join(e.tmp, "langevin")
		cmd := exec.Command("go", "build", "-o", e.bin, "./cmd/langevin")
		cmd.Dir, cmd.Env = *repo, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "hostile: go build: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	re := regexp.MustCompile(*only)
	nGood, nBad, nSkip := 0, 0, 0
	var bads []string
	for _, p := range probes {
		if (*fast && !p.fast) || !re.MatchString(p.name) {
			continue
		}
		t0 := time.Now()
		r := p.run(e)
		verdict := "good"
		switch {
		case r.skip:
			verdict = "skip"
			nSkip++
		case r.good:
			nGood++
		default:
			verdict = "BAD"
			nBad++
			bads = append(bads, p.name)
		}
		fmt.Printf("%-4s  %-52s  %s  (%.1f s)\n", verdict, p.name, r.detail, time.Since(t0).Seconds())
	}
	fmt.Printf("\n%d good, %d bad, %d skipped\n", nGood, nBad, nSkip)
	if nBad > 0 {
		fmt.Printf("bad: %s\n", strings.Join(bads, "; "))
		os.Exit(1)
	}
}
