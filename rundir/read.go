package rundir

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/stancsv"
)

// ErrMixed is wrapped by the errors of Read and ReadFiles for chain files
// that disagree on their thinning or burn-in: the files of one run were
// left half rewritten (a langevin before the switch of Writer.Close was
// killed while it thinned them) or are not of one run. Their draws cannot
// be read as one trace.
var ErrMixed = errors.New("the chain files do not share one thinning and burn-in: some were rewritten to the run's kept draws and others not (a run killed while it ended), or they are of different runs; run it again (--overwrite)")

// Run is what Read finds in a run directory.
type Run struct {
	Dir string // the directory, or "" for ReadFiles

	// Trace holds the draws of the chains in chain order, with their
	// warm-up draws when saved. Names are the columns that do not end in
	// "__" (parameters and derived quantities; Dim counts them all),
	// StatNames the others. Chains of an unfinished run may differ in
	// length, and may hold no draws. Iters are reconstructed from
	// num_warmup and thin.
	Trace *langevin.Trace

	// Chains describes each chain's file, in chain order.
	Chains []Chain

	// Settings holds the configuration comments of the first chain file in
	// file order, without CmdStan's bookkeeping keys (id, method, random,
	// output, file, save_warmup, sample) and without run_id.
	Settings [][2]string

	// Config holds the first chain file's configuration (stancsv.File.Config).
	Config map[string]string

	// Spec holds the contents of model.json, or nil if there is none.
	Spec json.RawMessage

	// Scaler is the feature standardisation of scaler.json, or nil.
	Scaler *data.Scaler
}

// Chain describes one chain file.
type Chain struct {
	Path string

	// Status is "finished", "stopped: <reason>", or "unfinished" for a file
	// without a status line (the run is going on, or was killed).
	Status string

	// Torn reports that the file ended in a line cut short (a crash during
	// a write); the line was dropped.
	Torn bool
}

// Finished reports whether the chain's file says that the run finished.
func (c Chain) Finished() bool { return c.Status == "finished" }

// Finished reports whether every chain finished.
func (r *Run) Finished() bool {
	for _, c := range r.Chains {
		if !c.Finished() {
			return false
		}
	}
	return len(r.Chains) > 0
}

// Status describes the run in one line: "finished", or for instance
// "unfinished: chain 2 stopped: interrupted; chains 3, 4 unfinished (no
// closing line: still running, or killed)".
func (r *Run) Status() string {
	if r.Finished() {
		return "finished"
	}
	byStatus := map[string][]string{}
	var order []string
	for i, c := range r.Chains {
		s := c.Status
		if s == "finished" {
			continue
		}
		if _, ok := byStatus[s]; !ok {
			order = append(order, s)
		}
		byStatus[s] = append(byStatus[s], strconv.Itoa(i+1))
	}
	var parts []string
	for _, s := range order {
		ks := byStatus[s]
		what := "chain " + ks[0]
		if len(ks) > 1 {
			what = "chains " + strings.Join(ks, ", ")
		}
		if s == "unfinished" {
			s += " (no closing line: still running, or killed)"
		}
		parts = append(parts, what+" "+s)
	}
	return "unfinished: " + strings.Join(parts, "; ")
}

// RecordsStatus reports whether the run's chain files record whether it
// finished: those a Writer writes carry a run_id and a closing status line,
// CmdStan's carry neither, so that Finished is false for them and Status
// says nothing about how they ended.
func (r *Run) RecordsStatus() bool {
	_, ok := r.Config["run_id"]
	return ok
}

var chainName = regexp.MustCompile(`^chain-([0-9]+)\.csv(\.gz)?$`)

