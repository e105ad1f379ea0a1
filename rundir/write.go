package rundir

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/stancsv"
)

// The names of the files of a run directory.
const (
	SummaryFile = "summary.csv"
	SpecFile    = "model.json"
	ScalerFile  = "scaler.json"
	ReportFile  = "report.html"
	LockFile    = ".lock"
	// SwitchFile marks a directory whose chain files are being replaced by
	// their copies with the kept draws (".tmp-chain-K.csv"): it lists the
	// chain files, one a line. See Writer.Close and Read.
	SwitchFile = ".switch"
)

// ChainFile returns the name of chain k's file (k 1-based), "chain-k.csv".
func ChainFile(k int) string { return "chain-" + strconv.Itoa(k) + ".csv" }

// WarmupFile returns the name of chain k's warm-up file, "warmup-k.csv".
func WarmupFile(k int) string { return "warmup-" + strconv.Itoa(k) + ".csv" }

// runFile matches the names of the files a run leaves in its directory,
// including the temporary files of an interrupted atomic write.
var runFile = regexp.MustCompile(`^((chain|warmup)-[0-9]+\.csv|summary\.csv|model\.json|scaler\.json|report\.html)(\.gz)?$|^\.tmp-|^\.switch$|^checkpoint\.bin$|^resume\.json$`)

// IsRunFile reports whether name (a base name) is one of the files that a
// run writes, and that Options.Overwrite removes.
func IsRunFile(name string) bool { return runFile.MatchString(name) }

var (
	// ErrExists is wrapped by Create's error for a directory that holds
	// the files of another run.
	ErrExists = errors.New("holds the files of another run")
	// ErrNotRun is wrapped by Create's error for a non-empty directory
	// that holds none of a run's files: Create never writes into it, even
	// with Options.Overwrite.
	ErrNotRun = errors.New("is not empty and not a langevin run's directory")
	// ErrLocked is wrapped by Create's error for a directory that another
	// process is writing.
	ErrLocked = errors.New("is being written by another process")
)

// Options controls Create.
type Options struct {
	// Overwrite lets Create use a directory that holds the files of
	// another run: it removes them (the files IsRunFile names; other files
	// are left alone) before returning.
	Overwrite bool

	// FlushEvery bounds how long a draw waits in memory before it is
	// written to its file. Zero means one second.
	FlushEvery time.Duration

	// RunID, if not empty, is the run's identifier recorded in the chain
	// files instead of a random one: the chains of one analysis run in
	// several processes (langevin run --chain-id) share it, derived from
	// their common settings.
	RunID string
}

// flushBytes is the amount of pending output that is written at once,
// without waiting for the next timed flush.
const flushBytes = 1 << 20

