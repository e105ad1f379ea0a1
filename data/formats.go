package data

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// A Format is one row of the table of data formats (Formats): its name, how
// it is told from a file's content, and how a file of it is read. A new
// format is one file (its reader) and one row of formats; ReadFile,
// SniffFormat, ConvertToStore and the command's --format flags all follow
// the table.
type Format struct {
	Name  string
	Title string // how messages name it
	// Magic, when not nil, tells the format by the file's first 8 bytes
	// (before any decompression).
	Magic func(head []byte) bool
	// Suffixes tell the format by the file's name (also before .gz).
	Suffixes []string
	// Sniff, when not nil, tells the format by the file's first bytes
	// (decompressed).
	Sniff func(head []byte) bool
	// Typed says that the format carries named, typed columns: an ID
	// column, dropped and categorical columns, rows with missing values
	// dropped and text columns are read from it (CSVOptions).
	Typed bool
	// FileOnly says that the format is read from a file, not a stream
	// (standard input).
	FileOnly bool
	// Read reads the whole data set: from br, the start of the file at path
	// (name is how errors name it).
	Read func(br *bufio.Reader, path, name string, opt CSVOptions) (*Dataset, error)
	// Open, when not nil, streams the file block by block (ConvertToStore).
	Open func(path string, opt CSVOptions) (ClosingSource, error)
}

// ClosingSource is a BlockSource over an open file.
type ClosingSource interface {
	BlockSource
	Close() error
}

// formats is the table of data formats, in the order SniffFormat tries
// them: by magic bytes, then by name, then by content; the last row, CSV,
// is what is left.
var formats = []Format{
	{Name: "parquet", Title: "Parquet", Magic: func(h []byte) bool { return bytes.HasPrefix(h, []byte("PAR1")) }, Typed: true, FileOnly: true,
		Read: func(_ *bufio.Reader, path, _ string, opt CSVOptions) (*Dataset, error) {
			return readParquetTable(path, opt)
		},
		Open: func(path string, opt CSVOptions) (ClosingSource, error) {
			return OpenParquet(path, ParquetOptions{Target: opt.Target})
		}},
	{Name: "store", Title: "a data store", Magic: func(h []byte) bool { return string(h) == storeMagic }, FileOnly: true, Read: readStoreFile},
	{Name: "libsvm", Title: "LIBSVM", Suffixes: []string{".libsvm", ".svm"}, Sniff: sniffLIBSVM,
		Read: func(br *bufio.Reader, _, name string, opt CSVOptions) (*Dataset, error) {
			return parseLIBSVM(br, name, 0, opt.MaxBytes)
		}},
	{Name: "csv", Title: "delimited text (CSV)", Typed: true,
		Read: func(br *bufio.Reader, _, name string, opt CSVOptions) (*Dataset, error) {
			return ParseCSV(br, name, opt)
		},
		Open: func(path string, opt CSVOptions) (ClosingSource, error) { return OpenCSV(path, opt) }},
}

// Formats returns the names of the data formats, in byte order.
func Formats() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	slices.Sort(names)
	return names
}

// StreamFormats returns the names of the formats that ConvertToStore
// streams, in byte order.
func StreamFormats() []string {
	var names []string
	for _, f := range formats {
		if f.Open != nil {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	return names
}

// LookupFormat returns the row of the format named name, or nil.
func LookupFormat(name string) *Format {
	for i := range formats {
		if formats[i].Name == name {
			return &formats[i]
		}
	}
	return nil
}

// formatList is "a, b, c or d" of names, in byte order ("auto" last).
func formatList(names []string) string {
	names = slices.Clone(names)
	slices.SortFunc(names, func(a, b string) int {
		if (a == "auto") != (b == "auto") {
			if a == "auto" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// readStoreFile reads a Store whole into memory (at most opt.MaxBytes).
func readStoreFile(_ *bufio.Reader, path, _ string, opt CSVOptions) (*Dataset, error) {
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

// sniffLIBSVM reports whether the first non-blank line of head is LIBSVM:
// every item after the first is index:value.
func sniffLIBSVM(head []byte) bool {
	for _, line := range strings.Split(string(head), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		items := strings.Fields(line)
		if len(items) == 0 {
			continue
		}
		if len(items) < 2 {
			return false
		}
		for _, it := range items[1:] {
			k, _, ok := strings.Cut(it, ":")
			if !ok || k == "" || strings.Trim(k, "0123456789") != "" {
				return false
			}
		}
		return true
	}
	return false
}
