package rundir

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/langevin-go/langevin/stancsv"
)

// cutRecorder is a chain file that, after every change and at every page
// boundary inside every write, hands what a process killed at that moment
// would leave to check (Linux cuts a write or pwrite short on SIGKILL only
// at a page boundary of the file, and copies it in file order).
type cutRecorder struct {
	t     *testing.T
	f     *os.File
	img   []byte // the file's content
	off   int64  // the file offset
	check func(state []byte, what string)
}

// overlay returns a copy of img with p written at off.
func overlay(img []byte, off int64, p []byte) []byte {
	out := append([]byte(nil), img...)
	if need := int(off) + len(p); need > len(out) {
		out = append(out, make([]byte, need-len(out))...)
	}
	copy(out[off:], p)
	return out
}

func (r *cutRecorder) Write(p []byte) (int, error) {
	n, err := r.f.Write(p)
	for b := (r.off/pageSize + 1) * pageSize; b < r.off+int64(n); b += pageSize {
		r.check(overlay(r.img, r.off, p[:b-r.off]), fmt.Sprintf("write of %d bytes at %d cut at %d", len(p), r.off, b))
	}
	r.img = overlay(r.img, r.off, p[:n])
	r.off += int64(n)
	r.check(r.img, fmt.Sprintf("after a write of %d bytes", n))
	return n, err
}

func (r *cutRecorder) WriteAt(p []byte, off int64) (int, error) {
	n, err := r.f.WriteAt(p, off)
	for b := (off/pageSize + 1) * pageSize; b < off+int64(n); b += pageSize {
		r.check(overlay(r.img, off, p[:b-off]), fmt.Sprintf("WriteAt of %d bytes at %d cut at %d", len(p), off, b))
	}
	r.img = overlay(r.img, off, p[:n])
	r.check(r.img, fmt.Sprintf("after a WriteAt of %d bytes at %d", n, off))
	return n, err
}

func (r *cutRecorder) Truncate(size int64) error {
	r.img = overlay(r.img[:min(int64(len(r.img)), size)], size, nil)
	return r.f.Truncate(size)
}

func (r *cutRecorder) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart {
		r.t.Fatalf("Seek whence %d", whence)
	}
	r.off = off
	return r.f.Seek(off, whence)
}

func (r *cutRecorder) Close() error { return r.f.Close() }

