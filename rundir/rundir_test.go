package rundir_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/internal/testmodel"
	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
	"github.com/langevin-go/langevin/stancsv"
)

// run samples into a new Writer for dir and returns the trace, the writer
// and Run's error; the writer is not closed.
func run(t *testing.T, ctx context.Context, dir string, opts langevin.Options, ro rundir.Options) (*langevin.Trace, *rundir.Writer, error) {
	t.Helper()
	w, err := rundir.Create(dir, ro)
	if err != nil {
		t.Fatal(err)
	}
	m := testmodel.NewMean(50, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3)}
	sinks := make([]*rundir.ChainWriter, max(opts.Chains, 4))
	names := langevin.ParamNames(m)
	for k := range sinks {
		cfg := stancsv.Config{Model: "mean", Algorithm: "sgld", NumSamples: opts.Iters - opts.BurnIn, NumWarmup: opts.BurnIn, Thin: opts.Thin, Seed: opts.Seed,
			Extra: [][2]string{{"data", "z.csv"}}}
		if k >= opts.Chains && opts.Chains > 0 {
			break
		}
		sinks[k], err = w.Chain(k+1, cfg, s.StatNames(), names)
		if err != nil {
			t.Fatal(err)
		}
	}
	opts.Sink = func(c int) langevin.DrawSink { return sinks[c] }
	tr, err := langevin.Run(ctx, m, s, opts)
	return tr, w, err
}

func sameTrace(t *testing.T, got, want *langevin.Trace) {
	t.Helper()
	if len(got.Draws) != len(want.Draws) {
		t.Fatalf("read %d chains, want %d", len(got.Draws), len(want.Draws))
	}
	if !slices.Equal(got.Names, want.Names) || !slices.Equal(got.StatNames, want.StatNames) {
		t.Fatalf("read columns %v %v, want %v %v", got.StatNames, got.Names, want.StatNames, want.Names)
	}
	for c := range want.Draws {
		if len(got.Draws[c]) != len(want.Draws[c]) || len(got.Warmup[c].Theta) != len(want.Warmup[c].Theta) {
			t.Fatalf("chain %d: read %d draws and %d warm-up draws, want %d and %d", c+1,
				len(got.Draws[c]), len(got.Warmup[c].Theta), len(want.Draws[c]), len(want.Warmup[c].Theta))
		}
		for i := range want.Draws[c] {
			if !sameBits(got.Draws[c][i], want.Draws[c][i]) || !sameBits(got.Stats[c][i], want.Stats[c][i]) {
				t.Fatalf("chain %d draw %d: read %v %v, want %v %v", c+1, i, got.Draws[c][i], got.Stats[c][i], want.Draws[c][i], want.Stats[c][i])
			}
		}
		for i := range want.Warmup[c].Theta {
			if !sameBits(got.Warmup[c].Theta[i], want.Warmup[c].Theta[i]) || !sameBits(got.Warmup[c].Stats[i], want.Warmup[c].Stats[i]) {
				t.Fatalf("chain %d warm-up draw %d differs", c+1, i)
			}
		}
		if len(want.Iters[c]) > 0 && !slices.Equal(got.Iters[c], want.Iters[c]) {
			t.Errorf("chain %d: iterations %v, want %v", c+1, got.Iters[c], want.Iters[c])
		}
	}
}

