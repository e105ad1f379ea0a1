package data

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// openFile opens path for reading, converting failures into a *ParseError
// that wraps the original error (so errors.Is(err, fs.ErrNotExist) works).
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, &ParseError{File: path, Msg: msg, Err: err}
	}
	return f, nil
}

// lineReader reads lines from a possibly gzip-compressed stream, stripping
// "\n" or "\r\n" line ends and a leading UTF-8 byte order mark, and counting
// lines from 1.
type lineReader struct {
	br   *bufio.Reader
	name string
	n    int // number of lines returned so far
	done bool

	gzipped bool // input is gzip-compressed
}

// newLineReader wraps r, transparently decompressing it if it starts with
// the gzip magic bytes 0x1f 0x8b.
func newLineReader(r io.Reader, name string) (*lineReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		in := &countReader{r: br}
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, &ParseError{File: name, Msg: "gzip: " + errMsg(err), Err: err}
		}
		return &lineReader{br: bufio.NewReaderSize(&bombGuard{zr: zr, in: in}, 64<<10), name: name, gzipped: true}, nil
	} else if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, &ParseError{File: name, Line: 1, Msg: "read error: " + err.Error(), Err: err}
	}
	return &lineReader{br: br, name: name}, nil
}

// MaxGzipRatio and bombFloor bound how far a gzip stream may expand: past
// bombFloor bytes of text, more than MaxGzipRatio bytes out for every byte
// in is refused as a gzip bomb. CSV text of numbers compresses 3–20× and
// DEFLATE at most about 1032×; a 5 MB file that claimed gigabytes of rows
// was read to the memory bound (peak RSS 5.7 GB on a 24 GB machine) before.
const MaxGzipRatio = 200

var bombFloor int64 = 64 << 20 // a variable for tests

// ErrGzipBomb is wrapped by the error of a gzip stream that expands more
// than MaxGzipRatio times.
var ErrGzipBomb = errors.New("a gzip bomb")

// countReader counts the bytes read through it (the compressed stream).
type countReader struct {
	r *bufio.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ReadByte makes countReader an io.ByteReader, so that the decompressor
// reads exactly what it needs (no read-ahead of its own).
func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// bombGuard is the decompressed stream, failing with ErrGzipBomb once it
// has given more than bombFloor bytes and MaxGzipRatio times the compressed
// bytes read.
type bombGuard struct {
	zr  io.Reader
	in  *countReader
	out int64
}

func (g *bombGuard) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.out += int64(n)
	if g.out > bombFloor && g.out > MaxGzipRatio*max(g.in.n, 1) {
		return n, fmt.Errorf("%d MiB of text from %d KiB compressed: more than %d× is %w, not data (if it is data, decompress it with gunzip first)",
			g.out>>20, g.in.n>>10, MaxGzipRatio, ErrGzipBomb)
	}
	return n, err
}

// errMsg returns the message of err without a "gzip: " prefix.
func errMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "gzip: ")
}

// MaxLineBytes is the longest line the text readers accept, line end
// included: 16 MiB, a row of about a million numbers. A longer line is an
// error, found without holding more than this in memory.
const MaxLineBytes = 16 << 20

// next returns the next line and its 1-based number. ok is false at the end
// of the input.
func (lr *lineReader) next() (text string, line int, ok bool, err error) {
	if lr.done {
		return "", 0, false, nil
	}
	b, rerr := lr.br.ReadSlice('\n')
	var s string
	if rerr == bufio.ErrBufferFull {
		buf := append([]byte(nil), b...)
		for rerr == bufio.ErrBufferFull && len(buf) <= MaxLineBytes {
			b, rerr = lr.br.ReadSlice('\n')
			buf = append(buf, b...)
		}
		if len(buf) > MaxLineBytes {
			lr.done = true
			return "", 0, false, &ParseError{File: lr.name, Line: lr.n + 1,
				Msg: fmt.Sprintf("line longer than %d MiB: not a data file of rows of numbers, or lines end in a character other than \\n", MaxLineBytes>>20)}
		}
		s = string(buf)
	} else {
		s = string(b)
	}
	if rerr != nil {
		if rerr != io.EOF {
			lr.done = true
			msg := "read error: " + rerr.Error()
			if lr.gzipped {
				msg = "gzip: " + errMsg(rerr)
			}
			return "", 0, false, &ParseError{File: lr.name, Line: lr.n + 1, Msg: msg, Err: rerr}
		}
		lr.done = true
		if s == "" {
			return "", 0, false, nil
		}
	}
	lr.n++
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	if lr.n == 1 {
		s = strings.TrimPrefix(s, "\uFEFF")
	}
	return s, lr.n, true, nil
}

// isBlank reports whether s holds only white space.
func isBlank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// parseValue parses a numeric cell. On failure it returns a message for a
// ParseError.
func parseValue(s string) (float64, string) {
	if s == "" {
		return 0, "missing value (empty field)"
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
			return 0, fmt.Sprintf("%s is out of range for float64", quote(s))
		}
		return 0, fmt.Sprintf("cannot parse %s as a number", quoteValue(s))
	}
	switch {
	case math.IsNaN(v):
		return 0, "NaN is not allowed"
	case math.IsInf(v, 0):
		return 0, "Inf is not allowed"
	}
	return v, ""
}

// quoteValue returns a field's content quoted, shortened to 12 characters
// and "...": an error shows enough of a field to recognise it (the file,
// line and column name it), never a whole line of a file that is not data
// (a mistyped path to /etc/passwd).
func quoteValue(s string) string {
	if r := []rune(s); len(r) > 12 {
		return strconv.Quote(string(r[:12])) + "..."
	}
	return strconv.Quote(s)
}

// quote returns s quoted with strconv.Quote, shortened if it is long.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		r := []rune(s)
		if len(r) > max {
			return strconv.Quote(string(r[:max])) + "..."
		}
	}
	return strconv.Quote(s)
}