// rowOfLength sets dst to values whose row, formatted by stancsv.Writer
// ("v1,v2,…\n", shortest 'g' format), is n bytes long, n in [2·len(dst),
// 19·len(dst)], and whose values depend on rng.
func rowOfLength(dst []float64, n int, rng *rand.Rand) {
	// valueOfLen(k) formats in k bytes, k in 1..18.
	valueOfLen := func(k int) float64 {
		digits := strconv.Itoa(1+rng.IntN(9)) + "12345678901234"
		var s string
		switch {
		case k <= 6: // an integer of k digits
			s = digits[:k]
		case k == 7:
			s = "-" + digits[:6]
		case k <= 17: // 0.d…d, at most 15 digits: shortest form is itself
			s = "0." + digits[:k-2]
		default:
			s = "-0." + digits[:15]
		}
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	extra := n - 2*len(dst) // beyond one byte per value and separator
	for i := range dst {
		e := min(extra, 17)
		dst[i] = valueOfLen(1 + e)
		extra -= e
	}
	if extra != 0 {
		panic("rowOfLength: n out of range")
	}
}

// checkCut reads state, the content of a chain file, as Read does: its
// last line must not be torn, every line other than comments must have
// ncol fields, and the draws must be the first rows of want, bit for bit
// (no row missing before a later one). It returns the number of draws.
func checkCut(path string, state []byte, want [][]float64, ncol int) (int, error) {
	if err := os.WriteFile(path, state, 0o644); err != nil {
		return 0, err
	}
	f, torn, err := readStan(path)
	if err != nil {
		return 0, err
	}
	if torn {
		tail := state[bytes.LastIndexByte(state, '\n')+1:]
		return 0, fmt.Errorf("ends in a torn row of %d bytes: %.20q", len(tail), tail)
	}
	for i, line := range bytes.SplitAfter(state, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(line) == 0 || line[len(line)-1] != '\n' || len(t) == 0 || t[0] == '#' {
			continue
		}
		if n := bytes.Count(t, []byte(",")) + 1; n != ncol {
			return 0, fmt.Errorf("line %d has %d fields, the header %d", i+1, n, ncol)
		}
	}
	if f == nil {
		return 0, nil
	}
	for i, row := range f.Draws {
		if i >= len(want) || !slices.EqualFunc(row, want[i], func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
			return i, fmt.Errorf("draw %d is not row %d as written", i+1, i+1)
		}
	}
	return len(f.Draws), nil
}

// TestLongRowsNeverTornByACut: rows from a fifth of a page to more than
// two pages, and a header longer than a page, written by flush and cut as a
// kill could cut them at any moment, never leave a torn row, a row missing
// before a later one, or a line with the wrong number of fields; the file
// reads back bit for bit. Cutting the finished file inside a long row
// instead is seen as a torn row, and a row made a comment before later rows
// as a gap (the check can fail).
func TestLongRowsNeverTornByACut(t *testing.T) {
	nrows := 60
	if testing.Short() {
		nrows = 24
	}
	dir := t.TempDir()
	scratch := filepath.Join(dir, "state.csv")
	names := []string{"lp__", "stepsize__"}
	for j := range 498 {
		names = append(names, "theta."+strconv.Itoa(j+1)) // a header of 4,900 bytes
	}
	ncol := len(names)
	// Rows of 1,000 to 9,500 bytes, among them the lengths at a page.
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{2 * ncol, pageSize - 1, pageSize, pageSize + 1, pageSize + 2, 2 * pageSize, 2*pageSize + 1, 19 * ncol}
	want := make([][]float64, nrows)
	for i := range want {
		n := 2*ncol + rng.IntN(17*ncol)
		if i < len(lengths) {
			n = lengths[i]
		} else if i%5 == 0 {
			n = pageSize - 8 + rng.IntN(16)
		}
		want[i] = make([]float64, ncol)
		rowOfLength(want[i], n, rng)
	}

	var (
		states, cutLong, lostLong int
		fails                     []string
	)
	check := func(state []byte, what string) {
		states++
		tail := state[bytes.LastIndexByte(state, '\n')+1:]
		if len(tail) > 1 && tail[0] == '#' && tail[1] != ' ' {
			cutLong++ // cut inside a long line written with '#'
		}
		if lines := bytes.Split(bytes.TrimSuffix(state, []byte("\n")), []byte("\n")); len(tail) == 0 && len(lines) > 0 {
			if l := lines[len(lines)-1]; len(l) > pageSize && l[0] == '#' && l[1] != ' ' {
				lostLong++ // a whole long row not yet given back its first byte
			}
		}
		if _, err := checkCut(scratch, state, want, ncol); err != nil && len(fails) < 5 {
			fails = append(fails, what+": "+err.Error())
		}
	}
	old := createFile
	defer func() { createFile = old }()
	createFile = func(path string) (file, error) {
		f, err := old(path)
		if err != nil {
			return nil, err
		}
		return &cutRecorder{t: t, f: f.(*os.File), check: check}, nil
	}
	path := filepath.Join(dir, "chain-1.csv")
	cf, err := newChainFile(path, stancsv.Config{Model: "wide", NumSamples: nrows}, names)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range want {
		if err := cf.write(row); err != nil {
			t.Fatal(err)
		}
		if i%4 == 3 || rng.IntN(3) == 0 { // flushes of 1 to 4 rows
			if err := cf.flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cf.close(1, 2, "Run finished"); err != nil {
		t.Fatal(err)
	}
	for _, f := range fails {
		t.Error(f)
	}
	t.Logf("%d states checked, %d cut inside a long line, %d ending in a long row without its first byte", states, cutLong, lostLong)
	if cutLong == 0 || lostLong == 0 {
		t.Errorf("no state cut inside a long row (%d) or ending before a first byte is put back (%d)", cutLong, lostLong)
	}

	// The finished file reads back bit for bit, every row.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, cf.f.(*cutRecorder).img) {
		t.Fatal("the recorder's image differs from the file")
	}
	if n, err := checkCut(scratch, b, want, ncol); err != nil || n != nrows {
		t.Fatalf("finished file: %d draws, %v; want %d", n, err, nrows)
	}
	f, err := stancsv.ReadFile(path)
	if err != nil || len(f.Draws) != nrows || len(f.Comments) > 40 {
		t.Fatalf("stancsv reads %d draws, %d comments: %v", len(f.Draws), len(f.Comments), err)
	}

	// The check can fail: the finished file cut inside its long rows (as
	// a write without the '#' would be) ends in a torn row, and a long row
	// left a comment before a later row is a missing draw.
	torn, long := 0, 0
	off := 0
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > pageSize && line[0] != '#' {
			long++
			for c := (off/pageSize + 1) * pageSize; c < off+len(line); c += pageSize {
				if _, err := checkCut(scratch, b[:c], want, ncol); err != nil {
					torn++
				} else {
					t.Errorf("cut at %d inside the row at %d not seen as torn", c, off)
				}
			}
		}
		off += len(line)
	}
	if long < nrows/3 || torn < long {
		t.Errorf("%d long rows, %d cuts seen as torn", long, torn)
	}
	first, header := 0, false // the offset of the first row
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > 0 && line[0] != '#' {
			if header {
				break
			}
			header = true
		}
		first += len(line)
	}
	gap := overlay(b, int64(first), []byte("#"))
	if _, err := checkCut(scratch, gap, want, ncol); err == nil {
		t.Errorf("a row made a comment before later rows is not seen")
	}
}

// BenchmarkFlush: the cost of writing 64 pending rows of 1 + 20 values
// (short, about 400 bytes: padding only) or 1 + 400 values (long, about
// 8 KiB: one write and one WriteAt per row).
func BenchmarkFlush(b *testing.B) {
	for _, bc := range []struct {
		name string
		dim  int
	}{{"short", 20}, {"long", 400}} {
		b.Run(bc.name, func(b *testing.B) {
			names := []string{"lp__"}
			for j := range bc.dim {
				names = append(names, "theta."+strconv.Itoa(j+1))
			}
			cf, err := newChainFile(filepath.Join(b.TempDir(), "chain-1.csv"), stancsv.Config{Model: "bench"}, names)
			if err != nil {
				b.Fatal(err)
			}
			defer cf.f.Close()
			rng := rand.New(rand.NewPCG(1, 2))
			row := make([]float64, len(names))
			for range 64 {
				for j := range row {
					row[j] = rng.NormFloat64()
				}
				cf.sw.Write(row)
			}
			cf.sw.Flush()
			batch := slices.Clone(cf.pending.b)
			cf.pending.b = cf.pending.b[:0]
			cf.pending.b = append(cf.pending.b, batch...)
			if err := cf.flush(); err != nil { // warm-up: the buffers grow
				b.Fatal(err)
			}
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				if cf.size > 64<<20 { // keep the file small
					b.StopTimer()
					cf.f.Truncate(0)
					cf.f.Seek(0, io.SeekStart)
					cf.size = 0
					b.StartTimer()
				}
				cf.pending.b = append(cf.pending.b, batch...)
				if err := cf.flush(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