// Writer writes a run directory. Its methods may be called concurrently.
type Writer struct {
	dir   string
	lock  *os.File
	runID string

	// What Create made, for Discard: the directories that did not exist
	// (deepest first) and the lock file; every run file in dir is the
	// run's own (Create refuses, or with Overwrite removes, another's).
	created  bool
	madeDirs []string
	madeLock bool

	mu     sync.Mutex
	chains []*ChainWriter
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// missingDirs lists dir and those of its parents that do not exist, deepest
// first: what os.MkdirAll(dir) will make.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// Create prepares dir for a new run and locks it; see the package
// documentation. It creates dir (and its parents) if needed. It fails,
// before any work is done, if dir is a file or cannot be written, wrapping
// ErrLocked if another process holds the lock, and ErrExists if dir holds
// the files of another run and opt.Overwrite is not set. Every error names
// dir.
//
// The lock is held until Close, and by the operating system only as long as
// the process lives: a killed run leaves no stale lock.
func Create(dir string, opt Options) (*Writer, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s: is a file, not a directory", dir)
	} else if err == nil {
		// Before anything is made in it (the lock file): a non-empty
		// directory without a run's files is not written into, whether
		// it is reached through a symbolic link or not.
		foreign, err := foreignFiles(dir)
		if err != nil {
			return nil, pathErr(dir, err)
		}
		if len(foreign) > 0 {
			return nil, fmt.Errorf("%s: %w (%s)", dir, ErrNotRun, listFiles(foreign))
		}
	}
	made := missingDirs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, pathErr(dir, err)
	}
	_, err := os.Lstat(filepath.Join(dir, LockFile))
	madeLock := errors.Is(err, fs.ErrNotExist)
	lf, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, pathErr(dir, err)
	}
	if err := lockFile(lf); err != nil {
		lf.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("%s: lock: %v", dir, err)
	}
	fail := func(err error) (*Writer, error) {
		unlockFile(lf)
		lf.Close()
		return nil, err
	}
	// Probe that files can be made (a read-only directory may still let
	// an existing lock file be opened).
	probe, err := os.CreateTemp(dir, ".tmp-probe-")
	if err != nil {
		return fail(pathErr(dir, err))
	}
	probe.Close()
	os.Remove(probe.Name())

	old, err := runFiles(dir)
	if err != nil {
		return fail(pathErr(dir, err))
	}
	if len(old) > 0 {
		if !opt.Overwrite {
			return fail(fmt.Errorf("%s: %w (%s)", dir, ErrExists, listFiles(old)))
		}
		for _, name := range old {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fail(fmt.Errorf("%s: removing the old run's %s: %v", dir, name, err))
			}
		}
	}
	var id [8]byte
	rand.Read(id[:])
	runID := hex.EncodeToString(id[:])
	if opt.RunID != "" {
		runID = opt.RunID
	}
	w := &Writer{dir: dir, lock: lf, runID: runID, stop: make(chan struct{}), done: make(chan struct{}),
		created: true, madeDirs: made, madeLock: madeLock}
	every := opt.FlushEvery
	if every <= 0 {
		every = time.Second
	}
	go w.flusher(every)
	return w, nil
}

func pathErr(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", dir, err)
}

// runFiles lists the run files in dir, sorted.
func runFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if IsRunFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// foreignFiles lists, sorted, the entries of dir when it holds no file that
// a run writes (IsRunFile, the lock file): a non-empty directory that is
// not a run's. It returns nil for an empty directory or a run's.
func foreignFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); n == LockFile || IsRunFile(n) {
			return nil, nil
		}
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

func listFiles(names []string) string {
	if len(names) > 4 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(", … (%d files)", len(names))
	}
	return strings.Join(names, ", ")
}

// SetRunID sets the run's identifier recorded in the chain files, as
// Options.RunID does, for a Writer created before the run's settings are
// known. It must be called before the first Chain.
func (w *Writer) SetRunID(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.chains) > 0 {
		panic("rundir: SetRunID after Chain")
	}
	if id != "" {
		w.runID = id
	}
}

// Dir returns the directory.
func (w *Writer) Dir() string { return w.dir }

// RunID returns the run's identifier, recorded in every chain file.
func (w *Writer) RunID() string { return w.runID }

func (w *Writer) flusher(every time.Duration) {
	defer close(w.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			chains := append([]*ChainWriter(nil), w.chains...)
			w.mu.Unlock()
			for _, c := range chains {
				c.Flush()
			}
		}
	}
}

// Chain creates chain k's file (k 1-based), DIR/chain-k.csv, and writes its
// configuration comments and header at once. The columns are the sampler's
// statistics followed by the parameters and derived quantities, as CmdStan
// orders them; cfg.ChainID is set to k, cfg.SaveWarmup to false, and the
// run's identifier is added to cfg.Extra as "run_id". Warm-up draws go to
// DIR/warmup-k.csv, made at the first one.
func (w *Writer) Chain(k int, cfg stancsv.Config, statNames, names []string) (*ChainWriter, error) {
	if k < 1 {
		return nil, fmt.Errorf("rundir: chain number %d: expected 1 or more", k)
	}
	cols := append(append([]string(nil), statNames...), names...)
	cfg.ChainID = k
	cfg.SaveWarmup = false
	cfg.Extra = append(append([][2]string(nil), cfg.Extra...), [2]string{"run_id", w.runID})
	c := &ChainWriter{w: w, k: k, cfg: cfg, cols: cols, nstat: len(statNames), row: make([]float64, len(cols)), start: time.Now()}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("rundir: Writer is closed")
	}
	f, err := newChainFile(filepath.Join(w.dir, ChainFile(k)), cfg, cols)
	if err != nil {
		return nil, err
	}
	c.post = f
	w.chains = append(w.chains, c)
	return c, nil
}

