package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/stancsv"
)

// The files of a run that can be resumed (langevin run --resume DIR).
const (
	// CheckpointFile holds the run's last checkpoint: for each chain file
	// its size, CRC-32C, rows and their iterations at the checkpoint, and
	// the sampler's state (langevin.Checkpoint), written atomically by
	// Writer.Checkpoint after the chain files are flushed and synced to
	// that point.
	CheckpointFile = "checkpoint.bin"
	// ResumeFile records what starting the run again needs: its
	// arguments and the input files' digests (ResumeInfo), JSON.
	ResumeFile = "resume.json"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ResumeInfo is DIR/resume.json.
type ResumeInfo struct {
	Args   []string    `json:"args"`             // the run's arguments (langevin run …)
	Dir    string      `json:"dir,omitempty"`    // the working directory they are relative to
	Inputs []InputFile `json:"inputs,omitempty"` // the files it reads
	// Finished: the sampling ended (the run's own end, not a signal):
	// nothing to resume.
	Finished bool `json:"finished"`
	// NoCheckpoint says why the run makes no checkpoints (its sampler
	// cannot save its state, or checkpoints are off), if it does not.
	NoCheckpoint string `json:"no_checkpoint,omitempty"`
}

// InputFile identifies an input file by its size and SHA-256 digest.
type InputFile struct {
	Flag   string `json:"flag"` // the flag that names it, for messages
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// DigestFile returns the size and SHA-256 digest of the regular file path,
// or nil (and no error) if path is not a regular file (a data set's name,
// a folder).
func DigestFile(flag, path string) (*InputFile, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &InputFile{Flag: flag, Path: path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// WriteResumeInfo writes DIR/resume.json atomically.
func (w *Writer) WriteResumeInfo(ri *ResumeInfo) error {
	b, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return err
	}
	return w.WriteFile(ResumeFile, func(wr io.Writer) error {
		_, err := wr.Write(append(b, '\n'))
		return err
	})
}

// ReadResumeInfo reads DIR/resume.json.
func ReadResumeInfo(dir string) (*ResumeInfo, error) {
	b, err := readSmall(filepath.Join(dir, ResumeFile), 16<<20)
	if err != nil {
		return nil, err
	}
	var ri ResumeInfo
	if err := json.Unmarshal(b, &ri); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ResumeFile), err)
	}
	return &ri, nil
}

// readSmall reads a regular file of at most max bytes. A symlink, FIFO,
// device or directory in its place is refused before it is opened (a FIFO
// would block and a device read without end), and so is a file larger than
// max, by its size, before a byte is read.
func readSmall(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): not a file of a run", path, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, larger than %d: not a file of a run", path, fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a file of a run", path, max)
	}
	return b, nil
}

