package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadFile reads a data file of the given format: "csv" (see ParseCSV, with
// opt), "libsvm" (see ParseLIBSVM, with the dimension taken from the data),
// "parquet" (see ReadParquet: every column, the target named by opt.Target or
// the last), "store" (a Store written by WriteStore, read whole into memory),
// or "" or "auto" to tell them apart from the content (see SniffFormat).
// The path "-" reads standard input. The file is opened and read once, so
// that a pipe, a FIFO or /dev/stdin works as well as a regular file;
// gzip-compressed input is decompressed. All errors are of type *ParseError.
func ReadFile(path, format string, opt CSVOptions) (*Dataset, error) {
	if format != "" && format != "auto" && LookupFormat(format) == nil {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("unknown format %q: expected %s", format, formatList(append(Formats(), "auto")))}
	}
	br, name, format, closeFile, err := openSniffed(path, format)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	f := LookupFormat(format)
	if !f.Typed {
		if typed := opt.ID != "" || len(opt.Drop) > 0 || len(opt.Categorical) > 0 || opt.Missing == MissingDrop || opt.Coding.HasText(); typed {
			var typed []string
			for _, n := range Formats() {
				if g := LookupFormat(n); g.Typed {
					typed = append(typed, g.Title)
				}
			}
			return nil, &ParseError{File: name, Msg: format + " data: an ID column, dropped or categorical columns, dropped rows and text columns are read from " + strings.Join(typed, " and ") + " only"}
		}
	}
	if f.FileOnly && path == "-" {
		return nil, &ParseError{File: name, Msg: format + " data must be a file, not a stream"}
	}
	return f.Read(br, path, name, opt)
}

// SniffFormat tells a file's format by the table of formats: by the magic
// bytes of its first 8 bytes (parquet: "PAR1", store: "LVSTORE"), then by
// its name (.libsvm, .svm, also before .gz), then by the first non-blank
// line within the first 64 KiB of br (decompressed), peeked at without
// consuming it (LIBSVM when every item after the first is index:value);
// else the table's last row, "csv".
func SniffFormat(br *bufio.Reader, name string) string {
	magic, _ := br.Peek(8)
	for _, f := range formats {
		if f.Magic != nil && f.Magic(magic) {
			return f.Name
		}
	}
	base := strings.TrimSuffix(name, ".gz")
	for _, f := range formats {
		for _, suf := range f.Suffixes {
			if strings.HasSuffix(base, suf) {
				return f.Name
			}
		}
	}
	last := formats[len(formats)-1].Name
	head, _ := br.Peek(br.Size())
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return last // the reader reports the error
		}
		var buf [16 << 10]byte
		n, _ := io.ReadFull(zr, buf[:])
		head = buf[:n]
	}
	for _, f := range formats {
		if f.Sniff != nil && f.Sniff(head) {
			return f.Name
		}
	}
	return last
}

// openSniffed opens path ("-": standard input, named so) for one buffered
// pass and resolves format "" or "auto" from the content (SniffFormat).
// closeFile closes the file; it is a no-op for standard input.
func openSniffed(path, format string) (br *bufio.Reader, name, resolved string, closeFile func(), err error) {
	var r io.Reader = os.Stdin
	name, closeFile = "standard input", func() {}
	if path != "-" {
		f, err := openFile(path)
		if err != nil {
			return nil, "", "", nil, err
		}
		r, name, closeFile = f, path, func() { f.Close() }
	}
	br = bufio.NewReaderSize(r, 64<<10)
	if format == "" || format == "auto" {
		format = SniffFormat(br, path)
	}
	return br, name, format, closeFile, nil
}