// WriteSummary writes DIR/summary.csv atomically.
func (w *Writer) WriteSummary(t diag.Table) error {
	return w.WriteFile(SummaryFile, t.WriteCSV)
}

// WriteSpec writes the model specification spec, any value that
// encoding/json marshals (a json.RawMessage is written as is), to
// DIR/model.json atomically.
func (w *Writer) WriteSpec(spec any) error {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("rundir: model specification: %v", err)
	}
	return w.WriteFile(SpecFile, func(wr io.Writer) error {
		_, err := wr.Write(append(b, '\n'))
		return err
	})
}

// scalerJSON is the layout of scaler.json.
type scalerJSON struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// The response's standardisation, when the run standardised it.
	TargetMean  float64 `json:"target_mean,omitempty"`
	TargetScale float64 `json:"target_scale,omitempty"`
}

// WriteScaler writes the feature standardisation s to DIR/scaler.json
// atomically.
func (w *Writer) WriteScaler(s *data.Scaler) error {
	b, err := json.MarshalIndent(scalerJSON{s.Mean, s.Scale, s.TargetMean, s.TargetScale}, "", "  ")
	if err != nil {
		return fmt.Errorf("rundir: scaler: %v", err)
	}
	return w.WriteFile(ScalerFile, func(wr io.Writer) error {
		_, err := wr.Write(append(b, '\n'))
		return err
	})
}

// WriteFile writes DIR/name atomically with the output of write; see
// WriteFileAtomic.
func (w *Writer) WriteFile(name string, write func(io.Writer) error) error {
	return WriteFileAtomic(filepath.Join(w.dir, name), write)
}

// WriteFileAtomic writes the output of write to a temporary file beside path,
// syncs it and renames it to path, so that path is either left as it was or
// complete: a full disk or a crash never leaves a truncated file.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, ".tmp-"+base+"-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// stopFlushes marks the writer closed, stops the timed flushes and returns
// its chains; ok is false when it was closed already (Close and Discard do
// their work once).
func (w *Writer) stopFlushes() (chains []*ChainWriter, ok bool) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, false
	}
	w.closed = true
	chains = w.chains
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	return chains, true
}

// Close closes every chain not yet closed with ChainWriter.Close(stopped),
// stops the timed flushes and releases the lock. stopped is nil for a run
// that finished, or the reason it stopped early.
func (w *Writer) Close(stopped error) error {
	chains, ok := w.stopFlushes()
	if !ok {
		return nil
	}
	// Every chain's file is closed first (its pending draws written), then
	// the copies with the kept draws are written beside them, and only
	// then switched in, in one step (switchFiles): a kill at any moment
	// leaves every chain file as written, or every one as kept.
	var errs []error
	for _, c := range chains {
		errs = append(errs, c.closeFiles(stopped))
	}
	var kept []*ChainWriter
	for _, c := range chains {
		if !c.mustRewrite() {
			continue
		}
		if err := c.writeKept(); err != nil {
			errs = append(errs, err)
			for _, k := range kept { // all draws as written, in every file
				os.Remove(k.keptPath())
			}
			kept = nil
			break
		}
		kept = append(kept, c)
	}
	if len(kept) > 0 {
		errs = append(errs, w.switchFiles(kept))
	}
	errs = append(errs, unlockFile(w.lock), w.lock.Close())
	return errors.Join(errs...)
}

