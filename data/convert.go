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
	switch format {
	case "", "auto":
		f, err := openFile(in)
		if err != nil {
			return 0, err
		}
		format = SniffFormat(bufio.NewReaderSize(f, 64<<10), in)
		f.Close()
	case "csv", "parquet":
	default:
		return 0, &ParseError{File: in, Msg: fmt.Sprintf("format %q: expected csv, parquet or auto", format)}
	}
	var src interface {
		BlockSource
		Close() error
	}
	switch format {
	case "csv":
		c, err := OpenCSV(in, opt.CSV)
		if err != nil {
			return 0, err
		}
		src = c
	case "parquet":
		p, err := OpenParquet(in, ParquetOptions{Target: opt.CSV.Target})
		if err != nil {
			return 0, err
		}
		src = p
	default:
		return 0, &ParseError{File: in, Msg: fmt.Sprintf("a %s file: expected CSV or Parquet", format)}
	}
	defer src.Close()
	if st, err := os.Stat(out); err == nil {
		if st2, err := os.Stat(in); err == nil && os.SameFile(st, st2) {
			return 0, fmt.Errorf("%s: the output would overwrite the input", out)
		}
	}
	return WriteStore(out, src, StoreOptions{Float32: opt.Float32, Source: in})
}