// TestRoundTrip: a finished run reads back bit for bit, with its settings,
// summary, specification and scaler.
func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tr, w, err := run(t, context.Background(), dir, langevin.Options{Chains: 3, Iters: 300, BurnIn: 100, Thin: 2, Seed: 5, SaveWarmup: true}, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(diag.Summarize(tr.Names, tr.Params())); err != nil {
		t.Fatal(err)
	}
	spec := json.RawMessage(`{"model":"mean","features":["z"]}`)
	if err := w.WriteSpec(spec); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteScaler(&data.Scaler{Mean: []float64{1, 2}, Scale: []float64{3, 0.1}, TargetMean: 7, TargetScale: 2.5}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	r, err := rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, r.Trace, tr)
	if !r.Finished() || r.Status() != "finished" {
		t.Errorf("status %q, want finished", r.Status())
	}
	if r.Trace.BurnIn != 100 || r.Trace.Thin != 2 {
		t.Errorf("burn-in %d, thin %d; want 100, 2", r.Trace.BurnIn, r.Trace.Thin)
	}
	var spec2 map[string]any
	if err := json.Unmarshal(r.Spec, &spec2); err != nil || spec2["model"] != "mean" {
		t.Errorf("spec %s (%v)", r.Spec, err)
	}
	if r.Scaler == nil || !slices.Equal(r.Scaler.Scale, []float64{3, 0.1}) || r.Scaler.TargetMean != 7 || r.Scaler.TargetScale != 2.5 {
		t.Errorf("scaler %+v", r.Scaler)
	}
	want := [][2]string{{"model", "mean"}, {"num_samples", "200"}, {"num_warmup", "100"}, {"thin", "2"}, {"algorithm", "sgld"}, {"seed", "5"}, {"data", "z.csv"}}
	if !slices.Equal(r.Settings, want) {
		t.Errorf("settings %v, want %v", r.Settings, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.SummaryFile))
	if err != nil || !strings.HasPrefix(string(b), "variable,mean") {
		t.Errorf("summary.csv: %q, %v", b, err)
	}
	// The chain files are what Stan tools read: CmdStan layout, a timing
	// block, and the status line last.
	b, _ = os.ReadFile(filepath.Join(dir, "chain-2.csv"))
	if !strings.HasSuffix(string(b), "seconds (Total)\n#\n# Run finished\n") || !strings.Contains(string(b), "# id = 2\n") {
		t.Errorf("chain-2.csv ends %q", b[max(0, len(b)-200):])
	}
	f, err := stancsv.ReadFile(filepath.Join(dir, "chain-2.csv"))
	if err != nil || len(f.Draws) != 100 {
		t.Errorf("stancsv reads chain-2.csv: %v", err)
	}
	// No lock is left held: the directory can be written again.
	w2, err := rundir.Create(dir, rundir.Options{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close(nil)
}

// TestStreaming: draws reach the files while the run goes on, within the
// flush interval, in whole lines; Read of the unfinished directory gives
// them and says so.
func TestStreaming(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := rundir.Create(dir, rundir.Options{FlushEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m := testmodel.NewMean(50, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3)}
	cw, err := w.Chain(1, stancsv.Config{Model: "mean", NumSamples: 1 << 30}, s.StatNames(), langevin.ParamNames(m))
	if err != nil {
		t.Fatal(err)
	}
	drawn := make(chan int, 1)
	n := 0
	type result struct {
		tr  *langevin.Trace
		err error
	}
	res := make(chan result)
	go func() {
		tr, err := langevin.Run(ctx, m, s, langevin.Options{Chains: 1, Iters: 1 << 30, Seed: 1, ProgressEvery: 1000,
			Progress: func(_, done int) {
				n = done
				if done == 5000 {
					drawn <- done
				}
			},
			Sink: func(int) langevin.DrawSink { return cw }})
		res <- result{tr, err}
	}()
	<-drawn
	// Within a few flush intervals the first 5000 draws are on disk, with
	// no call to Flush or Close. The 2 minutes are a watchdog, not a speed
	// claim: a loaded machine stretches the 20 ms intervals into seconds.
	var r *rundir.Run
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		r, err = rundir.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if k := len(r.Trace.Draws[0]); k >= 5000 {
			break
		} else if time.Since(start) > 2*time.Minute {
			t.Fatalf("2 minutes after 5000 draws, chain-1.csv holds %d", k)
		}
	}
	if r.Finished() || !strings.Contains(r.Status(), "chain 1 unfinished") || r.Chains[0].Torn {
		t.Errorf("status %q (torn %v), want chain 1 unfinished", r.Status(), r.Chains[0].Torn)
	}
	cancel()
	out := <-res
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("Run: %v", out.err)
	}
	if err := w.Close(errors.New("interrupted by SIGTERM")); err != nil {
		t.Fatal(err)
	}
	r, err = rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, r.Trace, out.tr)
	if got := r.Status(); got != "unfinished: chain 1 stopped: interrupted by SIGTERM" {
		t.Errorf("status %q", got)
	}
	_ = n
}