// Discard ends a run that failed before its first draw and removes what
// Create made for it: the run's files in dir (the resume information, chain
// files with no draw), the lock file if it was not there before, and dir and
// its parents if Create made them and they are left empty; files it did not
// make are left alone. The corrected command can then use dir again without
// Options.Overwrite. A Writer that Reopen made (a resumed run) is closed as
// by Close(stopped) instead: its files are an earlier run's. Later calls, and
// calls after Close, do nothing.
func (w *Writer) Discard(stopped error) error {
	if !w.created {
		return w.Close(stopped)
	}
	chains, ok := w.stopFlushes()
	if !ok {
		return nil
	}
	var errs []error
	for _, c := range chains {
		c.mu.Lock()
		c.closed = true
		for _, f := range []*chainFile{c.post, c.warm} {
			if f != nil && !f.closed {
				f.closed = true
				f.f.Close()
			}
		}
		c.mu.Unlock()
	}
	names, err := runFiles(w.dir)
	errs = append(errs, err)
	for _, name := range names {
		if err := os.Remove(filepath.Join(w.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if w.madeLock {
		os.Remove(w.lock.Name())
	}
	errs = append(errs, unlockFile(w.lock), w.lock.Close())
	for _, d := range w.madeDirs {
		if os.Remove(d) != nil { // not empty: something else is in it
			break
		}
	}
	return errors.Join(errs...)
}

// switchFiles renames the kept-draws copies of the chains over their files
// in one step as far as a reader sees: first the marker SwitchFile, listing
// the chain files, is written (atomically), then each copy is renamed,
// then the marker removed. A reader that finds the marker reads the copies
// still beside their files (Read), so that a kill during the renames
// leaves a directory that reads as wholly switched.
func (w *Writer) switchFiles(kept []*ChainWriter) error {
	var list strings.Builder
	for _, c := range kept {
		list.WriteString(filepath.Base(c.post.path) + "\n")
	}
	if err := w.WriteFile(SwitchFile, func(wr io.Writer) error {
		_, err := io.WriteString(wr, list.String())
		return err
	}); err != nil {
		for _, c := range kept {
			os.Remove(c.keptPath())
		}
		return fmt.Errorf("rundir: keeping the run's draws: %v", err)
	}
	syncDir(w.dir)
	var errs []error
	for _, c := range kept {
		if err := rename(c.keptPath(), c.post.path); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 { // the marker stays: readers read the copies left
		return errors.Join(errs...)
	}
	syncDir(w.dir)
	return os.Remove(filepath.Join(w.dir, SwitchFile))
}

// rename is os.Rename; tests slow it down to kill a process between two.
var rename = os.Rename

// syncDir makes the renames and creations in dir durable (fsync of the
// directory); errors are ignored (not every file system allows it).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ChainWriter writes the draws of one chain as they come. It implements
// langevin.DrawSink. Its methods may be called concurrently.
type ChainWriter struct {
	w     *Writer
	k     int
	cfg   stancsv.Config
	cols  []string
	nstat int

	mu         sync.Mutex
	row        []float64
	post, warm *chainFile
	warmDone   bool
	warmRows   int       // warm-up draws written
	start, mid time.Time // creation, first kept draw
	err        error     // first write error, returned from then on
	iters      []int     // the iteration of each kept draw written
	keep       []int     // Keep's iterations (sorted); nil: keep all
	keepThin   int
	closed     bool
	rewritten  bool // writeKept was called

	status       string        // the closing status line, set by closeFiles
	warmT, sampT time.Duration // the timing block, set by closeFiles
}

// Draw writes one draw: the sampler's statistics and the row of
// parameters and derived quantities. Warm-up draws (warmup true) go to the
// warm-up file; the first kept draw closes it. iter is not written (CmdStan
// files have no iteration column).
func (c *ChainWriter) Draw(warmup bool, iter int, row, stats []float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if c.closed {
		return fmt.Errorf("rundir: chain %d is closed", c.k)
	}
	if len(stats) != c.nstat || len(row) != len(c.cols)-c.nstat {
		return fmt.Errorf("rundir: chain %d: draw has %d statistics and %d values, header has %d and %d", c.k, len(stats), len(row), c.nstat, len(c.cols)-c.nstat)
	}
	copy(c.row, stats)
	copy(c.row[c.nstat:], row)
	f := c.post
	if warmup {
		if c.warmDone {
			return fmt.Errorf("rundir: chain %d: warm-up draw after a kept draw", c.k)
		}
		if c.warm == nil {
			cfg := c.cfg
			cfg.NumSamples, cfg.SaveWarmup = 0, true
			wf, err := newChainFile(filepath.Join(c.w.dir, WarmupFile(c.k)), cfg, c.cols)
			if err != nil {
				c.err = err
				return err
			}
			c.warm = wf
		}
		f = c.warm
	} else if !c.warmDone {
		c.warmDone = true
		c.mid = time.Now()
		if c.warm != nil {
			if err := c.warm.close(c.mid.Sub(c.start), 0, "Warm-up finished"); err != nil {
				c.err = err
				return err
			}
		}
	}
	if err := f.write(c.row); err != nil {
		c.err = err
		return err
	}
	if !warmup {
		c.iters = append(c.iters, iter)
	} else {
		c.warmRows++
	}
	return nil
}

// Keep makes Close leave in the chain file only the kept draws whose
// iterations are in iters (increasing), and record thin as its thinning and
// as num_samples the iterations they span: a run that thinned its draws
// further after writing them (langevin.Options.MaxKeep), or stopped before
// the length its header planned (an ESS rule, a signal), passes its Trace's
// Iters and Thin, so that the file holds the draws the run summarised, no
// more, and its header counts them. Close rewrites the
// file beside it and renames it over the old one: until then, and if the
// rewrite fails, the file holds every draw written.
func (c *ChainWriter) Keep(iters []int, thin int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep, c.keepThin = slices.Clone(iters), thin
}

// Chain returns the chain's number (1-based).
func (c *ChainWriter) Chain() int { return c.k }

// Flush writes the pending draws to the files.
func (c *ChainWriter) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.closed {
		return c.err
	}
	for _, f := range []*chainFile{c.warm, c.post} {
		if f != nil && !f.closed {
			if err := f.flush(); err != nil {
				c.err = err
				return err
			}
		}
	}
	return nil
}

// Close writes the pending draws and closes the chain's files, ending them
// with CmdStan's timing block and the status line: "# Run finished" if
// stopped is nil, otherwise "# Run stopped: " and the reason; with Keep, it
// then replaces the file by one of the kept draws (written beside it, then
// renamed). Later calls do nothing. Writer.Close closes all chains and
// switches all their files at once.
func (c *ChainWriter) Close(stopped error) error {
	if err := c.closeFiles(stopped); err != nil {
		return err
	}
	if !c.mustRewrite() {
		return nil
	}
	if err := c.writeKept(); err != nil {
		return err
	}
	if err := os.Rename(c.keptPath(), c.post.path); err != nil {
		os.Remove(c.keptPath())
		return err
	}
	return nil
}

// closeFiles closes the chain's files with the status line (see Close).
func (c *ChainWriter) closeFiles(stopped error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.status = "Run finished"
	if stopped != nil {
		c.status = "Run stopped: " + oneLine(stopped.Error())
	}
	now := time.Now()
	c.warmT, c.sampT = now.Sub(c.start), 0
	if c.warmDone {
		c.warmT, c.sampT = c.mid.Sub(c.start), now.Sub(c.mid)
	}
	var errs []error
	if c.warm != nil && !c.warm.closed {
		errs = append(errs, c.warm.close(c.warmT, 0, c.status))
	}
	errs = append(errs, c.post.close(c.warmT, c.sampT, c.status))
	err := errors.Join(errs...)
	if c.err != nil {
		return c.err
	}
	if err != nil {
		c.err = err
	}
	return err
}

// mustRewrite reports whether the closed chain's file holds other draws
// than Keep's.
func (c *ChainWriter) mustRewrite() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed || c.err != nil || c.keep == nil || c.rewritten {
		return false
	}
	thin := max(c.keepThin, 1)
	counted := c.cfg.Thin == c.keepThin && (c.cfg.NumSamples+thin-1)/thin == len(c.keep)
	return !slices.Equal(c.keep, c.iters) || !counted
}

// keptSamples is the num_samples of the header of a file that holds the
// draws of Keep: the post-warm-up iterations up to the last kept draw, so
// that ⌈num_samples/thin⌉ is the number of rows, as readers of CmdStan's
// files (rstan::read_stan_csv, cmdstanr) count them; a run of unknown
// length (--sampler auto) planned a cap instead. When the kept iterations
// are not evenly spaced from the warm-up's end, rows × thin.
func (c *ChainWriter) keptSamples() int {
	k, thin := len(c.keep), max(c.keepThin, 1)
	if k == 0 {
		return 0
	}
	if n := c.keep[k-1] - c.cfg.NumWarmup; n >= 1 && (n+thin-1)/thin == k {
		return n
	}
	return k * thin
}

// keptPath is the path of the copy of the chain file with the kept draws,
// ".tmp-chain-K.csv" beside it.
func (c *ChainWriter) keptPath() string {
	return filepath.Join(filepath.Dir(c.post.path), ".tmp-"+filepath.Base(c.post.path))
}

// writeKept writes, beside the closed chain file, a copy that holds only
// the draws of Keep, copied line for line (the same bits), with the same
// comments, timing block and status line, synced.
func (c *ChainWriter) writeKept() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rewritten = true
	old := c.post.path
	in, err := os.Open(old)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := c.keptPath()
	os.Remove(tmp) // a leftover of a crash during an earlier rewrite
	cfg := c.cfg
	cfg.Thin = c.keepThin
	if thin := max(c.keepThin, 1); (cfg.NumSamples+thin-1)/thin != len(c.keep) {
		cfg.NumSamples = c.keptSamples()
	}
	out, err := newChainFile(tmp, cfg, c.cols)
	if err != nil {
		return err
	}
	out.sync = true
	fail := func(err error) error {
		out.f.Close()
		os.Remove(tmp)
		return fmt.Errorf("rundir: chain %d: keeping the run's draws: %v", c.k, err)
	}
	r := bufio.NewReaderSize(in, 64<<10)
	header, row, k := false, 0, 0 // k: next of c.keep
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if !header { // the column names: written by newChainFile
			header = true
			continue
		}
		if row >= len(c.iters) {
			return fail(fmt.Errorf("%s holds more draws than were written", old))
		}
		it := c.iters[row]
		row++
		for k < len(c.keep) && c.keep[k] < it {
			k++
		}
		if k < len(c.keep) && c.keep[k] == it {
			if err := out.writeLine(line); err != nil {
				return fail(err)
			}
		}
	}
	if err := out.close(c.warmT, c.sampT, c.status); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rundir: chain %d: keeping the run's draws: %v", c.k, err)
	}
	return nil
}