// Finished records that the run's sampling ended by itself: every chain's
// files are first flushed and synced, so that all the draws are on disk in
// whole lines; then resume.json says so (ri, updated) and the checkpoint is
// removed, so that the end of the run (a rewrite of the chain files, the
// summary) is never taken for a point to resume from. When a flush fails (a
// full disk) nothing is marked: the run stays resumable from its last
// checkpoint, and the error is returned.
func (w *Writer) Finished(ri *ResumeInfo) error {
	w.mu.Lock()
	chains := append([]*ChainWriter(nil), w.chains...)
	w.mu.Unlock()
	for _, c := range chains {
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			continue
		}
		if _, err := c.mark(); err != nil {
			return err
		}
	}
	ri.Finished = true
	if err := w.WriteResumeInfo(ri); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(w.dir, CheckpointFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ChainMark is where a chain's files stood at a checkpoint.
type ChainMark struct {
	Chain int   // chain number (1-based)
	Size  int64 // bytes of chain-K.csv, all whole lines
	CRC   int   // CRC-32C of them
	Iters []int // the iteration of each draw row in them
	// The warm-up file: whether it exists, its size, CRC-32C and rows, and
	// whether it was complete (closed when the first kept draw came).
	Warm                 bool
	WarmSize             int64
	WarmCRC, WarmRows    int
	WarmClosed, WarmDone bool
}

// Checkpoint is DIR/checkpoint.bin.
type Checkpoint struct {
	Chains []ChainMark
	State  []byte // the sampler's state (langevin.Checkpoint.MarshalBinary)
}

const checkpointMagic = "langevin run checkpoint 1\n"

func (cp *Checkpoint) code(s *langevin.StateCoder) {
	n := len(cp.Chains)
	s.Int(&n)
	if s.Decoding() {
		if n < 0 || n > 1<<20 {
			s.Fail(errors.New("malformed"))
			return
		}
		cp.Chains = make([]ChainMark, n)
	}
	for i := range cp.Chains {
		c := &cp.Chains[i]
		size, wsize := int(c.Size), int(c.WarmSize)
		s.Int(&c.Chain)
		s.Int(&size)
		s.Int(&c.CRC)
		s.IntList(&c.Iters)
		s.Bool(&c.Warm)
		s.Int(&wsize)
		s.Int(&c.WarmCRC)
		s.Int(&c.WarmRows)
		s.Bool(&c.WarmClosed)
		s.Bool(&c.WarmDone)
		c.Size, c.WarmSize = int64(size), int64(wsize)
	}
	s.ByteList(&cp.State)
}

// marshal encodes the checkpoint, with a CRC-32C of it at the end.
func (cp *Checkpoint) marshal() ([]byte, error) {
	s := langevin.NewStateEncoder([]byte(checkpointMagic))
	cp.code(s)
	if err := s.Err(); err != nil {
		return nil, err
	}
	b := s.Bytes()
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable)), nil
}

// maxCheckpoint bounds the size of checkpoint.bin: the chains' state (a few
// vectors of the model's dimension a chain) and a mark per chain file; 256 MiB
// holds 4 chains of a network with 2·10⁶ weights and 4 vectors each.
const maxCheckpoint = 256 << 20

// ReadCheckpoint reads DIR/checkpoint.bin; it returns nil and no error if
// there is none.
func ReadCheckpoint(dir string) (*Checkpoint, error) {
	path := filepath.Join(dir, CheckpointFile)
	b, err := readSmall(path, maxCheckpoint)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	bad := func(why string) error { return fmt.Errorf("%s: %s: not a checkpoint this langevin wrote", path, why) }
	if len(b) < len(checkpointMagic)+4 || !bytes.HasPrefix(b, []byte(checkpointMagic)) {
		return nil, bad("no header")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return nil, bad("checksum mismatch")
	}
	var cp Checkpoint
	s := langevin.NewStateDecoder(body[len(checkpointMagic):])
	cp.code(s)
	if err := s.Err(); err != nil {
		return nil, bad(err.Error())
	}
	return &cp, nil
}

// Checkpoint flushes every chain's pending draws to its files, syncs them,
// and writes DIR/checkpoint.bin atomically: where each file stands (size,
// CRC-32C, the iterations of its rows) and state, the sampler's state at
// that point (opaque here: langevin.Checkpoint.MarshalBinary). It must be
// called with no draw coming (langevin.Options.Checkpoint is called between
// rounds), so that state and files agree.
func (w *Writer) Checkpoint(state []byte) error {
	w.mu.Lock()
	chains := append([]*ChainWriter(nil), w.chains...)
	w.mu.Unlock()
	cp := &Checkpoint{State: state}
	for _, c := range chains {
		m, err := c.mark()
		if err != nil {
			return err
		}
		cp.Chains = append(cp.Chains, m)
	}
	b, err := cp.marshal()
	if err != nil {
		return err
	}
	if err := w.WriteFile(CheckpointFile, func(wr io.Writer) error {
		_, err := wr.Write(b)
		return err
	}); err != nil {
		return err
	}
	syncDir(w.dir)
	return nil
}

