package data

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// A Store is a table of numbers in a compact binary file that is memory-mapped
// rather than read: a model that draws minibatches reads only the rows it
// draws, and a pass over all rows streams through the file in blocks, so data
// larger than memory can be sampled. It is written once, from CSV or Parquet,
// by WriteStore, in float32 (half the size, 7 significant digits) or float64
// (exact), chosen per file.
//
// # File format (version 1, little-endian)
//
//	offset  size  field
//	0       8     magic "LVSTORE\x00"
//	8       4     version (1)
//	12      4     bytes per value: 4 (float32) or 8 (float64)
//	16      8     rows n
//	24      4     features p
//	28      4     offset of the data, a multiple of 4096
//	32      4     length of the metadata
//	36      …     metadata, JSON: {"names": [p names], "target": name, "source": file}
//	data    …     n records of p features then the response, IEEE 754
//
// The records are rows, not columns: a minibatch row is one contiguous record
// of (p+1)·4 or (p+1)·8 bytes, so drawing it touches one page of the file
// (a column layout would touch p+1 pages per row), and a full pass reads the
// file front to back.
//
// # Memory
//
// By default a Store reads its rows with pread(2) (os.File.ReadAt) into a
// small buffer: the resident set holds no page of the file, whatever the
// number of rows drawn, and the operating system's page cache does the
// caching. Map switches a Store to memory-mapped reads (mmap(2), on Linux):
// rows are then decoded straight from the mapping. Pages of a mapped file
// that a process has touched count in its resident set until they are
// handed back, although they belong to the page cache; so that the resident
// set stays small, a mapped Store hands pages back with
// madvise(MADV_DONTNEED) after each block of a full pass and whenever the
// rows read at random have touched Budget bytes of pages (the data stay in the
// page cache; a later read maps them again), and it advises MADV_RANDOM so
// that a random read maps one page, not its neighbours too. Measured on a
// 2-core virtual machine (docs/scaling-out.md), page faults cost more than
// pread's copy: minibatch SGLD ran 2–9× faster with pread at 10⁷ rows, hence
// the default. A Store is safe for concurrent use.
type Store struct {
	name   string
	f      *os.File
	n, p   int
	elem   int   // bytes per value
	rec    int   // bytes per record
	off    int64 // offset of the data in the file
	names  []string
	target string
	source string

	mapping []byte // the whole file when mapped, else nil
	data    []byte // mapping[off:]

	// Budget is, for a mapped Store, the number of bytes of pages touched by
	// random reads after which the Store hands its pages back (default
	// 64 MiB). math.MaxInt64 keeps every page it has touched, those of full
	// passes too: for a file that fits in memory, where handing the pages
	// back would only make the next pass fault them in again.
	Budget  int64
	touched atomic.Int64
}

const (
	storeMagic   = "LVSTORE\x00"
	storeVersion = 1
	storeHeader  = 36
	storePage    = 4096
	storeBlock   = 1 << 14 // rows per block when writing and in full passes
)

type storeMeta struct {
	Names  []string `json:"names"`
	Target string   `json:"target"`
	Source string   `json:"source,omitempty"`
}

// BlockSource is a table read block by block: CSVFile and ParquetFile.
type BlockSource interface {
	Names() []string
	Target() string
	// Next reads up to len(y) rows into x (row-major) and y and returns how
	// many; 0 and io.EOF after the last row.
	Next(x, y []float64) (int, error)
}

// StoreOptions controls WriteStore.
type StoreOptions struct {
	// Float32 stores values in single precision: half the size, a relative
	// rounding error of at most 2⁻²⁴ ≈ 6e-8 per value. The default stores
	// float64, exactly.
	Float32 bool
	// Source names the original data, for messages.
	Source string
}