// oneLine joins the lines of s with "; ".
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// chainFile is one Stan CSV file written in whole lines.
type chainFile struct {
	f       file
	path    string
	sw      *stancsv.Writer
	pending lineBuf // whole lines not yet written to f
	out     []byte  // the lines of one write, with padding
	fix     []int   // offsets in out of the rows written first as comments
	orig    []byte  // their first bytes
	size    int64   // bytes written to f
	crc     uint32  // CRC-32C of those bytes (checkpoints record it)
	closed  bool
	sync    bool // close syncs the file (a copy about to replace another)
}

// file is the part of *os.File that a chainFile uses.
type file interface {
	Write(p []byte) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
	Close() error
}

// createFile creates a chain file; tests replace it to see every write.
var createFile = func(path string) (file, error) {
	// Not O_APPEND: flush puts bytes back with WriteAt, which Go refuses
	// on a file opened with O_APPEND.
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// lineBuf collects the Stan CSV writer's output; the writer is flushed
// after every line, so lineBuf holds only whole lines.
type lineBuf struct{ b []byte }

func (l *lineBuf) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	return len(p), nil
}

func newChainFile(path string, cfg stancsv.Config, cols []string) (*chainFile, error) {
	f, err := createFile(path)
	if err != nil {
		return nil, err
	}
	cf := &chainFile{f: f, path: path}
	cf.sw, err = stancsv.NewWriter(&cf.pending, cfg, cols)
	if err == nil {
		err = cf.sw.Flush()
	}
	if err == nil {
		err = cf.flush()
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return cf, nil
}

// writeLine writes one whole data line (ending in "\n") as it is (the
// Stan CSV writer does not count it: close ignores its row count).
func (cf *chainFile) writeLine(line []byte) error {
	cf.pending.b = append(cf.pending.b, line...)
	if len(cf.pending.b) >= flushBytes {
		return cf.flush()
	}
	return nil
}

func (cf *chainFile) write(row []float64) error {
	if err := cf.sw.Write(row); err != nil {
		return err
	}
	cf.sw.Flush() // into pending: cannot fail
	if len(cf.pending.b) >= flushBytes {
		return cf.flush()
	}
	return nil
}

// pageSize is the unit at which Linux may cut a write short when the
// process is killed during it (write(2) checks for a fatal signal before
// copying each page, or each large folio, of the file).
const pageSize = 4096

// flush writes the pending lines so that a process killed at any moment
// leaves a file whose rows are whole and are the first rows written, none
// missing before a later one. Linux cuts a write short on SIGKILL only at a
// page boundary of the file, and copies a write into the file in order, page
// by page. So:
//
//   - a line that would straddle a page boundary, and fits in a page, is
//     moved to the next page by a padding comment line ("#" and spaces; a
//     cut comment is harmless);
//   - from the first row longer than the room left in its page and than a
//     page (the rows of a model with some hundreds of parameters, or their
//     header) to the end of the write, every row is written with its first
//     byte replaced by '#', so that whatever part of them a cut leaves is
//     comment lines. Once the write(2) call has returned in full, a second
//     one (pwrite(2), WriteAt) writes the same bytes over them with their
//     first bytes back. A kill during it leaves the first of these rows
//     whole and the others comment lines; a kill between the two leaves them
//     all comment lines: lost draws, never a torn row, never a gap.
//
// A flush costs one write(2), and a pwrite(2) if it holds a long row. If a
// write fails part way (a full disk), the file is cut back to its last
// whole line, and the lines not in the file stay pending.
func (cf *chainFile) flush() error {
	if len(cf.pending.b) == 0 {
		return nil
	}
	out, fix := cf.out[:0], cf.fix[:0]
	rest := cf.pending.b
	fixFrom := 0 // the offset in pending of the first row in fix
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n') + 1 // pending holds whole lines
		line := rest[:i]
		rest = rest[i:]
		room := pageSize - int((cf.size+int64(len(out)))%pageSize)
		switch {
		case len(fix) > 0 || len(line) > pageSize && len(line) > room:
			if line[0] != '#' {
				if len(fix) == 0 {
					fixFrom = len(cf.pending.b) - len(rest) - len(line)
				}
				fix = append(fix, len(out))
			}
		case len(line) > room:
			pad := room
			if pad == 1 { // a blank line would do, but not for every reader
				pad += pageSize
			}
			out = append(out, '#')
			for range pad - 2 {
				out = append(out, ' ')
			}
			out = append(out, '\n')
		}
		out = append(out, line...)
	}
	orig := cf.orig[:0]
	for _, at := range fix {
		orig = append(orig, out[at])
		out[at] = '#'
	}
	cf.out, cf.fix, cf.orig = out, fix, orig
	n, err := cf.f.Write(out)
	if err != nil {
		if n > 0 {
			cf.cutBack(cf.size)
		}
		return fmt.Errorf("%s: %v", cf.path, err)
	}
	if len(fix) > 0 {
		for j, at := range fix {
			out[at] = orig[j]
		}
		first, last := fix[0], fix[len(fix)-1]
		if _, err := cf.f.WriteAt(out[first:last+1], cf.size+int64(first)); err != nil {
			cf.cutBack(cf.size + int64(first))
			cf.size += int64(first)
			cf.crc = crc32.Update(cf.crc, crcTable, out[:first])
			cf.pending.b = append(cf.pending.b[:0], cf.pending.b[fixFrom:]...)
			return fmt.Errorf("%s: %v", cf.path, err)
		}
	}
	cf.size += int64(n)
	cf.crc = crc32.Update(cf.crc, crcTable, out[:n])
	cf.pending.b = cf.pending.b[:0]
	return nil
}

// cutBack cuts the file back to size bytes, and writes go on from there.
func (cf *chainFile) cutBack(size int64) {
	cf.f.Truncate(size)
	cf.f.Seek(size, io.SeekStart)
}

func (cf *chainFile) close(warm, samp time.Duration, status string) error {
	cf.closed = true
	err := cf.sw.Close(warm.Seconds(), samp.Seconds())
	if errors.Is(err, stancsv.ErrRowCount) {
		err = nil // a run stopped early, or a chain that skips iterations
	}
	cf.pending.b = append(cf.pending.b, "# "+status+"\n"...)
	err = errors.Join(err, cf.flush())
	if s, ok := cf.f.(interface{ Sync() error }); ok && cf.sync && err == nil {
		err = s.Sync()
	}
	return errors.Join(err, cf.f.Close())
}