// mark flushes and syncs the chain's files and says where they stand.
func (c *ChainWriter) mark() (ChainMark, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return ChainMark{}, c.err
	}
	if c.closed {
		return ChainMark{}, fmt.Errorf("rundir: chain %d is closed", c.k)
	}
	m := ChainMark{Chain: c.k, Iters: append([]int(nil), c.iters...), WarmDone: c.warmDone, WarmRows: c.warmRows}
	for _, f := range []*chainFile{c.post, c.warm} {
		if f == nil || f.closed {
			continue
		}
		if err := f.flush(); err != nil {
			c.err = err
			return ChainMark{}, err
		}
		if s, ok := f.f.(interface{ Sync() error }); ok {
			if err := s.Sync(); err != nil {
				return ChainMark{}, fmt.Errorf("%s: %v", f.path, err)
			}
		}
	}
	m.Size, m.CRC = c.post.size, int(c.post.crc)
	if c.warm != nil {
		m.Warm, m.WarmSize, m.WarmCRC, m.WarmClosed = true, c.warm.size, int(c.warm.crc), c.warm.closed
	}
	return m, nil
}

// Reopen locks dir, the directory of a run that stopped (a signal, a kill,
// a time limit), to continue it: it returns a Writer, the run's
// resume.json and its last checkpoint, or a nil checkpoint when there is
// none (the run stopped before its first one): then the chain files are
// removed and the run starts again from the beginning. It removes what the
// continued run writes again (the summary, the report, temporary files). It
// refuses a directory without resume.json, one whose run finished, and one
// that another process writes.
func Reopen(dir string, opt Options) (*Writer, *ResumeInfo, *Checkpoint, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, nil, nil, pathErr(dir, err)
	} else if !st.IsDir() {
		return nil, nil, nil, fmt.Errorf("%s: is a file, not a run's directory", dir)
	}
	ri, err := ReadResumeInfo(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, fmt.Errorf("%s: no %s: not the directory of a run that can be resumed (a run of langevin run --out DIR writes one)", dir, ResumeFile)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if ri.Finished {
		return nil, nil, nil, fmt.Errorf("%s: %w", dir, ErrFinished)
	}
	lf, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, nil, pathErr(dir, err)
	}
	if err := lockFile(lf); err != nil {
		lf.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, nil, nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return nil, nil, nil, fmt.Errorf("%s: lock: %v", dir, err)
	}
	fail := func(err error) (*Writer, *ResumeInfo, *Checkpoint, error) {
		unlockFile(lf)
		lf.Close()
		return nil, nil, nil, err
	}
	cp, err := ReadCheckpoint(dir)
	if err != nil {
		return fail(err)
	}
	if _, err := os.Stat(filepath.Join(dir, SwitchFile)); err == nil {
		return fail(fmt.Errorf("%s: the run was stopped while it rewrote its chain files at its end (%s is there): its sampling had finished; read it with langevin summary", dir, SwitchFile))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fail(pathErr(dir, err))
	}
	for _, e := range ents {
		n := e.Name()
		stale := n == SummaryFile || n == ReportFile || strings.HasPrefix(n, ".tmp-")
		if cp == nil && (strings.HasPrefix(n, "chain-") || strings.HasPrefix(n, "warmup-")) && IsRunFile(n) {
			stale = true // no checkpoint: the run starts again
		}
		if stale {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fail(fmt.Errorf("%s: removing %s: %v", dir, n, err))
			}
		}
	}
	w := &Writer{dir: dir, lock: lf, stop: make(chan struct{}), done: make(chan struct{})}
	every := opt.FlushEvery
	if every <= 0 {
		every = time.Second
	}
	go w.flusher(every)
	return w, ri, cp, nil
}

// ErrFinished is wrapped by Reopen's error for the directory of a run that
// finished.
var ErrFinished = errors.New("the run finished: nothing to resume")

