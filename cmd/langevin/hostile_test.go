package main

// The cases of an outside probe of hostile inputs and faults (issue 24):
// each test names the row of the table it keeps from coming back.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/rundir"
)

// smallRun are the flags of a run that takes a fraction of a second.
var smallRun = []string{"run", "--sampler", "sgld", "--iters", "2000", "--burnin", "500", "--thin", "10", "--chains", "2", "--quiet"}

// baseRun returns a fresh copy of a small finished run directory (logistic
// regression on the embedded credit data, standardised).
func baseRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	code, _, errOut := runMain(append(append([]string(nil), smallRun...), "--out", dir)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	return dir
}

// credit writes the embedded credit data (the default run's) as a CSV
// file at path.
func credit(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	d := data.Australian()
	var sb strings.Builder
	sb.WriteString(strings.Join(append(append([]string(nil), d.Names...), d.Target), ",") + "\n")
	for i := 0; i < d.Len(); i++ {
		for j := 0; j < d.Dim(); j++ {
			sb.WriteString(fit.FmtF(d.X.At(i, j)) + ",")
		}
		sb.WriteString(fit.FmtF(d.Y[i]) + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// expectExit2 runs the command and checks exit 2 with every want in its
// error output.
func expectExit2(t *testing.T, what string, args []string, wants ...string) string {
	t.Helper()
	code, out, errOut := runMain(args...)
	if code != 2 {
		t.Errorf("%s: exit %d, want 2\nstdout: %s\nstderr: %s", what, code, out, errOut)
		return errOut
	}
	for _, w := range wants {
		if !strings.Contains(errOut, w) {
			t.Errorf("%s: error %q lacks %q", what, strings.TrimSpace(errOut), w)
		}
	}
	return errOut
}

// TestHostileRunFiles is row 4: scaler.json of the wrong length made
// predict panic; a missing one gave silently wrong predictions; a negative
// scale was accepted; chain headers with a negative thinning were read.
func TestHostileRunFiles(t *testing.T) {
	base := baseRun(t)
	csv := filepath.Join(t.TempDir(), "credit.csv")
	credit(t, csv)
	var sc struct{ Mean, Scale []float64 }
	b, err := os.ReadFile(filepath.Join(base, rundir.ScalerFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, f func(path string)) string {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		f(dir)
		return dir
	}
	writeScaler := func(mean, scale []float64) func(string) {
		return func(dir string) {
			b, _ := json.Marshal(map[string][]float64{"mean": mean, "scale": scale})
			if err := os.WriteFile(filepath.Join(dir, rundir.ScalerFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	short := edit("short", writeScaler(sc.Mean[1:], sc.Scale[1:]))
	expectExit2(t, "scaler one short", []string{"predict", "--samples", short, "--data", csv}, "scaler.json", "13 means and scales", "14 features")
	missing := edit("missing", func(dir string) { os.Remove(filepath.Join(dir, rundir.ScalerFile)) })
	expectExit2(t, "scaler missing", []string{"predict", "--samples", missing, "--data", csv}, "scaler.json: missing", "standardize = true")
	neg := append([]float64(nil), sc.Scale...)
	neg[3] = -neg[3]
	negDir := edit("negative", writeScaler(sc.Mean, neg))
	expectExit2(t, "negative scale", []string{"predict", "--samples", negDir, "--data", csv}, "scaler.json", "scale[3]", "finite positive")
	zero := append([]float64(nil), sc.Scale...)
	zero[0] = 0
	zeroDir := edit("zero", writeScaler(sc.Mean, zero))
	expectExit2(t, "zero scale", []string{"predict", "--samples", zeroDir, "--data", csv}, "scale[0]")

	badSpec := edit("spec", func(dir string) {
		p := filepath.Join(dir, rundir.SpecFile)
		b, _ := os.ReadFile(p)
		b = []byte(strings.Replace(string(b), `"model": "logistic"`, `"model": "logistic", "classes": -3`, 1))
		os.WriteFile(p, b, 0o644)
	})
	expectExit2(t, "negative classes", []string{"predict", "--samples", badSpec, "--data", csv}, "model.json", "classes -3")

	for _, v := range []string{"-2", "0", "two", "99999999999999999999"} {
		thin := edit("thin"+v, func(dir string) {
			for _, k := range []int{1, 2} {
				p := filepath.Join(dir, rundir.ChainFile(k))
				b, _ := os.ReadFile(p)
				b = []byte(strings.Replace(string(b), "#     thin = 10\n", "#     thin = "+v+"\n", 1))
				os.WriteFile(p, b, 0o644)
			}
		})
		for _, cmd := range [][]string{{"summary", thin}, {"report", "-o", filepath.Join(t.TempDir(), "r.html"), thin}, {"predict", "--samples", thin, "--data", csv}} {
			expectExit2(t, cmd[0]+" thin "+v, cmd, "chain-1.csv: header: thin", "expected a whole number")
		}
	}
}

// TestHostileIters is row 5: --iters 2^63−1 overflowed the memory check
// (then 3.2 GB of RAM in 20 s) and the progress total ("0/-4 iterations").
func TestHostileIters(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--iters", "9223372036854775807", "--thin", "1", "--quiet"},
		{"run", "--sampler", "sgld", "--iters", "9223372036854775807", "--burnin", "10", "--thin", "3", "--quiet"},
		{"run", "--sampler", "sgld", "--iters", "9223372036854775807", "--burnin", "9223372036854775806", "--thin", "1", "--quiet"},
	} {
		// At once: in CPU time (the package's tests run one at a time, so
		// the process's CPU is the run's), which load does not stretch.
		before := selfCPU(t)
		errOut := expectExit2(t, strings.Join(args[1:], " "), args, "would take")
		if d := selfCPU(t) - before; d > 5*time.Second {
			t.Errorf("%v: refused after %v of CPU, want at once", args, d)
		}
		if strings.Contains(errOut, "-") && strings.Contains(errOut, "× -") {
			t.Errorf("%v: a negative count: %s", args, errOut)
		}
	}
}

// TestHostileDefaultJobMemory is row 1: the up-front check counted 10⁷
// draws a chain for auto (whose growing thinning keeps a few hundred), so
// that the default job was refused on a 16 GB machine; it must run on a
// 4 GB one, and a run that keeps its draws at thin 1 must still be refused.
func TestHostileDefaultJobMemory(t *testing.T) {
	budget.Hook = func() int64 { return 2 << 30 } // half of a 4 GB machine
	defer func() { budget.Hook = nil }()
	code, _, errOut := runMain("run", "--quiet", "--target-ess", "100")
	if code != 0 {
		t.Fatalf("default job with a 2 GiB budget: exit %d: %s", code, errOut)
	}
	// 16 chains: the check counts chains × kept draws, whatever the rows (200).
	code, _, errOut = runMain("run", "--quiet", "--chains", "16", "--data", "moons", "--n", "200", "--target-ess", "100")
	if code != 0 {
		t.Fatalf("--chains 16 on moons with a 2 GiB budget: exit %d: %s", code, errOut)
	}
	expectExit2(t, "thin 1 kept", []string{"run", "--quiet", "--sampler", "sgld", "--iters", "100000000", "--thin", "1", "--burnin", "10"}, "would take", "raise --thin")
}

// TestHostileDefaultJobAddressSpace runs the default job in a process
// limited to 2 GiB of address space (ulimit -v).
func TestHostileDefaultJobAddressSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	bin := binary(t)
	cmd := exec.Command("sh", "-c", `ulimit -v 2097152 && exec "$0" run --quiet --target-ess 200`, bin)
	cmd.Env = append(os.Environ(), asCommand+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("default job under ulimit -v 2 GiB: %v\n%s", err, out)
	}
}

// TestHostilePaths is row 6: a --data path with '=' (Hive-style
// partitions), '#', spaces or a line break made run fail with an internal
// CmdStan CSV error; --out likewise.
func TestHostilePaths(t *testing.T) {
	root := t.TempDir()
	for _, sub := range []string{"year=2024/month=1", "a#b c", "two\nlines", "pct%3D"} {
		csv := filepath.Join(root, sub, "part=0 #1.csv")
		credit(t, csv)
		out := filepath.Join(root, sub, "out=1 #x")
		code, _, errOut := runMain(append(append([]string(nil), smallRun...), "--data", csv, "--out", out)...)
		if code != 0 {
			t.Errorf("%q: run: exit %d: %s", sub, code, errOut)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(out, rundir.ChainFile(1)))
		for _, line := range strings.Split(string(b), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "lp__") && !strings.ContainsAny(line[:1], "-0123456789") {
				t.Errorf("%q: chain file line %q: the path broke its comment line", sub, line)
			}
		}
		r, err := rundir.Read(out)
		if err != nil {
			t.Fatalf("%q: %v", sub, err)
		}
		found := false
		for _, kv := range r.Settings {
			found = found || kv[0] == "data" && kv[1] == csv
		}
		if !found {
			t.Errorf("%q: the settings do not give the data path back: %q", sub, r.Settings)
		}
		for _, cmd := range [][]string{{"summary", out}, {"report", out}, {"predict", "--samples", out, "--data", csv, "--split", "all"}} {
			if code, _, errOut := runMain(cmd...); code != 0 {
				t.Errorf("%q: %s: exit %d: %s", sub, cmd[0], code, errOut)
			}
		}
	}
}

// TestHostileOutDir is row 8: --out naming a symbolic link to a non-empty
// directory that is not a run wrote 13 files into it (as root, into /etc
// alike). Nothing may be made in it, --overwrite or not.
func TestHostileOutDir(t *testing.T) {
	root := t.TempDir()
	etc := filepath.Join(root, "etc")
	os.MkdirAll(filepath.Join(etc, "sub"), 0o755)
	os.WriteFile(filepath.Join(etc, "passwd"), []byte("root:x:0:0\n"), 0o644)
	link := filepath.Join(root, "link")
	if err := os.Symlink(etc, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{etc, link} {
		for _, extra := range [][]string{nil, {"--overwrite"}} {
			args := append(append(append([]string(nil), smallRun...), "--out", out), extra...)
			expectExit2(t, "--out "+out+" "+strings.Join(extra, ""), args, "not empty and not a langevin run", "passwd, sub")
		}
	}
	ents, _ := os.ReadDir(etc)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v after the refused runs, want only passwd and sub", names)
	}
	// A run's own directory, and an empty one, are still fine.
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	for _, args := range [][]string{{"--out", empty}, {"--out", empty, "--overwrite"}} {
		if code, _, errOut := runMain(append(append([]string(nil), smallRun...), args...)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestHostileEmptyChain is row 10: a chain file with a header and no draws
// (a run stopped before the chain began) made report and compare fail ("0
// draws per chain"); summary left the chain out.
func TestHostileEmptyChain(t *testing.T) {
	dir := baseRun(t)
	p := filepath.Join(dir, rundir.ChainFile(2))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		head = append(head, line)
		if strings.HasPrefix(line, "lp__") {
			break
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(head, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"summary", dir}, {"report", dir}, {"compare", dir, dir}} {
		code, out, errOut := runMain(cmd...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s%s", cmd[0], code, out, errOut)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, rundir.ReportFile))
	if !strings.Contains(string(page), "1 of 2 chains hold no draw") {
		t.Errorf("the report does not say that a chain is left out")
	}
}

// TestHostileSmall is row 12: an error that echoed two lines of a
// symbolically linked /etc/passwd; a FIFO in place of a chain file that
// hung summary; run names put in compare's index.md as raw HTML; convert's
// temporary file left behind by SIGTERM.
func TestHostileSmall(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(root, "passwd")
	os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"), 0o644)
	link := filepath.Join(root, "chain.csv")
	os.Symlink(secret, link)
	for _, args := range [][]string{{"summary", link}, {"run", "--data", link, "--quiet"}, {"run", "--data", link, "--format", "libsvm", "--quiet"}} {
		_, _, errOut := runMain(args...)
		for _, leak := range []string{"root:x:0:0:root", "/bin/bash", "daemon:x:1:1:d", "nologin"} {
			if strings.Contains(errOut, leak) {
				t.Errorf("%v: the error shows %q of the file: %s", args, leak, errOut)
			}
		}
	}

	// A FIFO in place of a chain file: refused at once.
	dir := baseRun(t)
	p := filepath.Join(dir, rundir.ChainFile(2))
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if !testing.Short() {
		for _, args := range [][]string{{"summary", dir}, {"summary", p}, {"report", dir}} {
			pr := start(t, args...)
			if code := pr.wait(t, 20*time.Second); code != 2 || !strings.Contains(pr.stderr.String(), "not a regular file") {
				t.Errorf("%v with a FIFO: exit %d: %s", args, code, pr.stderr.String())
			}
		}
	}

	// Run names in compare's page.
	run := baseRun(t)
	out := filepath.Join(root, "cmp")
	code, _, errOut := runMain("compare", "--names", "<script>alert(1)</script>,```\n# x", "--out", out, run, run)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.md"))
	head, _, _ := strings.Cut(string(page), "\n")
	if strings.Contains(head, "<script>") || !strings.Contains(head, "&lt;script&gt;") || strings.Count(string(page), "````\n") != 2 {
		t.Errorf("index.md puts a run's name in raw HTML:\n%s", page)
	}

	// convert's temporary file on SIGTERM: the input is a FIFO held open
	// after some rows, so that convert is in the middle of writing.
	if testing.Short() {
		return
	}
	fifo := filepath.Join(root, "in.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, "out.lvs")
	pr := start(t, "convert", "--format", "csv", "--data", fifo, "--out", store)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString("a,b,y\n")
	for range 5000 {
		w.WriteString("1.5,2.5,1\n")
	}
	waitUntil(t, 20*time.Second, "convert's temporary file", func() bool {
		_, err := os.Stat(store + ".tmp")
		return err == nil
	})
	pr.cmd.Process.Signal(syscall.SIGTERM)
	if code := pr.wait(t, 20*time.Second); code != 143 {
		t.Errorf("convert after SIGTERM: exit %d, want 143: %s", code, pr.stderr.String())
	}
	if _, err := os.Stat(store + ".tmp"); err == nil {
		t.Errorf("convert left %s.tmp after SIGTERM", store)
	}
}

// TestHostileMixedThinning is row 7 as the commands see it: a directory
// whose chain files were left with different thinnings (an older langevin
// killed while it rewrote them; rundir's TestKillDuringRewrite kills the
// writer of today 20 times during the rewrite) is refused by summary,
// predict and report with one message (summary mixed the thinnings,
// R̂ 1.044; predict used the mixed draws; report failed).
func TestHostileMixedThinning(t *testing.T) {
	dir := baseRun(t)
	p := filepath.Join(dir, rundir.ChainFile(2))
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "#     thin = 10\n", "#     thin = 1\n", 1)), 0o644)
	csv := filepath.Join(t.TempDir(), "credit.csv")
	credit(t, csv)
	msg := ""
	for _, cmd := range [][]string{{"summary", dir}, {"predict", "--samples", dir, "--data", csv}, {"report", dir}} {
		errOut := expectExit2(t, cmd[0], cmd, "chain-2.csv: thin = 1 but", "do not share one thinning")
		_, m, _ := strings.Cut(errOut, ": ")
		if msg != "" && m != msg {
			t.Errorf("%s: %q, want the same message as summary's %q", cmd[0], m, msg)
		}
		msg = m
	}
}

// TestHostileSignalWide is row 2: on wide data (d = 5,000) the first
// SIGTERM was ignored for 12+ minutes during auto's planning (an O(d³)
// factorisation with no cancellation check). Now every phase before the
// sampling ends at the first signal: exit 143 within 3 s, at two moments
// (the MAP or the Laplace approximation, and later the plan).
func TestHostileSignalWide(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 MB data set and 20 s of CPU")
	}
	const d, n = 5000, 300
	path := filepath.Join(t.TempDir(), "wide.csv")
	var sb strings.Builder
	for j := range d {
		sb.WriteString("x" + strconv.Itoa(j) + ",")
	}
	sb.WriteString("y\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		s := 0.0
		for j := range d {
			x := math.Round(rng.NormFloat64()*1000) / 1000
			if j < 5 {
				s += x
			}
			sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64) + ",")
		}
		if s+rng.NormFloat64() > 0 {
			sb.WriteString("1\n")
		} else {
			sb.WriteString("0\n")
		}
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// --max-time covers the whole job, the phases before the sampling too
	// (main: the MAP, the Laplace approximation and the plan ran on).
	// Held to it in CPU, which load does not stretch: a run that stops at
	// its 5 s uses at most 5 s on each core (plus its exit); one that ran
	// on (main: to 17.4 s, in NUTS's warm-up) used far more.
	t0 := time.Now()
	p := start(t, "run", "--data", path, "--quiet", "--max-time", "5s")
	code := p.wait(t, hangGuard)
	took := time.Since(t0)
	limit := time.Duration(runtime.NumCPU())*5*time.Second + 2*time.Second
	t.Logf("--max-time 5s: exit %d after %v, %v of CPU (the data take seconds to read)", code, took, p.cpu())
	// Exit 1 when the time ran out before a draw was kept; exit 0 when it
	// ran out in the sampling, the draws so far kept (and, at d = 5,001,
	// not summarised: that would take longer than the budget).
	inSampling := strings.Contains(p.stderr.String(), "reached during the sampling: the draws so far are kept")
	if !(code == 1 || code == 0 && inSampling) || !strings.Contains(p.stderr.String(), "--max-time 5s reached") || p.cpu() > limit {
		t.Errorf("--max-time 5s: exit %d after %v, %v of CPU (limit %v): %s", code, took, p.cpu(), limit, p.stderr.String())
	}
	for _, after := range []time.Duration{4 * time.Second, 12 * time.Second} {
		p := start(t, "run", "--data", path, "--quiet")
		// The bound is the command's work after the signal, in CPU time,
		// which the machine's load does not stretch (its wall time, 0.2–2.9 s
		// at load 24 on 2 cores, it does): within 3 s (main: 75 s).
		limit := 3 * time.Second
		time.Sleep(after)
		select {
		case <-p.done:
			t.Fatalf("the run ended before the signal: exit %d: %s", p.code, p.stderr.String())
		default:
		}
		before, err := procCPU(p.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		p.cmd.Process.Signal(syscall.SIGTERM)
		code := p.wait(t, hangGuard)
		took, cpu := time.Since(sent), p.cpu()-before
		t.Logf("SIGTERM after %v: exit %d in %v, %v of CPU: %s", after, code, took, cpu, strings.TrimSpace(p.stderr.String()))
		if code != 143 || cpu > limit {
			t.Errorf("SIGTERM after %v: exit %d after %v of CPU, want 143 within %v (main: 75 s)", after, code, cpu, limit)
		}
	}
}

// TestHostileGzipBomb is row 3: a 10 MB .csv.gz that expands to 10 GB
// took run past 10 GB of RSS (stopped by hand). Under a real limit of 1 GiB
// of address space (ulimit -v) the memory budget is a quarter of it and
// the reader holds at most a quarter of that (64 MiB): exit 2 naming the
// file, the bound and langevin convert, under 200 MB of RSS. The binary is
// built without cgo (CGO_ENABLED=0): the default build links runtime/cgo
// (net, through the Parquet reader's brotli), whose glibc threads and
// malloc arenas reserve so much address space that the process cannot
// start under 1–1.5 GiB; pure Go runs under 1 GiB.
func TestHostileGzipBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB file")
	}
	var one bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	row := []byte("0.5,0.25,1\n")
	for range (10 << 20) / len(row) {
		zw.Write(row)
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "bomb.csv.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zh, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zh.Write([]byte("a,b,y\n"))
	zh.Close()
	for range 1000 { // gzip members, one after another: 10 GB of text
		f.Write(one.Bytes())
	}
	f.Close()
	st, _ := os.Stat(path)
	cmd := exec.Command("sh", "-c", `ulimit -v 1048576 && exec "$0" run --quiet --data "$1"`, pureBinary(t), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	cmd.Run()
	code := cmd.ProcessState.ExitCode()
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // MiB
	t.Logf("%d MB of gzip: exit %d after %v, peak RSS %d MiB: %s", st.Size()>>20, code, time.Since(t0), rss, strings.TrimSpace(stderr.String()))
	if code != 2 || !strings.Contains(stderr.String(), "bomb.csv.gz") || !strings.Contains(stderr.String(), "MiB of numbers in memory, the bound") || !strings.Contains(stderr.String(), "langevin convert") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if rss > 200 {
		t.Errorf("peak RSS %d MiB, want under 200", rss)
	}
}

// TestHostileUnfittable is row 11: a single-class target, a constant
// column, values of 1e308 and perfectly separable data under a weak prior
// gave no warning, or misleading messages ("feature -Inf" for a file that
// holds none). Each now gets a warning or exit 2 naming the column and
// what to do.
func TestHostileUnfittable(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, row func(i int, a, b float64) string) string {
		rng := rand.New(rand.NewPCG(5, 6))
		var sb strings.Builder
		sb.WriteString("a,b,c,y\n")
		for i := range 200 {
			sb.WriteString(row(i, rng.NormFloat64(), rng.NormFloat64()) + "\n")
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(sb.String()), 0o644)
		return p
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	single := write("single.csv", func(i int, a, b float64) string { return g(a) + "," + g(b) + "," + g(a-b) + ",1" })
	expectExit2(t, "single class", []string{"run", "--data", single, "--quiet"}, `target column "y" holds only the label 1`, "two classes")
	huge := write("huge.csv", func(i int, a, b float64) string {
		return g(a) + "," + g(b) + "," + g(1e308*float64(1-2*(i%3%2))) + "," + strconv.Itoa(i%2)
	})
	expectExit2(t, "1e308", []string{"run", "--data", huge, "--quiet"}, `column "c": values from -1e+308 to 1e+308 overflow`, "rescale the column")

	fast := []string{"--sampler", "sgld", "--iters", "2000", "--burnin", "500", "--thin", "10", "--quiet"}
	constant := write("const.csv", func(i int, a, b float64) string { return g(a) + "," + g(b) + ",5," + strconv.Itoa(i%2) })
	code, _, errOut := runMain(append([]string{"run", "--data", constant}, fast...)...)
	if code != 0 || !strings.Contains(errOut, `warning: --data `+constant+`: column "c" is constant (5 in every row)`) || !strings.Contains(errOut, "drop it") {
		t.Errorf("constant column: exit %d: %s", code, errOut)
	}
	sep := write("sep.csv", func(i int, a, b float64) string {
		y := 0
		if a > 0 {
			y = 1
		}
		return g(a) + "," + g(b) + "," + g(a*b) + "," + strconv.Itoa(y)
	})
	for _, tc := range []struct {
		prior string
		warn  bool
	}{{"1", false}, {"1000", true}} {
		code, _, errOut := runMain(append([]string{"run", "--data", sep, "--prior-scale", tc.prior}, fast...)...)
		got := strings.Contains(errOut, "warning: the MAP has beta.1 = ") && strings.Contains(errOut, "separable") && strings.Contains(errOut, "--prior-scale")
		if code != 0 || got != tc.warn {
			t.Errorf("separable data, --prior-scale %s: exit %d, warning %v, want %v: %s", tc.prior, code, got, tc.warn, errOut)
		}
	}
}

// TestHostileMaxTimeLoading: --max-time covers the whole job, the loading
// of the data too (issue 24, Deliver 2; main: a data file that never ends
// — here a FIFO no one writes — held the run past its budget forever).
func TestHostileMaxTimeLoading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "data.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	// The run that held on forever is caught by the watchdog (hangGuard);
	// the message says the budget, not anything else, ended the read. No
	// wall-clock bound: a loaded machine stretches the 1 s.
	t0 := time.Now()
	p := start(t, "run", "--data", fifo, "--quiet", "--max-time", "1s", "--out", filepath.Join(t.TempDir(), "out"))
	code := p.wait(t, hangGuard)
	took := time.Since(t0)
	t.Logf("--max-time 1s while reading a FIFO: exit %d after %v: %s", code, took, strings.TrimSpace(p.stderr.String()))
	if code != 1 || !strings.Contains(p.stderr.String(), "--max-time 1s reached while the data were read") {
		t.Errorf("exit %d after %v: %s", code, took, p.stderr.String())
	}
}

var (
	pureOnce sync.Once
	purePath string
	pureErr  error
)

// pureBinary builds the langevin command without cgo, once per test
// process.
func pureBinary(t *testing.T) string {
	t.Helper()
	pureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "langevin-pure")
		if err != nil {
			pureErr = err
			return
		}
		purePath = filepath.Join(dir, "langevin")
		cmd := exec.Command("go", "build", "-o", purePath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			pureErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if pureErr != nil {
		t.Fatal(pureErr)
	}
	return purePath
}
