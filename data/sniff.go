package data

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strings"
)

// SniffFormat returns "libsvm" for a file whose name ends in .libsvm or .svm,
// or whose first line's fields after the first are all index:value pairs
// (gzip-compressed files are looked into), and "csv" otherwise, including
// when the file cannot be read (the reader then reports the error).
func SniffFormat(path string) string {
	if strings.HasSuffix(path, ".libsvm") || strings.HasSuffix(path, ".svm") {
		return "libsvm"
	}
	fh, err := os.Open(path)
	if err != nil {
		return "csv"
	}
	defer fh.Close()
	var r io.Reader = fh
	br := bufio.NewReader(fh)
	r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "csv" // the reader reports the error
		}
		r = zr
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(r, buf)
	line := string(buf[:n])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "csv"
	}
	for _, fl := range fields[1:] {
		if !strings.Contains(fl, ":") {
			return "csv"
		}
	}
	return "libsvm"
}