// ResumeChain opens chain k's files as they stood at the checkpoint mark m
// (cut back to it: what the run wrote after it goes), for the continued run
// to append to, and returns the draws they hold, as the sink had received
// them: the warm-up draws, and the kept draws with their iterations. The
// files must be as the checkpoint left them (their CRC) and belong to a
// run with the same settings (the run identifier, SetRunID, and columns);
// otherwise an error says which file differs.
func (w *Writer) ResumeChain(k int, cfg stancsv.Config, statNames, names []string, m ChainMark) (cw *ChainWriter, warm, post langevin.Draws, err error) {
	if m.Chain != k {
		return nil, warm, post, fmt.Errorf("rundir: resume: the checkpoint's mark is of chain %d, not %d", m.Chain, k)
	}
	cols := append(append([]string(nil), statNames...), names...)
	cfg.ChainID = k
	cfg.SaveWarmup = false
	cfg.Extra = append(append([][2]string(nil), cfg.Extra...), [2]string{"run_id", w.runID})
	c := &ChainWriter{w: w, k: k, cfg: cfg, cols: cols, nstat: len(statNames), row: make([]float64, len(cols)),
		start: time.Now(), mid: time.Now(), iters: append([]int(nil), m.Iters...), warmDone: m.WarmDone, warmRows: m.WarmRows}
	post, c.post, err = w.reopenFile(ChainFile(k), cfg, cols, m.Size, m.CRC, len(m.Iters), len(statNames), false)
	if err != nil {
		return nil, warm, post, err
	}
	post.Iters = c.iters
	wpath := filepath.Join(w.dir, WarmupFile(k))
	if m.Warm {
		wcfg := cfg
		wcfg.NumSamples, wcfg.SaveWarmup = 0, true
		warm, c.warm, err = w.reopenFile(WarmupFile(k), wcfg, cols, m.WarmSize, m.WarmCRC, m.WarmRows, len(statNames), m.WarmClosed)
		if err != nil {
			c.post.f.Close()
			return nil, warm, post, err
		}
	} else if err := os.Remove(wpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.post.f.Close()
		return nil, warm, post, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.chains = append(w.chains, c)
	return c, warm, post, nil
}

// reopenFile checks the first size bytes of DIR/name against crc, reads
// their rows (rows of them), cuts the file back to them and opens it for
// appending, unless closed (a complete warm-up file, left as it is).
func (w *Writer) reopenFile(name string, cfg stancsv.Config, cols []string, size int64, crc, rows, nstat int, closed bool) (langevin.Draws, *chainFile, error) {
	path := filepath.Join(w.dir, name)
	var d langevin.Draws
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return d, nil, fmt.Errorf("%s: %v (the checkpoint counts %d draws in it)", path, err, rows)
	}
	fail := func(format string, args ...any) (langevin.Draws, *chainFile, error) {
		f.Close()
		return d, nil, fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
	}
	head := make([]byte, size)
	if _, err := io.ReadFull(f, head); err != nil {
		return fail("shorter than at the checkpoint (%d bytes): %v", size, err)
	}
	if int(crc32.Checksum(head, crcTable)) != crc {
		return fail("changed since the checkpoint (its first %d bytes differ): it cannot be resumed; start the run again in a new directory", size)
	}
	sf, err := stancsv.Read(bytes.NewReader(head), path)
	if err != nil {
		return fail("%v", err)
	}
	if id := sf.Config["run_id"]; id != w.runID {
		return fail("written by a run with other settings (run_id %s, this run's %s): a resumed run must make the same plan from the same data and flags", id, w.runID)
	}
	if !slices.Equal(sf.Columns, cols) {
		return fail("has other columns than this run's (%d, want %d)", len(sf.Columns), len(cols))
	}
	all := append(sf.Warmup, sf.Draws...)
	if len(all) != rows {
		return fail("holds %d draws up to the checkpoint, which counts %d", len(all), rows)
	}
	for _, r := range all {
		d.Stats = append(d.Stats, r[:nstat:nstat])
		d.Theta = append(d.Theta, r[nstat:])
	}
	cf := &chainFile{f: f, path: path, size: size, crc: uint32(crc), closed: closed}
	if closed {
		f.Close()
		return d, cf, nil
	}
	if err := f.Truncate(size); err != nil {
		return fail("%v", err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return fail("%v", err)
	}
	if cf.sw, err = stancsv.NewWriter(&cf.pending, cfg, cols); err != nil {
		return fail("%v", err)
	}
	cf.sw.Flush()
	cf.pending.b = cf.pending.b[:0] // the header is in the file already
	return d, cf, nil
}
