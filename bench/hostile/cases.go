package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The cases, in the order of the list they come from: data, predict,
// resume, signals, disks, time budgets, memory, reproducibility, formulas.
var probes = []probe{
	// Data.
	{"categorical: text column, 10⁵ levels in 10⁶ rows", false, func(e *env) result {
		return inputError(e.run("run", "--data", levels(e, 1_000_000, 100_000), "--quiet", "--out", e.path("o")), `column "lvl"`, "--id lvl")
	}},
	{"categorical: --categorical on a numeric column, 10⁵ levels in 10⁶ rows", false, func(e *env) result {
		return inputError(e.run("run", "--data", levels(e, 1_000_000, 100_000), "--categorical", "num", "--drop", "lvl", "--quiet", "--out", e.path("o")), `"num"`, "bound")
	}},
	{"categorical: --categorical on a numeric column, 2·10⁴ levels in 10⁵ rows", true, func(e *env) result {
		return inputError(e.run("run", "--data", levels(e, 100_000, 20_000), "--categorical", "num", "--drop", "lvl", "--quiet", "--out", e.path("o")), `"num"`, "bound")
	}},
	{"--missing drop with every row missing", true, func(e *env) result {
		p := write(e.path("na.csv"), "a,b,y\n1,NA,0\n2,,1\nNA,3,0\n")
		return inputError(e.run("run", "--data", p, "--missing", "drop", "--quiet", "--out", e.path("o")), "na.csv", "every row has a missing value")
	}},
	{"duplicate IDs", true, func(e *env) result {
		var sb strings.Builder
		sb.WriteString("id,a,b,y\n")
		rng := rand.New(rand.NewPCG(3, 3))
		for i := range 200 {
			fmt.Fprintf(&sb, "r%d,%.3f,%.3f,%d\n", i%150, rng.NormFloat64(), rng.NormFloat64(), rng.IntN(2))
		}
		o := e.run(append(append([]string(nil), smallRun...), "--data", write(e.path("dup.csv"), sb.String()), "--id", "id", "--out", e.path("o"))...)
		if o.code != 0 || o.trace() || !strings.Contains(o.stderr, `"r0"`) || !strings.Contains(o.stderr, "repeat an ID") {
			return bad("%v, want exit 0 and a warning naming a repeated ID: %s", o, firstLine(o.stderr))
		}
		return good("%v: %s", o, firstLine(o.stderr))
	}},
	{"a numeric 1…N column as a feature", true, func(e *env) result {
		var sb strings.Builder
		sb.WriteString("row,a,b,y\n")
		rng := rand.New(rand.NewPCG(4, 4))
		for i := range 200 {
			fmt.Fprintf(&sb, "%d,%.3f,%.3f,%d\n", i+1, rng.NormFloat64(), rng.NormFloat64(), rng.IntN(2))
		}
		o := e.run(append(append([]string(nil), smallRun...), "--data", write(e.path("rows.csv"), sb.String()), "--out", e.path("o"))...)
		if o.trace() || !strings.Contains(o.stderr, `"row"`) || !strings.Contains(o.stderr, "--id row") {
			return bad("%v, want a warning or refusal naming the column and --id: %s", o, firstLine(o.stderr))
		}
		return good("%v: %s", o, firstLine(o.stderr))
	}},
	{"--na ? as a missing marker", true, func(e *env) result {
		p := write(e.path("q.csv"), "a,b,y\n1,?,0\n2,1,1\n3,3,0\n1,2,1\n4,?,0\n2,2,1\n5,1,0\n1,1,1\n")
		o := e.run("run", "--data", p, "--na", "?", "--quiet", "--out", e.path("o"))
		return inputError(o, "q.csv", "missing value", `"b"`)
	}},
	{"gzip bomb: 10 GB of rows in 10 MB", true, func(e *env) result {
		return inputError(e.run("run", "--data", bomb(e), "--quiet", "--out", e.path("o")), "bomb.csv.gz")
	}},
	{"gzip bomb: one line of 64 MB", true, func(e *env) result {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write([]byte("a,b,y\n"))
		chunk := bytes.Repeat([]byte("1"), 1<<20)
		for range 64 {
			zw.Write(chunk)
		}
		zw.Close()
		p := e.path("line.csv.gz")
		os.WriteFile(p, b.Bytes(), 0o644)
		return inputError(e.run("run", "--data", p, "--quiet", "--out", e.path("o")), "line.csv.gz")
	}},
	{"corrupt 11 KB Parquet: 30 damaged copies", true, func(e *env) result {
		b, err := os.ReadFile(filepath.Join(e.repo, "data/testdata/parquet/australian.parquet"))
		if err != nil {
			return result{skip: true, detail: err.Error()}
		}
		rng := rand.New(rand.NewPCG(5, 5))
		worst := &outcome{}
		for k := range 30 {
			c := append([]byte(nil), b...)
			switch k % 3 {
			case 0: // bytes set at random
				for range 20 {
					c[rng.IntN(len(c))] = byte(rng.IntN(256))
				}
			case 1: // a length field made huge
				i := rng.IntN(len(c) - 8)
				copy(c[i:], []byte{0xff, 0xff, 0xff, 0x7f})
			default: // cut
				c = c[:rng.IntN(len(c))]
			}
			p := write(e.path("x.parquet"), string(c))
			o := e.run("run", "--data", p, "--format", "parquet", "--quiet", "--out", e.path("o"))
			if o.trace() || o.rss > maxRSS || (o.code != 2 && o.code != 0) {
				return bad("copy %d: %v: %s", k, o, firstLine(o.stderr))
			}
			if o.rss > worst.rss {
				worst = o
			}
		}
		return good("worst %v", worst)
	}},
	{"wide file: 2,000 rows × 20,000 columns", false, func(e *env) result {
		p := table(e.path("wide.csv"), 2000, 20000, 6)
		o := e.run("run", "--data", p, "--quiet", "--max-time", "60s", "--out", e.path("o"))
		if o.trace() || o.rss > maxRSS {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v: %s", o, firstLine(o.stderr))
	}},
	{"peak RSS: 10⁶-row CSV (10 features)", false, func(e *env) result {
		p := table(e.path("big.csv"), 1_000_000, 10, 7)
		o := e.run("run", "--data", p, "--quiet", "--max-time", "60s", "--out", e.path("o"))
		if o.code != 0 || o.trace() || o.rss > maxRSS {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v", o)
	}},
	{"peak RSS: the default job", true, func(e *env) result {
		o := e.run("run", "--quiet", "--out", e.path("o"))
		if o.code != 0 || o.rss > maxRSS {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v", o)
	}},

	// Predict.
	{"predict: unseen level", true, func(e *env) result {
		dir := catRun(e)
		p := write(e.path("new.csv"), "a,s,y\n0.5,u,1\n0.1,w,0\n")
		return inputError(e.run("predict", "--samples", dir, "--data", p), "new.csv", `"w"`)
	}},
	{"predict: a missing column", true, func(e *env) result {
		dir := catRun(e)
		p := write(e.path("new.csv"), "a,y\n0.5,1\n0.1,0\n")
		return inputError(e.run("predict", "--samples", dir, "--data", p), "new.csv", `"s"`)
	}},
	{"predict: an extra column", true, func(e *env) result {
		dir := catRun(e)
		p := write(e.path("new.csv"), "a,extra,s,y\n0.5,9,u,1\n0.1,9,v,0\n")
		o := e.run("predict", "--samples", dir, "--data", p)
		if o.code != 0 || o.trace() {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v", o)
	}},
	{"predict --out: SIGTERM while writing leaves no torn file", true, func(e *env) result {
		dir := catRun(e)
		p := many(e)
		out := e.path("pred.csv")
		for _, delay := range []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 900 * time.Millisecond} {
			os.Remove(out)
			pr := e.start(nil, "", "predict", "--samples", dir, "--data", p, "--out", out)
			time.Sleep(delay)
			pr.cmd.Process.Signal(syscall.SIGTERM)
			o := pr.wait(time.Minute)
			if b, err := os.ReadFile(out); err == nil && (len(b) == 0 || b[len(b)-1] != '\n' || strings.Count(string(b), "\n") != 400_001) {
				return bad("after %v: %v: %s holds %d lines", delay, o, out, strings.Count(string(b), "\n"))
			}
			if o.trace() {
				return bad("after %v: %v: %s", delay, o, firstLine(o.stderr))
			}
		}
		ents, _ := filepath.Glob(filepath.Join(e.tmp, ".pred.csv*"))
		if len(ents) > 0 {
			return bad("temporary files left: %v", ents)
		}
		return good("3 signals: no torn or temporary file")
	}},

	// Resume.
	{"--resume after kill -9 at 3 points: bytes of an uninterrupted run", true, func(e *env) result {
		return resumeKills(e, 3)
	}},
	{"--resume: truncated, bit-flipped and foreign checkpoint", true, func(e *env) result {
		dir, other := killedRun(e, "k1"), killedRun(e, "k2", "--seed", "2")
		cp := filepath.Join(dir, "checkpoint.bin")
		orig, err := os.ReadFile(cp)
		if err != nil {
			return bad("no checkpoint after a kill: %v", err)
		}
		foreign, _ := os.ReadFile(filepath.Join(other, "checkpoint.bin"))
		var notes []string
		for _, v := range []struct {
			name string
			b    []byte
		}{{"truncated", orig[:len(orig)/2]}, {"bit-flipped", flip(orig)}, {"foreign", foreign}} {
			d := e.path("cp-" + v.name)
			copyDir(dir, d)
			os.WriteFile(filepath.Join(d, "checkpoint.bin"), v.b, 0o644)
			o := e.run("run", "--resume", d)
			if o.trace() || o.rss > maxRSS || (o.code != 2 && o.code != 0) || (o.code == 2 && !strings.Contains(o.stderr, "checkpoint")) {
				return bad("%s: %v: %s", v.name, o, firstLine(o.stderr))
			}
			notes = append(notes, fmt.Sprintf("%s: exit %d", v.name, o.code))
		}
		return good("%s", strings.Join(notes, "; "))
	}},
	{"--resume of a finished run", true, func(e *env) result {
		dir := e.path("fin")
		if o := e.run(append(append([]string(nil), smallRun...), "--out", dir)...); o.code != 0 {
			return bad("run: %v", o)
		}
		return inputError(e.run("run", "--resume", dir), "nothing to resume")
	}},
	{"two runs on one --out", true, func(e *env) result {
		dir := e.path("two")
		a := e.start(nil, "", append(append([]string(nil), resumeJob...), "--out", dir)...)
		waitFor(func() bool { return rows(filepath.Join(dir, "chain-1.csv")) > 0 })
		o := e.run(append(append([]string(nil), smallRun...), "--out", dir)...)
		a.cmd.Process.Kill()
		a.wait(time.Minute)
		return inputError(o, dir)
	}},

	// Signals.
	{"SIGTERM while loading (a FIFO no one writes)", true, func(e *env) result {
		fifo := e.path("fifo.csv")
		syscall.Mkfifo(fifo, 0o600)
		return signalIn(e, func(p *proc) bool { time.Sleep(300 * time.Millisecond); return true }, "", "run", "--data", fifo, "--quiet", "--out", e.path("o"))
	}},
	{"SIGTERM while planning at d = 5,000", true, func(e *env) result {
		p := table(e.path("d5000.csv"), 1000, 4999, 8)
		return signalIn(e, func(p *proc) bool { return waitFor(func() bool { return p.cpuNow() > 2 }) }, "", "run", "--data", p, "--quiet", "--out", e.path("o"))
	}},
	{"SIGTERM while sampling: draws kept", true, func(e *env) result {
		dir := e.path("o")
		return signalIn(e, func(p *proc) bool {
			return waitFor(func() bool { return rows(filepath.Join(dir, "chain-1.csv")) > 10 })
		}, dir, append(append([]string(nil), resumeJob...), "--out", dir)...)
	}},
	{"SIGTERM while predicting", true, func(e *env) result {
		dir := catRun(e)
		p := many(e)
		return signalIn(e, func(p *proc) bool { time.Sleep(300 * time.Millisecond); return true }, "", "predict", "--samples", dir, "--data", p)
	}},
	{"SIGTERM while writing the report", true, func(e *env) result {
		dir := e.path("rep")
		if o := e.run(append(append([]string(nil), smallRun...), "--out", dir)...); o.code != 0 {
			return bad("run: %v", o)
		}
		r := signalIn(e, func(p *proc) bool { time.Sleep(150 * time.Millisecond); return true }, "", "report", dir)
		if b, err := os.ReadFile(filepath.Join(dir, "report.html")); err == nil && !bytes.Contains(b, []byte("</html>")) {
			return bad("report.html torn (%d bytes)", len(b))
		}
		return r
	}},

	// Disks.
	{"read-only --out", true, func(e *env) result {
		ro := e.path("ro")
		os.MkdirAll(ro, 0o755)
		if err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro).Run(); err != nil {
			ro = "/proc/langevin-probe" // a read-only file system everywhere
		} else {
			defer exec.Command("umount", ro).Run()
		}
		return inputError(e.run(append(append([]string(nil), smallRun...), "--out", filepath.Join(ro, "out"))...), "--out")
	}},
	{"full disk (a 256 KiB tmpfs, else ulimit -f)", true, func(e *env) result {
		full := e.path("full")
		os.MkdirAll(full, 0o755)
		shell := ""
		if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", full).Run(); err != nil {
			shell = "ulimit -f 256 &&"
		} else {
			defer exec.Command("umount", full).Run()
		}
		dir := filepath.Join(full, "out")
		o := e.start(nil, shell, "run", "--sampler", "sgld", "--iters", "200000", "--burnin", "500", "--thin", "1", "--quiet", "--out", dir).wait(5 * time.Minute)
		if o.code == 0 || o.trace() {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		if b, err := os.ReadFile(filepath.Join(dir, "resume.json")); err == nil && bytes.Contains(b, []byte(`"finished": true`)) {
			return bad("%v: marked finished on a full disk", o)
		}
		return good("%v: %s", o, firstLine(o.stderr))
	}},

	// --max-time in every phase (wall time: what the flag bounds).
	{"--max-time 1s while loading (a FIFO)", true, func(e *env) result {
		fifo := e.path("fifo2.csv")
		syscall.Mkfifo(fifo, 0o600)
		return maxTime(e, time.Second, "run", "--data", fifo, "--quiet", "--max-time", "1s", "--out", e.path("o"))
	}},
	{"--max-time 2s while planning at d = 5,000", true, func(e *env) result {
		p := table(e.path("d5000.csv"), 1000, 4999, 8)
		return maxTime(e, 2*time.Second, "run", "--data", p, "--quiet", "--max-time", "2s", "--out", e.path("o"))
	}},
	{"--max-time 400ms in NUTS's warm-up", true, func(e *env) result {
		return maxTime(e, 400*time.Millisecond, "run", "--quiet", "--max-time", "400ms", "--out", e.path("o"))
	}},
	{"--max-time 3s: sampling, predictions and checks (45,730 rows)", true, func(e *env) result {
		p := "/work/shared/data/CASP.csv.gz"
		if _, err := os.Stat(p); err != nil {
			p = table(e.path("casp.csv"), 45730, 9, 9)
		}
		return maxTime(e, 3*time.Second, "run", "--data", p, "--model", "linear", "--quiet", "--max-time", "3s", "--out", e.path("o"))
	}},

	// Reproducibility.
	{"same seed, GOMAXPROCS 1 and 2: the same chain files", true, func(e *env) result {
		var files [2]string
		for k, procs := range []string{"1", "2"} {
			dir := e.path("procs" + procs)
			o := e.start([]string{"GOMAXPROCS=" + procs}, "", "run", "--quiet", "--out", dir).wait(5 * time.Minute)
			if o.code != 0 {
				return bad("GOMAXPROCS=%s: %v", procs, o)
			}
			for c := 1; c <= 4; c++ {
				files[k] += draws(filepath.Join(dir, fmt.Sprintf("chain-%d.csv", c)))
			}
		}
		if files[0] != files[1] || files[0] == "" {
			return bad("the draws differ")
		}
		return good("%d bytes of draws equal", len(files[0]))
	}},

	// Formulas.
	{"formula: unknown column", true, func(e *env) result {
		return inputError(e.run("run", "--data", formulaData(e), "--formula", "y ~ x + nosuch", "--quiet", "--out", e.path("o")), "nosuch")
	}},
	{"formula: 10⁴ terms", true, func(e *env) result {
		terms := make([]string, 10_000)
		for i := range terms {
			terms[i] = fmt.Sprintf("I(x^%d)", i%7+1)
		}
		o := e.run("run", "--data", formulaData(e), "--formula", "y ~ "+strings.Join(terms, " + "), "--quiet", "--max-time", "30s", "--out", e.path("o"))
		if o.trace() || o.rss > maxRSS || (o.code != 0 && o.code != 2 && o.code != 1) {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v: %s", o, firstLine(o.stderr))
	}},
	{"formula: nesting 5·10⁴ deep", true, func(e *env) result {
		f := "y ~ " + strings.Repeat("(", 50_000) + "x" + strings.Repeat(")", 50_000)
		return inputError(e.run("run", "--data", formulaData(e), "--formula", f, "--quiet", "--out", e.path("o")), "--formula")
	}},
	{"formula: unicode column names", true, func(e *env) result {
		var sb strings.Builder
		sb.WriteString("ŷ,größe,温度\n")
		rng := rand.New(rand.NewPCG(9, 9))
		for range 80 {
			fmt.Fprintf(&sb, "%d,%.3f,%.3f\n", rng.IntN(2), rng.NormFloat64(), rng.NormFloat64())
		}
		p := write(e.path("uni.csv"), sb.String())
		o := e.run("run", "--data", p, "--formula", "ŷ ~ größe + 温度", "--family", "bernoulli", "--quiet", "--out", e.path("o"))
		if o.code != 0 || o.trace() {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		return good("%v", o)
	}},
	{"formula: HTML in a level name, into the report", true, func(e *env) result {
		var sb strings.Builder
		sb.WriteString("y,x,g\n")
		rng := rand.New(rand.NewPCG(7, 7))
		for i := range 120 {
			g := []string{"a", "<script>alert(1)</script>", "b&c"}[i%3]
			fmt.Fprintf(&sb, "%.3f,%.3f,\"%s\"\n", rng.NormFloat64(), rng.NormFloat64(), g)
		}
		dir := e.path("html")
		o := e.run("run", "--data", write(e.path("html.csv"), sb.String()), "--formula", "y ~ x + (1 | g)", "--report", "--quiet", "--out", dir)
		if o.code != 0 || o.trace() {
			return bad("%v: %s", o, firstLine(o.stderr))
		}
		b, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			return bad("no report: %v", err)
		}
		if bytes.Contains(b, []byte("<script>alert(1)")) {
			return bad("the report holds the level's <script> unescaped")
		}
		return good("%v; escaped in report.html", o)
	}},
}

// resumeJob is a run of a few seconds with frequent checkpoints.
var resumeJob = []string{"run", "--sampler", "sgld", "--cv", "--iters", "30000", "--burnin", "2000", "--thin", "10", "--checkpoint", "20ms", "--quiet"}

// resumeKills kills resumeJob at k moments, resumes each and compares the
// chain files with an uninterrupted run's.
func resumeKills(e *env, k int) result {
	ref := e.path("ref")
	o := e.run(append(append([]string(nil), resumeJob...), "--out", ref)...)
	if o.code != 0 {
		return bad("uninterrupted run: %v", o)
	}
	var notes []string
	for i := range k {
		dir := e.path(fmt.Sprintf("kill%d", i))
		p := e.start(nil, "", append(append([]string(nil), resumeJob...), "--out", dir)...)
		waitFor(func() bool {
			return rows(filepath.Join(dir, "chain-1.csv")) > 0 || rows(filepath.Join(dir, "warmup-1.csv")) > 0
		})
		time.Sleep(time.Duration(float64(i) / float64(k) * o.wall.Seconds() * 0.6 * float64(time.Second)))
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(time.Minute)
		at := rows(filepath.Join(dir, "chain-1.csv"))
		r := e.run("run", "--resume", dir)
		if r.code != 0 {
			if strings.Contains(r.stderr, "nothing to resume") {
				notes = append(notes, "finished before the kill")
				continue
			}
			return bad("kill %d: resume: %v: %s", i+1, r, firstLine(r.stderr))
		}
		for c := 1; c <= 4; c++ {
			name := fmt.Sprintf("chain-%d.csv", c)
			if draws(filepath.Join(ref, name)) != draws(filepath.Join(dir, name)) {
				return bad("kill %d at %d rows: %s differs from the uninterrupted run's", i+1, at, name)
			}
		}
		notes = append(notes, fmt.Sprintf("killed at %d rows", at))
	}
	return good("equal: %s", strings.Join(notes, ", "))
}

// killedRun returns the directory of resumeJob killed mid-run.
func killedRun(e *env, name string, extra ...string) string {
	dir := e.path(name)
	for attempt := 0; attempt < 3; attempt++ {
		os.RemoveAll(dir)
		p := e.start(nil, "", append(append(append([]string(nil), resumeJob...), extra...), "--out", dir)...)
		waitFor(func() bool { _, err := os.Stat(filepath.Join(dir, "checkpoint.bin")); return err == nil })
		time.Sleep(50 * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(time.Minute)
		if _, err := os.Stat(filepath.Join(dir, "checkpoint.bin")); err == nil {
			break
		}
	}
	return dir
}

// signalIn starts the command, waits for ready, sends SIGTERM and checks
// the exit (143, no trace) within maxSigCPU of CPU after the signal and,
// with dir, that the chain files kept their draws and a status line.
func signalIn(e *env, ready func(p *proc) bool, dir string, args ...string) result {
	p := e.start(nil, "", args...)
	if !ready(p) {
		p.cmd.Process.Kill()
		o := p.wait(time.Minute)
		return bad("never reached the phase: %v: %s", o, firstLine(o.stderr))
	}
	before := p.cpuNow()
	p.cmd.Process.Signal(syscall.SIGTERM)
	o := p.wait(time.Minute)
	after := o.cpu - before
	if o.code == 0 {
		return good("finished before the signal: %v", o)
	}
	if (o.code != 143 && (dir != "" || o.code != -int(syscall.SIGTERM))) || o.trace() || after > maxSigCPU {
		return bad("%v (%.2f s CPU after the signal), want exit 143 within %.0f s: %s", o, after, maxSigCPU, firstLine(o.stderr))
	}
	if dir != "" {
		b, _ := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
		if rows(filepath.Join(dir, "chain-1.csv")) == 0 || !bytes.Contains(b, []byte("# Run stopped")) {
			return bad("%v: chain-1.csv lost its draws or its status line", o)
		}
	}
	return good("%v, %.2f s CPU after the signal", o, after)
}

// maxTime checks that the job ended within the budget t and two seconds
// (the exit and the writing), wall time, with no trace.
func maxTime(e *env, t time.Duration, args ...string) result {
	o := e.run(args...)
	if o.trace() || o.wall > t+2*time.Second {
		return bad("%v after %.1f s (budget %v): %s", o, o.wall.Seconds(), t, firstLine(o.stderr))
	}
	return good("%v after %.1f s: %s", o, o.wall.Seconds(), firstLine(o.stderr))
}

// levels writes a file of n rows with a text column lvl and a numeric
// column num of k levels each (once per probe run).
func levels(e *env, n, k int) string {
	p := filepath.Join(e.tmp, fmt.Sprintf("levels-%d-%d.csv", n, k))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	rng := rand.New(rand.NewPCG(1, 2))
	f, err := os.Create(p)
	if err != nil {
		panic(err)
	}
	b := bufio.NewWriter(f)
	b.WriteString("x,lvl,num,y\n")
	for range n {
		l := rng.IntN(k)
		fmt.Fprintf(b, "%.3f,L%d,%d,%d\n", rng.NormFloat64(), l, l, rng.IntN(2))
	}
	b.Flush()
	f.Close()
	return p
}

// bomb writes 10 GB of rows as 1000 gzip members of 10 MB each.
func bomb(e *env) string {
	var one bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	row := bytes.Repeat([]byte("0.5,0.25,1\n"), 1<<14)
	for range (10 << 20) / len(row) {
		zw.Write(row)
	}
	zw.Close()
	p := e.path("bomb.csv.gz")
	f, err := os.Create(p)
	if err != nil {
		panic(err)
	}
	zh, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zh.Write([]byte("a,b,y\n"))
	zh.Close()
	for range 1000 {
		f.Write(one.Bytes())
	}
	f.Close()
	return p
}

// catRun returns a finished small run on a file with a text column s.
func catRun(e *env) string {
	dir := filepath.Join(e.tmp, "catrun")
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); err == nil {
		return dir
	}
	var sb strings.Builder
	sb.WriteString("a,s,y\n")
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range 300 {
		fmt.Fprintf(&sb, "%.3f,%s,%d\n", rng.NormFloat64(), []string{"u", "v"}[i%2], rng.IntN(2))
	}
	p := write(e.path("cat.csv"), sb.String())
	e.run(append(append([]string(nil), smallRun...), "--data", p, "--out", dir)...)
	return dir
}

// formulaData writes a small Gaussian regression file y, x, g.
func formulaData(e *env) string {
	p := filepath.Join(e.tmp, "formula.csv")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	var sb strings.Builder
	sb.WriteString("y,x,g\n")
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 100 {
		x := rng.NormFloat64()
		fmt.Fprintf(&sb, "%.3f,%.3f,g%d\n", 1+x+rng.NormFloat64(), x, i%5)
	}
	return write(p, sb.String())
}

// rows counts the draw lines of a chain file (0 when absent).
func rows(path string) int {
	return strings.Count(draws(path), "\n")
}

// draws returns the lines of a CSV file that are neither comments nor the
// header.
func draws(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var sb strings.Builder
	header := true
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") || !strings.HasSuffix(l, "\n") {
			continue
		}
		if header {
			header = false
			continue
		}
		sb.WriteString(l)
	}
	return sb.String()
}

func waitFor(cond func() bool) bool {
	for t0 := time.Now(); time.Since(t0) < 2*time.Minute; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

func flip(b []byte) []byte {
	c := append([]byte(nil), b...)
	for i := 16; i < len(c); i += len(c) / 7 {
		c[i] ^= 0x10
	}
	return c
}

func copyDir(from, to string) {
	os.MkdirAll(to, 0o755)
	ents, _ := os.ReadDir(from)
	for _, en := range ents {
		b, _ := os.ReadFile(filepath.Join(from, en.Name()))
		os.WriteFile(filepath.Join(to, en.Name()), b, 0o644)
	}
}

// many writes 400,000 rows to predict with catRun's model.
func many(e *env) string {
	p := filepath.Join(e.tmp, "many.csv")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	f, err := os.Create(p)
	if err != nil {
		panic(err)
	}
	b := bufio.NewWriter(f)
	b.WriteString("a,s,y\n")
	for i := range 400_000 {
		fmt.Fprintf(b, "%d.5,%s,%d\n", i%7, []string{"u", "v"}[i%2], i%2)
	}
	b.Flush()
	f.Close()
	return p
}