// Read reads the run directory dir; see the package documentation. The
// chain files must be numbered 1 to K without a gap, have the same columns
// and, when they record one, the same run_id. A chain file with no complete
// line yet counts as a chain with no draws. Errors name the file and, for
// malformed content, the line and column.
func Read(dir string) (*Run, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory: expected the output directory of a run", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byNum := map[int]string{}
	maxK := 0
	for _, e := range ents {
		m := chainName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		k, err := strconv.Atoi(m[1])
		if err != nil || k < 1 || strconv.Itoa(k) != m[1] {
			return nil, fmt.Errorf("%s: unexpected chain file name %s", dir, e.Name())
		}
		if prev, ok := byNum[k]; ok {
			return nil, fmt.Errorf("%s: both %s and %s hold chain %d", dir, prev, e.Name(), k)
		}
		byNum[k] = e.Name()
		maxK = max(maxK, k)
	}
	if maxK == 0 {
		return nil, fmt.Errorf("%s: no chain-1.csv, chain-2.csv, …: expected the output directory of a run", dir)
	}
	// A directory may hold chains K, K+1, … of an analysis whose other
	// chains ran elsewhere (langevin run --chain-id): the first file then
	// records id = K. Otherwise the chains start at 1.
	minK := maxK
	for k := range byNum {
		minK = min(minK, k)
	}
	switching, err := switchList(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for k := minK; k <= maxK; k++ {
		name, ok := byNum[k]
		if !ok {
			return nil, fmt.Errorf("%s: %s is missing but %s is there: chains of different runs?", dir, ChainFile(k), byNum[maxK])
		}
		p := filepath.Join(dir, name)
		if switching[name] {
			// Killed while the files were switched to their copies with
			// the kept draws (Writer.Close): a copy not yet renamed is
			// read in place of its file, so that the run reads as
			// wholly switched.
			if tmp := filepath.Join(dir, ".tmp-"+name); isRegular(tmp) {
				p = tmp
			}
		}
		paths = append(paths, p)
	}
	r, err := readChains(paths, func(i int) string {
		k := minK + i - 1 // paths[i-1] holds chain k
		for _, name := range []string{WarmupFile(k), WarmupFile(k) + ".gz"} {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	if minK > 1 {
		if r.Config["id"] != strconv.Itoa(minK) {
			return nil, fmt.Errorf("%s: %s is missing but %s is there: chains of different runs?", dir, ChainFile(1), byNum[maxK])
		}
		r.Trace.FirstChain = minK - 1
	}
	r.Dir = dir
	if b, err := readMaybeGz(filepath.Join(dir, SpecFile)); err == nil {
		if !json.Valid(b) {
			return nil, fmt.Errorf("%s: not valid JSON", filepath.Join(dir, SpecFile))
		}
		r.Spec = b
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := readMaybeGz(filepath.Join(dir, ScalerFile)); err == nil {
		var s scalerJSON
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ScalerFile), err)
		}
		sc := &data.Scaler{Mean: s.Mean, Scale: s.Scale, TargetMean: s.TargetMean, TargetScale: s.TargetScale}
		if err := CheckScaler(sc); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ScalerFile), err)
		}
		r.Scaler = sc
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return r, nil
}

// CheckScaler checks a standardisation read from a run directory (trusted no
// more than input): as many means as scales, every mean finite and every
// scale finite and positive. The error names the first bad entry (0-based
// index) and what was expected.
func CheckScaler(s *data.Scaler) error {
	if len(s.Mean) != len(s.Scale) {
		return fmt.Errorf("%d means but %d scales: expected one of each per feature", len(s.Mean), len(s.Scale))
	}
	for j, m := range s.Mean {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return fmt.Errorf("mean[%d] = %v: expected a finite number", j, m)
		}
	}
	for j, v := range s.Scale {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("scale[%d] = %v: expected a finite positive number", j, v)
		}
	}
	if math.IsNaN(s.TargetMean) || math.IsInf(s.TargetMean, 0) {
		return fmt.Errorf("target_mean = %v: expected a finite number", s.TargetMean)
	}
	if !(s.TargetScale >= 0) || math.IsInf(s.TargetScale, 0) {
		return fmt.Errorf("target_scale = %v: expected a finite positive number (0: the target is not standardised)", s.TargetScale)
	}
	return nil
}

// switchList returns the chain files listed by DIR/SwitchFile, nil if
// there is none.
func switchList(dir string) (map[string]bool, error) {
	path := filepath.Join(dir, SwitchFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	b, err := readBounded(path, false)
	if err != nil {
		return nil, err
	}
	list := map[string]bool{}
	for _, name := range strings.Split(string(b), "\n") {
		if name == "" {
			continue
		}
		if !chainName.MatchString(name) {
			return nil, fmt.Errorf("%s: %s is not a chain file: expected the list langevin writes while it switches the chain files to the kept draws", path, quoteShort(name))
		}
		list[name] = true
	}
	return list, nil
}

// isRegular reports whether path is a regular file.
func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// quoteShort quotes s, shortened to 40 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "..."
	}
	return strconv.Quote(s)
}

// openRegular opens path for reading if it is a regular file (or a symbolic
// link to one): a FIFO, a device or a directory in place of a run's file is
// refused at once, never read (opening a FIFO would wait for a writer).
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): expected a file a run wrote", path, st.Mode().Type())
	}
	return os.Open(path)
}

// maxRunFile bounds the size of model.json and scaler.json as read: far
// above any a run writes (a network's spec, a million features' scales).
const maxRunFile = 256 << 20

// readMaybeGz reads path, or path.gz decompressed, refusing a file that is
// not regular or holds more than maxRunFile bytes.
func readMaybeGz(path string) ([]byte, error) {
	b, err := readBounded(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		if b, gerr := readBounded(path+".gz", true); !errors.Is(gerr, fs.ErrNotExist) {
			return b, gerr
		}
	}
	return b, err
}