// WriteStore writes the rows of src to a new Store file at path and returns
// the number of rows. The file is written under a temporary name and renamed
// when complete, so a reader never sees half a file. Values too large for
// float32 give an error naming the row and column.
func WriteStore(path string, src BlockSource, opt StoreOptions) (int, error) {
	names := src.Names()
	p := len(names)
	elem := 8
	if opt.Float32 {
		elem = 4
	}
	meta, err := json.Marshal(storeMeta{Names: names, Target: src.Target(), Source: opt.Source})
	if err != nil {
		return 0, err
	}
	off := (storeHeader + len(meta) + storePage - 1) / storePage * storePage
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	fail := func(err error) (int, error) {
		f.Close()
		os.Remove(tmp)
		return 0, err
	}
	hdr := make([]byte, off)
	copy(hdr, storeMagic)
	binary.LittleEndian.PutUint32(hdr[8:], storeVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(elem))
	binary.LittleEndian.PutUint32(hdr[24:], uint32(p))
	binary.LittleEndian.PutUint32(hdr[28:], uint32(off))
	binary.LittleEndian.PutUint32(hdr[32:], uint32(len(meta)))
	copy(hdr[storeHeader:], meta)
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(hdr); err != nil {
		return fail(err)
	}
	x := make([]float64, storeBlock*p)
	y := make([]float64, storeBlock)
	rec := make([]byte, (p+1)*elem)
	rows := 0
	for {
		m, err := src.Next(x, y)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		for i := 0; i < m; i++ {
			row := x[i*p : (i+1)*p]
			for j := 0; j <= p; j++ {
				v := y[i]
				if j < p {
					v = row[j]
				}
				if elem == 4 {
					f32 := float32(v)
					if math.IsInf(float64(f32), 0) {
						col := src.Target()
						if j < p {
							col = names[j]
						}
						return fail(&ParseError{File: opt.Source, Msg: fmt.Sprintf("row %d, column %q: %v is out of range for float32 (store float64 instead)", rows+i+1, col, v)})
					}
					binary.LittleEndian.PutUint32(rec[j*4:], math.Float32bits(f32))
				} else {
					binary.LittleEndian.PutUint64(rec[j*8:], math.Float64bits(v))
				}
			}
			if _, err := w.Write(rec); err != nil {
				return fail(err)
			}
		}
		rows += m
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	var nb [8]byte
	binary.LittleEndian.PutUint64(nb[:], uint64(rows))
	if _, err := f.WriteAt(nb[:], 16); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return rows, os.Rename(tmp, path)
}

// IsStore reports whether the file at path starts with the Store magic bytes.
func IsStore(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [8]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == storeMagic
}

// OpenStore opens a Store file and maps it into memory. Errors are of type
// *ParseError.
func OpenStore(path string) (*Store, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	s, err := openStore(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func openStore(f *os.File, path string) (*Store, error) {
	perr := func(format string, args ...any) error {
		return &ParseError{File: path, Msg: fmt.Sprintf(format, args...)}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, &ParseError{File: path, Msg: err.Error(), Err: err}
	}
	var hdr [storeHeader]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil || string(hdr[:8]) != storeMagic {
		return nil, perr("not a langevin store (expected the magic bytes %q at the start)", storeMagic[:7])
	}
	le := binary.LittleEndian
	if v := le.Uint32(hdr[8:]); v != storeVersion {
		return nil, perr("store format version %d: this program reads version %d", v, storeVersion)
	}
	s := &Store{name: path, f: f, elem: int(le.Uint32(hdr[12:])), p: int(le.Uint32(hdr[24:])), off: int64(le.Uint32(hdr[28:])), Budget: 64 << 20}
	n := le.Uint64(hdr[16:])
	mlen := int64(le.Uint32(hdr[32:]))
	if s.elem != 4 && s.elem != 8 {
		return nil, perr("%d bytes per value: expected 4 or 8", s.elem)
	}
	if s.off%storePage != 0 || storeHeader+mlen > s.off || s.off > st.Size() {
		return nil, perr("corrupt header (data offset %d, metadata length %d, file size %d)", s.off, mlen, st.Size())
	}
	s.rec = (s.p + 1) * s.elem
	if want := s.off + int64(n)*int64(s.rec); n > uint64(math.MaxInt64/int64(s.rec)) || want != st.Size() {
		return nil, perr("file has %d bytes, the header promises %d rows of %d bytes after %d: truncated or corrupt", st.Size(), n, s.rec, s.off)
	}
	s.n = int(n)
	mb := make([]byte, mlen)
	if _, err := f.ReadAt(mb, storeHeader); err != nil {
		return nil, perr("reading the metadata: %v", err)
	}
	var meta storeMeta
	if err := json.Unmarshal(mb, &meta); err != nil || len(meta.Names) != s.p {
		return nil, perr("corrupt metadata (%d names for %d features)", len(meta.Names), s.p)
	}
	s.names, s.target, s.source = meta.Names, meta.Target, meta.Source
	return s, nil
}

// Len returns the number of rows n.
func (s *Store) Len() int { return s.n }

// Dim returns the number of features p.
func (s *Store) Dim() int { return s.p }

// Names returns the feature names.
func (s *Store) Names() []string { return s.names }

// Target returns the name of the response column.
func (s *Store) Target() string { return s.target }

// Source returns the name of the data the store was written from.
func (s *Store) Source() string { return s.source }

// Float32 reports whether the values are stored in single precision.
func (s *Store) Float32() bool { return s.elem == 4 }

// Map switches s to memory-mapped reads, where the platform has mmap (Linux);
// elsewhere it leaves s reading with ReadAt. Call it before sharing s.
func (s *Store) Map() error {
	st, err := s.f.Stat()
	if err != nil {
		return &ParseError{File: s.name, Msg: err.Error(), Err: err}
	}
	if err := s.mmap(st.Size()); err != nil {
		return &ParseError{File: s.name, Msg: "mmap: " + err.Error(), Err: err}
	}
	return nil
}

// Mapped reports whether the file is memory-mapped (else rows are read with
// ReadAt).
func (s *Store) Mapped() bool { return s.mapping != nil }

// ReadRows writes rows lo, …, lo+len(y)−1: their features into x (row-major,
// len(y)·Dim() values) and their responses into y. It panics if the rows are
// out of range (a programming error), and allocates nothing.
func (s *Store) ReadRows(lo int, x, y []float64) {
	k := len(y)
	if lo < 0 || lo+k > s.n || len(x) < k*s.p {
		panic(fmt.Sprintf("data: Store.ReadRows: rows [%d, %d) of %d, len(x) = %d", lo, lo+k, s.n, len(x)))
	}
	if k == 0 {
		return
	}
	start := int64(lo) * int64(s.rec)
	end := start + int64(k)*int64(s.rec)
	if s.mapping == nil {
		s.readAt(start, end, x, y)
		return
	}
	s.decode(s.data[start:end], x, y)
	if s.Budget == math.MaxInt64 {
		return // every page kept (see Budget)
	}
	if end-start >= storePage*16 {
		s.release(start, end)
		return
	}
	// Random reads: count the pages touched and hand them all back now and
	// then. A fault may map up to 16 pages around the one read (Linux's
	// fault-around, which MADV_RANDOM does not always disable): count them.
	if t := s.touched.Add(end - start + 16*storePage); t > s.Budget {
		s.touched.Store(0)
		s.release(0, int64(len(s.data)))
	}
}

// nativeLE reports whether this machine is little-endian, as the file.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decode converts the records in b into x and y.
func (s *Store) decode(b []byte, x, y []float64) {
	p := s.p
	le := binary.LittleEndian
	if nativeLE && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(s.elem) == 0 {
		// The bytes are the values in this machine's order: read them as such.
		w := p + 1
		if s.elem == 4 {
			v := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(y)*w)
			for i := range y {
				r := v[i*w : (i+1)*w : (i+1)*w]
				row := x[i*p : (i+1)*p : (i+1)*p]
				for j := range row {
					row[j] = float64(r[j])
				}
				y[i] = float64(r[p])
			}
			return
		}
		v := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(y)*w)
		for i := range y {
			copy(x[i*p:(i+1)*p], v[i*w:i*w+p])
			y[i] = v[i*w+p]
		}
		return
	}
	if s.elem == 4 {
		for i := range y {
			r := b[i*s.rec : (i+1)*s.rec]
			row := x[i*p : (i+1)*p]
			for j := range row {
				row[j] = float64(math.Float32frombits(le.Uint32(r[4*j:])))
			}
			y[i] = float64(math.Float32frombits(le.Uint32(r[4*p:])))
		}
		return
	}
	for i := range y {
		r := b[i*s.rec : (i+1)*s.rec]
		row := x[i*p : (i+1)*p]
		for j := range row {
			row[j] = math.Float64frombits(le.Uint64(r[8*j:]))
		}
		y[i] = math.Float64frombits(le.Uint64(r[8*p:]))
	}
}

// Dataset reads the whole store into memory.
func (s *Store) Dataset() *Dataset {
	x := make([]float64, s.n*s.p)
	y := make([]float64, s.n)
	for lo := 0; lo < s.n; lo += storeBlock {
		hi := min(lo+storeBlock, s.n)
		s.ReadRows(lo, x[lo*s.p:hi*s.p], y[lo:hi])
	}
	ds := &Dataset{Y: y, Names: slices.Clone(s.names), Target: s.target, Source: s.name}
	if s.n > 0 && s.p > 0 {
		ds.X = mat.NewDense(s.n, s.p, x)
	} else {
		ds.X = &mat.Dense{}
	}
	return ds
}

// Close unmaps and closes the file.
func (s *Store) Close() error {
	err := s.munmap()
	return errors.Join(err, s.f.Close())
}

// readBufs holds the byte buffers of readAt.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readAt reads the bytes [start, end) of the data with ReadAt and decodes
// them (the fallback where the file is not mapped).
func (s *Store) readAt(start, end int64, x, y []float64) {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	if int64(cap(*bp)) < end-start {
		*bp = make([]byte, end-start)
	}
	b := (*bp)[:end-start]
	if _, err := s.f.ReadAt(b, s.off+start); err != nil {
		// The size was checked when opening: the file changed under us.
		panic(fmt.Sprintf("data: store %s: %v", s.name, err))
	}
	s.decode(b, x, y)
}
