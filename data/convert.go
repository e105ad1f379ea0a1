package data

import (
	"bufio"
	"fmt"
	"os"
)

// ConvertOptions controls ConvertToStore.
type ConvertOptions struct {
	// Format of the input: "csv", "parquet", or "" (or "auto") to tell them
	// apart by the content (see SniffFormat).
	Format string
	// CSV holds the CSV reading rules (and the target column of either
	// format).
	CSV CSVOptions
	// Float32 stores single precision (see StoreOptions).
	Float32 bool
}

// ConvertToStore writes the CSV (possibly gzip-compressed) or Parquet file
// in to a new Store at out, streaming one block of rows at a time, so that
// its memory does not grow with the file, and returns the number of rows.
// Errors name the file, line and column (CSV) or row and column (Parquet)
// and are of type *ParseError, except those of writing out.
func ConvertToStore(in, out string, opt ConvertOptions) (int, error) {
	format := opt.Format
	if format == "" || format == "auto" {
		f, err := openFile(in)
		if err != nil {
			return 0, err
		}
		format = SniffFormat(bufio.NewReaderSize(f, 64<<10), in)
		f.Close()
	} else if f := LookupFormat(format); f == nil || f.Open == nil {
		return 0, &ParseError{File: in, Msg: fmt.Sprintf("format %q: expected %s", format, formatList(append(StreamFormats(), "auto")))}
	}
	f := LookupFormat(format)
	if f.Open == nil {
		return 0, &ParseError{File: in, Msg: fmt.Sprintf("a %s file: expected %s", format, formatList(StreamFormats()))}
	}
	src, err := f.Open(in, opt.CSV)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if st, err := os.Stat(out); err == nil {
		if st2, err := os.Stat(in); err == nil && os.SameFile(st, st2) {
			return 0, fmt.Errorf("%s: the output would overwrite the input", out)
		}
	}
	return WriteStore(out, src, StoreOptions{Float32: opt.Float32, Source: in})
}
