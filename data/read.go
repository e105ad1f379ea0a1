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
	switch format {
	case "", "auto", "csv", "libsvm", "parquet", "store":
	default:
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("unknown format %q: expected csv, libsvm, parquet, store or auto", format)}
	}
	var r io.Reader
	name := path
	if path == "-" {
		r, name = os.Stdin, "standard input"
	} else {
		f, err := openFile(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if format == "" || format == "auto" {
		format = SniffFormat(br, path)
	}
	if format != "csv" && format != "parquet" {
		if typed := opt.ID != "" || len(opt.Drop) > 0 || len(opt.Categorical) > 0 || opt.Missing == MissingDrop || opt.Coding.HasText(); typed {
			return nil, &ParseError{File: name, Msg: format + " data: an ID column, dropped or categorical columns, dropped rows and text columns are read from delimited text (CSV) and Parquet only"}
		}
	}
	switch format {
	case "libsvm":
		return parseLIBSVM(br, name, 0, opt.MaxBytes)
	case "parquet", "store":
		if path == "-" {
			return nil, &ParseError{File: name, Msg: format + " data must be a file, not a stream"}
		}
		if format == "parquet" {
			return readParquetTable(path, opt)
		}
		st, err := OpenStore(path)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		if need := 8 * int64(st.Len()) * int64(st.Dim()+1); opt.MaxBytes > 0 && need > opt.MaxBytes {
			return nil, &ParseError{File: path, Msg: fmt.Sprintf("the store's %d rows × %d columns would hold %d MiB in memory, more than the bound of %d MiB (stream it instead)", st.Len(), st.Dim()+1, need>>20, opt.MaxBytes>>20), Err: ErrTooLarge}
		}
		if opt.Target != "" && opt.Target != st.Target() && opt.Target != "-1" {
			return nil, &ParseError{File: path, Msg: fmt.Sprintf("target %q: the store's target column is %q (chosen when it was written)", opt.Target, st.Target())}
		}
		return st.Dataset(), nil
	}
	return ParseCSV(br, name, opt)
}

// SniffFormat tells "parquet" and "store" by their magic bytes ("PAR1",
// "LVSTORE"), and "libsvm" from "csv" by the name (.libsvm, .svm, also
// before .gz) or else by the first non-blank line within the first 64 KiB of
// br, peeked at without consuming it: LIBSVM when every item after the first
// is index:value.
func SniffFormat(br *bufio.Reader, name string) string {
	if magic, _ := br.Peek(8); bytes.HasPrefix(magic, []byte("PAR1")) {
		return "parquet"
	} else if string(magic) == storeMagic {
		return "store"
	}
	base := strings.TrimSuffix(name, ".gz")
	if strings.HasSuffix(base, ".libsvm") || strings.HasSuffix(base, ".svm") {
		return "libsvm"
	}
	head, _ := br.Peek(br.Size())
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return "csv" // the reader reports the error
		}
		var buf [16 << 10]byte
		n, _ := io.ReadFull(zr, buf[:])
		head = buf[:n]
	}
	for _, line := range strings.Split(string(head), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		items := strings.Fields(line)
		if len(items) == 0 {
			continue
		}
		if len(items) < 2 {
			return "csv"
		}
		for _, it := range items[1:] {
			k, _, ok := strings.Cut(it, ":")
			if !ok || k == "" || strings.Trim(k, "0123456789") != "" {
				return "csv"
			}
		}
		return "libsvm"
	}
	return "csv"
}