// TestCreateChecks: Create refuses, at once, a file, a path under a file,
// a used directory (unless overwriting, which removes only run files) and a
// directory another writer holds.
func TestCreateChecks(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		start := time.Now()
		if w, err := rundir.Create(dir, rundir.Options{}); err == nil {
			w.Close(nil)
			t.Errorf("Create(%s) succeeded", dir)
		} else if !strings.Contains(err.Error(), dir) || time.Since(start) > time.Minute { // a watchdog: the refusal does not wait on the lock (LOCK_NB)
			t.Errorf("Create(%s): %v (after %v)", dir, err, time.Since(start))
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(tmp, "ro")
		os.Mkdir(ro, 0o555)
		if w, err := rundir.Create(ro, rundir.Options{}); err == nil {
			w.Close(nil)
			t.Errorf("Create of a read-only directory succeeded")
		}
	}

	dir := filepath.Join(tmp, "run")
	_, w, err := run(t, context.Background(), dir, langevin.Options{Chains: 4, Iters: 50, Seed: 1}, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A second writer while the first holds the directory.
	if w2, err := rundir.Create(dir, rundir.Options{Overwrite: true}); !errors.Is(err, rundir.ErrLocked) {
		if err == nil {
			w2.Close(nil)
		}
		t.Errorf("second Create while locked: %v, want ErrLocked", err)
	}
	w.WriteSummary(diag.Table{})
	w.Close(nil)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)

	if _, err := rundir.Create(dir, rundir.Options{}); !errors.Is(err, rundir.ErrExists) ||
		!strings.Contains(err.Error(), "chain-1.csv") {
		t.Errorf("Create of a used directory: %v, want ErrExists naming chain-1.csv", err)
	}
	// Overwrite with 2 chains: none of the old run's files remain.
	_, w, err = run(t, context.Background(), dir, langevin.Options{Chains: 2, Iters: 50, Seed: 2}, rundir.Options{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Close(nil)
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{".lock", "chain-1.csv", "chain-2.csv", "notes.txt"}; !slices.Equal(names, want) {
		t.Errorf("after overwrite the directory holds %v, want %v", names, want)
	}
	r, err := rundir.Read(dir)
	if err != nil || len(r.Trace.Draws) != 2 || r.Config["seed"] != "2" {
		t.Errorf("Read after overwrite: %v", err)
	}
}

// TestReadRefusesMixedRuns: chain files of two runs, or a gap in the chain
// numbers, are an error naming the file.
func TestReadRefusesMixedRuns(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for i, dir := range []string{a, b} {
		_, w, err := run(t, context.Background(), dir, langevin.Options{Chains: 2, Iters: 20, Seed: uint64(i)}, rundir.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close(nil)
	}
	os.Rename(filepath.Join(b, "chain-2.csv"), filepath.Join(a, "chain-2.csv"))
	if _, err := rundir.Read(a); err == nil || !strings.Contains(err.Error(), "chain-2.csv") || !strings.Contains(err.Error(), "another run") {
		t.Errorf("Read of mixed chains: %v", err)
	}
	os.Rename(filepath.Join(b, "chain-1.csv"), filepath.Join(b, "chain-3.csv"))
	if _, err := rundir.Read(b); err == nil || !strings.Contains(err.Error(), "chain-1.csv is missing") {
		t.Errorf("Read with a gap: %v", err)
	}
	if _, err := rundir.Read(tmp); err == nil || !strings.Contains(err.Error(), "no chain-1.csv") {
		t.Errorf("Read of a directory without chains: %v", err)
	}
}

// TestReadTornAndGzip: a last line cut short is dropped and reported; gzip
// files read the same; a chain with only its header has no draws.
func TestReadTornAndGzip(t *testing.T) {
	dir := t.TempDir()
	tr, w, err := run(t, context.Background(), dir, langevin.Options{Chains: 2, Iters: 40, Seed: 1}, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close(nil)
	p := filepath.Join(dir, "chain-1.csv")
	b, _ := os.ReadFile(p)
	// Cut inside the last draw, as a crash in the middle of a write could.
	body := b[:bytes.Index(b, []byte("#\n#  Elapsed"))]
	cut := body[:len(body)-5]
	os.WriteFile(p, cut, 0o644)
	r, err := rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Chains[0].Torn || len(r.Trace.Draws[0]) != 39 || r.Chains[0].Status != "unfinished" {
		t.Errorf("torn file: torn %v, %d draws, status %q; want true, 39, unfinished", r.Chains[0].Torn, len(r.Trace.Draws[0]), r.Chains[0].Status)
	}
	// A padding comment cut at a page boundary (the kill in
	// TestKillNeverTearsRows): every draw is whole, nothing is torn.
	os.WriteFile(p, append(body[:len(body):len(body)], "#      "...), 0o644)
	r, err = rundir.Read(dir)
	if err != nil || r.Chains[0].Torn || len(r.Trace.Draws[0]) != 40 || r.Chains[0].Status != "unfinished" {
		t.Errorf("cut padding: torn %v, %d draws, status %q, %v; want false, 40, unfinished", r.Chains[0].Torn, len(r.Trace.Draws[0]), r.Chains[0].Status, err)
	}
	// gzip: chain-1.csv.gz in place of chain-1.csv.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	os.Remove(p)
	os.WriteFile(p+".gz", gz.Bytes(), 0o644)
	r, err = rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, r.Trace, tr)
	// Only the comments and header so far.
	os.WriteFile(filepath.Join(dir, "chain-2.csv"), b[:bytes.Index(b, []byte("lp__"))+10], 0o644)
	r, err = rundir.Read(dir)
	if err != nil || len(r.Trace.Draws[1]) != 0 || r.Chains[1].Status != "unfinished" {
		t.Errorf("header-only chain: %v", err)
	}
}

// TestWriteFileAtomic: a failing write leaves the old file as it was and no
// temporary file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.csv")
	if err := rundir.WriteFileAtomic(p, func(io.Writer) error { return nil }); err == nil {
		_ = err
	}
	os.WriteFile(p, []byte("old\n"), 0o644)
	err := rundir.WriteFileAtomic(p, func(w io.Writer) error {
		w.Write([]byte("new, half"))
		return errors.New("no space left on device")
	})
	if err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("err = %v", err)
	}
	b, _ := os.ReadFile(p)
	ents, _ := os.ReadDir(dir)
	if string(b) != "old\n" || len(ents) != 1 {
		t.Errorf("after a failed write: %q, %d files", b, len(ents))
	}
}

// TestKillNeverTearsRows: a writer process killed with SIGKILL at random
// moments, 20 times, leaves files that read back with whole rows only,
// marked unfinished.
func TestKillNeverTearsRows(t *testing.T) {
	if os.Getenv("RUNDIR_HELPER") != "" {
		t.Skip("helper")
	}
	n := 20
	if testing.Short() {
		n = 5
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
		cmd.Env = append(os.Environ(), "RUNDIR_HELPER="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.IntN(250)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		r, err := rundir.Read(dir)
		if err != nil {
			if strings.Contains(err.Error(), "no chain-1.csv") || strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "no header line yet") {
				continue // killed before the first file, or before its header (a loaded machine)
			}
			t.Fatalf("kill %d: %v\n%s", i, err, stderr.String())
		}
		if r.Finished() {
			t.Errorf("kill %d: status %q", i, r.Status())
		}
		for c, ch := range r.Chains {
			if ch.Torn {
				st, _ := os.Stat(ch.Path)
				t.Errorf("kill %d: chain %d ends in a torn row (file size %d)", i, c+1, st.Size())
			}
		}
		t.Logf("kill %d: %d draws; %s", i, r.Trace.NumDraws(), r.Status())
	}
}

// TestHelperWriter is the process TestKillNeverTearsRows kills.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("RUNDIR_HELPER")
	if dir == "" {
		t.Skip("run by TestKillNeverTearsRows")
	}
	w, err := rundir.Create(dir, rundir.Options{FlushEvery: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m := testmodel.NewMean(50, 1)
	s := sampler.SGLD{Step: schedule.Constant(1e-3)}
	sinks := make([]*rundir.ChainWriter, 2)
	for k := range sinks {
		sinks[k], _ = w.Chain(k+1, stancsv.Config{Model: "mean", NumSamples: 1 << 30}, s.StatNames(), langevin.ParamNames(m))
	}
	langevin.Run(context.Background(), m, s, langevin.Options{Chains: 2, Iters: 1 << 30, Seed: 1,
		Sink: func(c int) langevin.DrawSink { return sinks[c] }})
}

// wideDim is the number of values in the rows of TestHelperWideWriter:
// about 8 KiB a row, more than two pages.
const wideDim = 400

// wideRows returns the rows chain k of TestHelperWideWriter writes, one
// by one into row.
func wideRows(k int) func(row []float64) {
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	return func(row []float64) {
		for j := range row {
			row[j] = rng.NormFloat64()
		}
	}
}

// TestKillNeverTearsWideRows: a writer process of rows longer than a page
// (a model of 400 parameters), killed with SIGKILL at random moments while
// it writes, 20 times, leaves chain files whose lines other than comments
// are whole rows with the header's number of fields, and that read back
// with every row as written, none missing before a later one, and no torn
// row.
func TestKillNeverTearsWideRows(t *testing.T) {
	if os.Getenv("RUNDIR_HELPER_WIDE") != "" {
		t.Skip("helper")
	}
	n := 20
	if testing.Short() {
		n = 5
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var torn, cutLong, lostLong, draws int
	for i := range n {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWideWriter$")
		cmd.Env = append(os.Environ(), "RUNDIR_HELPER_WIDE="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it while it writes: up to 30 ms after both chains have made
		// 50 draws (a few megabytes).
		ready, _ := bufio.NewReader(out).ReadString('\n')
		if ready != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: helper said %q\n%s", i, ready, stderr.String())
		}
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		r, err := rundir.Read(dir)
		if err != nil {
			t.Fatalf("kill %d: %v\n%s", i, err, stderr.String())
		}
		if r.Finished() || len(r.Chains) != 2 || r.Trace.Dim != wideDim {
			t.Fatalf("kill %d: status %q, %d chains of %d values", i, r.Status(), len(r.Chains), r.Trace.Dim)
		}
		for c, ch := range r.Chains {
			b, err := os.ReadFile(ch.Path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(b), "\n")
			for j, line := range lines {
				if l := strings.TrimSpace(line); l == "" || l[0] == '#' || !strings.HasSuffix(line, "\n") {
					continue
				}
				if k := strings.Count(line, ",") + 1; k != 1+wideDim {
					t.Errorf("kill %d: chain %d line %d has %d fields, the header %d", i, c+1, j+1, k, 1+wideDim)
				}
			}
			tail := lines[len(lines)-1]
			last := strings.TrimSuffix(lines[max(0, len(lines)-2)], "\n")
			switch {
			case ch.Torn:
				torn++
				t.Errorf("kill %d: chain %d ends in a torn row of %d bytes (file size %d)", i, c+1, len(tail), len(b))
			case len(tail) > 1 && tail[0] == '#' && tail[1] != ' ':
				cutLong++ // cut inside a long row
			case tail == "" && len(last) > 4096 && last[0] == '#':
				lostLong++ // killed before its first byte was put back
			}
			next := wideRows(c + 1)
			want := make([]float64, wideDim)
			for d, got := range r.Trace.Draws[c] {
				next(want)
				if !sameBits(got, want) || r.Trace.Stats[c][d][0] != float64(d+1) {
					t.Fatalf("kill %d: chain %d draw %d is not row %d as written (lp__ %g)", i, c+1, d+1, d+1, r.Trace.Stats[c][d][0])
				}
			}
			draws += len(r.Trace.Draws[c])
		}
		os.RemoveAll(dir)
	}
	t.Logf("%d kills: %d draws read; %d chains cut inside a long row, %d ending in a long row before its first byte was put back, %d torn",
		n, draws, cutLong, lostLong, torn)
}

// TestHelperWideWriter is the process TestKillNeverTearsWideRows kills: 2
// chains of wideRows, written by Draw, at most 3000 rows (24 MiB) each.
func TestHelperWideWriter(t *testing.T) {
	dir := os.Getenv("RUNDIR_HELPER_WIDE")
	if dir == "" {
		t.Skip("run by TestKillNeverTearsWideRows")
	}
	w, err := rundir.Create(dir, rundir.Options{FlushEvery: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, wideDim)
	for j := range names {
		names[j] = "theta." + strconv.Itoa(j+1)
	}
	sinks := make([]*rundir.ChainWriter, 2)
	for k := range sinks {
		if sinks[k], err = w.Chain(k+1, stancsv.Config{Model: "wide", NumSamples: 1 << 30}, []string{"lp__"}, names); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan bool)
	for k, s := range sinks {
		go func() {
			next := wideRows(k + 1)
			row := make([]float64, wideDim)
			for i := range 3000 {
				next(row)
				if err := s.Draw(false, i+1, row, []float64{float64(i + 1)}); err != nil {
					panic(err)
				}
				if i == 50 {
					started <- true
				}
			}
		}()
	}
	<-started
	<-started
	fmt.Println("ready")
	select {} // until killed
}

// TestNoRowStraddlesAPage: every row of a chain file shorter than a page
// lies within one page of the file.
func TestNoRowStraddlesAPage(t *testing.T) {
	dir := t.TempDir()
	_, w, err := run(t, context.Background(), dir, langevin.Options{Chains: 1, Iters: 5000, Seed: 1}, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close(nil)
	b, _ := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
	pads, off := 0, 0
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.TrimSpace(line) == "#" {
			pads++
		} else if !strings.HasPrefix(line, "#") && off/4096 != (off+len(line)-1)/4096 {
			t.Fatalf("row at offset %d (%d bytes) straddles a page boundary", off, len(line))
		}
		off += len(line)
	}
	if pads < len(b)/4096*3/4 {
		t.Errorf("%d padding lines in %d bytes", pads, len(b))
	}
	f, err := stancsv.ReadFile(filepath.Join(dir, "chain-1.csv"))
	if err != nil || len(f.Draws) != 5000 || len(f.Comments) > 40 {
		t.Errorf("stancsv reads %d draws, %d comments: %v", len(f.Draws), len(f.Comments), err)
	}
}

// sameBits reports whether a and b hold the same float64 bits (NaN equal to
// NaN).
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestKeepRewritesTheChain: a chain whose run thinned its draws after
// writing them (Keep) ends with exactly the kept draws, bit for bit, its
// thinning in the header and its status line, and no temporary file.
func TestKeepRewritesTheChain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w, err := rundir.Create(dir, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cw, err := w.Chain(1, stancsv.Config{Model: "m", NumSamples: 40, Thin: 1}, []string{"lp__"}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var rows [][]float64
	for it := 1; it <= 40; it++ {
		row := []float64{rng.NormFloat64(), rng.NormFloat64() * 1e-7}
		rows = append(rows, row)
		if err := cw.Draw(false, it, row, []float64{float64(it)}); err != nil {
			t.Fatal(err)
		}
	}
	var keep []int
	for it := 4; it <= 40; it += 4 {
		keep = append(keep, it)
	}
	cw.Keep(keep, 4)
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	r, err := rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Trace.Draws[0]
	if len(got) != len(keep) || !r.Finished() {
		t.Fatalf("%d draws (want %d), status %q", len(got), len(keep), r.Status())
	}
	for i, it := range keep {
		if !sameBits(got[i], rows[it-1]) || r.Trace.Stats[0][i][0] != float64(it) {
			t.Errorf("draw %d: %v (lp__ %v), want iteration %d's %v", i, got[i], r.Trace.Stats[0][i][0], it, rows[it-1])
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "chain-1.csv"))
	if !strings.Contains(string(b), "thin = 4\n") || !strings.Contains(string(b), "Elapsed Time") {
		t.Errorf("rewritten file lacks thin = 4 or its timing block:\n%s", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