// readBounded reads path whole (gunzipped if gz), at most maxRunFile bytes.
func readBounded(path string, gz bool) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		r = zr
	}
	b, err := io.ReadAll(io.LimitReader(r, maxRunFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(b) > maxRunFile {
		return nil, fmt.Errorf("%s: more than %d MiB: not a file a run wrote", path, maxRunFile>>20)
	}
	return b, nil
}

// ReadFiles reads the given chain files as the chains of one run, in order:
// files written by Writer, by an older langevin or by CmdStan. Warm-up draws
// come from the files themselves when saved there (save_warmup = 1).
func ReadFiles(paths ...string) (*Run, error) {
	if len(paths) == 0 {
		return nil, errors.New("rundir: no chain files")
	}
	return readChains(paths, func(int) string { return "" })
}

func readChains(paths []string, warmupPath func(k int) string) (*Run, error) {
	r := &Run{Trace: &langevin.Trace{}}
	tr := r.Trace
	var cols []string
	runID := ""
	type pending struct {
		f    *stancsv.File
		warm [][]float64
	}
	files := make([]pending, len(paths))
	first := -1 // index of the first file with a header
	for i, p := range paths {
		f, torn, err := readStan(p)
		if err != nil {
			return nil, err
		}
		ch := Chain{Path: p, Status: "unfinished", Torn: torn}
		if f == nil {
			r.Chains = append(r.Chains, ch)
			continue
		}
		ch.Status = status(f)
		r.Chains = append(r.Chains, ch)
		if first < 0 {
			first = i
			cols = f.Columns
			runID = f.Config["run_id"]
		} else {
			if !slices.Equal(cols, f.Columns) {
				return nil, fmt.Errorf("%s: columns differ from %s's", p, paths[first])
			}
			if id := f.Config["run_id"]; id != runID {
				return nil, fmt.Errorf("%s: written by another run than %s (run_id %s, not %s)", p, paths[first], orNone(id), orNone(runID))
			}
			f0 := files[first].f
			for _, key := range []string{"thin", "num_warmup"} {
				if a, b := f0.Config[key], f.Config[key]; a != b {
					return nil, fmt.Errorf("%s: %s = %s but %s has %s = %s: %w", p, key, orNone(b), paths[first], key, orNone(a), ErrMixed)
				}
			}
		}
		files[i].f = f
		files[i].warm = f.Warmup
		if wp := warmupPath(i + 1); wp != "" {
			wf, _, err := readStan(wp)
			if err != nil {
				return nil, err
			}
			if wf != nil {
				if !slices.Equal(cols, wf.Columns) {
					return nil, fmt.Errorf("%s: columns differ from %s's", wp, p)
				}
				if id := wf.Config["run_id"]; id != runID {
					return nil, fmt.Errorf("%s: written by another run than %s (run_id %s, not %s)", wp, p, orNone(id), orNone(runID))
				}
				files[i].warm = append(wf.Warmup, wf.Draws...)
			}
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("%s: no header line yet: the run has written nothing", paths[0])
	}
	f0 := files[first].f
	r.Config = f0.Config
	r.Settings = settings(f0)
	for _, c := range cols {
		if strings.HasSuffix(c, "__") {
			tr.StatNames = append(tr.StatNames, c)
		} else {
			tr.Names = append(tr.Names, c)
		}
	}
	tr.Dim = len(tr.Names)
	// The header's counts are trusted no more than input: an absent one
	// takes CmdStan's default, a present one must be a count.
	thin, err := headerCount(f0, paths[first], "thin", 1, 1)
	if err != nil {
		return nil, err
	}
	burn, err := headerCount(f0, paths[first], "num_warmup", 0, 0)
	if err != nil {
		return nil, err
	}
	tr.Thin, tr.BurnIn = thin, burn
	split := func(rows [][]float64, firstIter int) ([][]float64, [][]float64, []int) {
		theta := make([][]float64, len(rows))
		stats := make([][]float64, len(rows))
		iters := make([]int, len(rows))
		np, ns := len(tr.Names), len(tr.StatNames)
		for t, row := range rows {
			th, st := make([]float64, 0, np), make([]float64, 0, ns)
			for k, c := range cols {
				if strings.HasSuffix(c, "__") {
					st = append(st, row[k])
				} else {
					th = append(th, row[k])
				}
			}
			theta[t], stats[t] = th, st
			iters[t] = firstIter + t*tr.Thin
		}
		return theta, stats, iters
	}
	for _, pf := range files {
		var draws, warm [][]float64
		if pf.f != nil {
			draws, warm = pf.f.Draws, pf.warm
		}
		th, st, it := split(draws, tr.BurnIn+1)
		tr.Draws = append(tr.Draws, th)
		tr.Stats = append(tr.Stats, st)
		tr.Iters = append(tr.Iters, it)
		wth, wst, wit := split(warm, 1)
		tr.Warmup = append(tr.Warmup, langevin.Draws{Theta: wth, Stats: wst, Iters: wit})
	}
	return r, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// readStan reads a Stan CSV file, plain or gzip-compressed, up to its last
// whole line. It returns a nil File for a file with no header line yet.
func readStan(path string) (*stancsv.File, bool, error) {
	fh, err := openRegular(path)
	if err != nil {
		return nil, false, err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, fmt.Errorf("%s: gzip: %v", path, err)
		}
		defer zr.Close()
		src = zr
	}
	wl := &wholeLines{r: src}
	var head bytes.Buffer
	f, err := stancsv.Read(io.TeeReader(wl, &limitedBuffer{&head, 1 << 16}), path)
	if err != nil {
		if !hasHeader(head.Bytes()) {
			return nil, wl.torn, nil // nothing but comments so far
		}
		return nil, false, err
	}
	return f, wl.torn, nil
}

// hasHeader reports whether the start of a Stan CSV file holds a line that
// is not a comment or blank.
func hasHeader(b []byte) bool {
	for _, line := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			return true
		}
	}
	return false
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if k := l.n - l.b.Len(); k > 0 {
		l.b.Write(p[:min(k, len(p))])
	}
	return len(p), nil
}

// status returns the status of a chain file from its closing comment.
func status(f *stancsv.File) string {
scan:
	for i := len(f.Comments) - 1; i >= 0; i-- {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f.Comments[i]), "#"))
		switch {
		case t == "Run finished":
			return "finished"
		case strings.HasPrefix(t, "Run stopped:"):
			return "stopped: " + strings.TrimSpace(strings.TrimPrefix(t, "Run stopped:"))
		case t == "" || strings.Contains(t, "seconds") || strings.HasPrefix(t, "Elapsed Time"):
			continue // the timing block
		}
		break scan
	}
	if isCmdStan(f) {
		return "finished" // CmdStan's own files end with the timing block
	}
	return "unfinished"
}

// isCmdStan reports whether f was written by CmdStan or by an older
// langevin without status lines: a timing block, and no run_id.
func isCmdStan(f *stancsv.File) bool {
	if _, ok := f.Config["run_id"]; ok {
		return false
	}
	for _, c := range f.Comments {
		if strings.Contains(c, "Elapsed Time") {
			return true
		}
	}
	return false
}

// wholeLines passes on its input up to the last "\n"; a last line without
// one is dropped, and torn set unless it is a comment (a padding line cut
// by a kill at a page boundary: no draw is lost).
type wholeLines struct {
	r     io.Reader
	ready []byte // whole lines to pass on
	tail  []byte // bytes after the last "\n" read so far
	buf   [64 << 10]byte
	err   error
	torn  bool
}

func (w *wholeLines) Read(p []byte) (int, error) {
	for len(w.ready) == 0 {
		if w.err != nil {
			if len(w.tail) > 0 {
				w.torn, w.tail = w.tail[0] != '#', nil
			}
			return 0, w.err
		}
		n, err := w.r.Read(w.buf[:])
		w.err = err
		chunk := w.buf[:n]
		i := bytes.LastIndexByte(chunk, '\n')
		if i < 0 {
			if len(w.tail) > stancsv.MaxLineBytes {
				// Pass an over-long line on: the reader rejects it.
				w.ready, w.tail = w.tail, nil
			}
			w.tail = append(w.tail, chunk...)
			continue
		}
		w.ready = append(append(w.ready[:0], w.tail...), chunk[:i+1]...)
		w.tail = append(w.tail[:0], chunk[i+1:]...)
	}
	n := copy(p, w.ready)
	w.ready = w.ready[n:]
	return n, nil
}

// settings returns the configuration comments before the draws in file
// order, without CmdStan's bookkeeping keys.
func settings(f *stancsv.File) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, line := range f.Comments {
		l := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if strings.HasPrefix(l, "Adaptation terminated") {
			break
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || strings.Contains(k, " ") || seen[k] {
			continue
		}
		switch k {
		case "id", "method", "random", "output", "file", "save_warmup", "sample", "run_id":
			continue
		}
		seen[k] = true
		out = append(out, [2]string{k, stancsv.UnescapeValue(strings.TrimSuffix(v, " (Default)"))})
	}
	return out
}

// headerCount returns the configuration value key of f as a count of at
// least lo (def if absent), or an error naming the file, the key and what
// was expected.
func headerCount(f *stancsv.File, path, key string, def, lo int) (int, error) {
	v, ok := f.Config[key]
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > 1<<40 {
		return 0, fmt.Errorf("%s: header: %s = %q: expected a whole number from %d to 2^40", path, key, v, lo)
	}
	return n, nil
}
