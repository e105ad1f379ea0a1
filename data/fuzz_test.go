package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// checkFuzzResult checks the invariants of a reader's result: either a
// *ParseError or a consistent data set of finite values.
func checkFuzzResult(t *testing.T, d *Dataset, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %v is not a *ParseError", err, err)
		}
		if pe.Line < 0 || pe.Column < 0 || pe.Msg == "" {
			t.Fatalf("bad ParseError %#v", pe)
		}
		if d != nil {
			t.Fatal("non-nil Dataset with an error")
		}
		return
	}
	n, p := d.X.Dims()
	if n == 0 || p == 0 || n != len(d.Y) || p != len(d.Names) || n != d.Len() || p != d.Dim() {
		t.Fatalf("inconsistent shape: X %d×%d, %d responses, %d names", n, p, len(d.Y), len(d.Names))
	}
	for i := range n {
		for _, v := range d.X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v", v)
			}
		}
		if math.IsNaN(d.Y[i]) || math.IsInf(d.Y[i], 0) {
			t.Fatalf("non-finite response %v", d.Y[i])
		}
	}
	seen := map[string]bool{d.Target: true}
	for _, name := range d.Names {
		if seen[name] {
			t.Fatalf("duplicate name %q", name)
		}
		seen[name] = true
	}
}

func gzipSeed(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.Bytes()
}

func FuzzParseCSV(f *testing.F) {
	seeds := []string{
		"",
		"a,b,c\n1,2,3\n4,5,6\n",
		"a,b,c\r\n1,2,3\r\n4,5,6",
		"\"fixed acidity\";\"volatile acidity\";\"quality\"\n7.4;0.7;5\n",
		"x\ty\n1\t2\n\n\n",
		"  1 2  3\n4 5 6\n",
		"a,b\n1,NaN\n",
		"a,b\n1,-Inf\n",
		"a,b,a\n1,2,3\n",
		"a,b,c,d\n1,2,3\n",
		"a,b\n1,abc\n",
		"\"a\"\"b\",\"c\n1,2\n",
		"\"a\"x,b\n1,2\n",
		"\uFEFFa;b\n1,5;2\n",
		"a,,b\n1,,2\n",
		"y\n1\n",
		"a,b\n",
		"a,b\n1e400,2\n0x1p-2,3\n",
		string(gzipSeed("RMSD,F1\r\n1,2\r\n")),
		"\x1f\x8b\x08\x00",
	}
	for i, s := range seeds {
		target := ""
		switch i % 4 {
		case 1:
			target = "-1"
		case 2:
			target = "a"
		case 3:
			target = "2"
		}
		f.Add([]byte(s), target, i%5 == 0, byte(0))
	}
	f.Add([]byte("a|b\n1|2\n"), "", false, byte('|'))
	f.Add([]byte("a b\n1 2\n"), "b", false, byte(' '))
	f.Fuzz(func(t *testing.T, in []byte, target string, noHeader bool, delim byte) {
		opt := CSVOptions{Target: target, NoHeader: noHeader, Delimiter: rune(delim)}
		d, err := ParseCSV(bytes.NewReader(in), "fuzz", opt)
		checkFuzzResult(t, d, err)
		if err == nil && delim == 0 && !bytes.HasPrefix(in, []byte{0x1f, 0x8b}) {
			// Parsing is insensitive to the line ending style.
			crlf := strings.ReplaceAll(strings.ReplaceAll(string(in), "\r\n", "\n"), "\n", "\r\n")
			if !strings.ContainsRune(string(in), '\r') {
				d2, err := ParseCSV(strings.NewReader(crlf), "fuzz", opt)
				if err != nil {
					t.Fatalf("LF input parses but CRLF input fails: %v", err)
				}
				if d2.Len() != d.Len() || d2.Dim() != d.Dim() {
					t.Fatal("LF and CRLF inputs give different shapes")
				}
			}
		}
	})
}

func FuzzParseLIBSVM(f *testing.F) {
	old := maxDense
	maxDense = 1 << 20
	f.Cleanup(func() { maxDense = old })
	for _, s := range []string{
		"",
		"+1 1:0.5 3:2\n-1 2:-1 # c\n",
		"1 3:2 2:1\n",
		"1 0:1\n",
		"1 1:\n",
		"nan 1:1\n",
		"1 1:1 100000000:1\n",
		"1\n",
		string(gzipSeed("-1 2:3\n")),
	} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, in []byte, dim int) {
		d, err := ParseLIBSVM(bytes.NewReader(in), "fuzz", dim)
		checkFuzzResult(t, d, err)
		if err == nil && dim > 0 && d.Dim() != dim {
			t.Fatalf("Dim %d, want %d", d.Dim(), dim)
		}
	})
}

func FuzzParseIDX(f *testing.F) {
	idx := func(rank byte, dims []uint32, data []byte) []byte {
		b := []byte{0, 0, 8, rank}
		for _, d := range dims {
			b = append(b, byte(d>>24), byte(d>>16), byte(d>>8), byte(d))
		}
		return append(b, data...)
	}
	f.Add(idx(3, []uint32{2, 2, 2}, []byte{0, 1, 2, 3, 4, 5, 6, 255}), byte(3))
	f.Add(idx(1, []uint32{3}, []byte{7, 8, 9}), byte(1))
	f.Add(idx(3, []uint32{1 << 27, 16, 1}, []byte{1, 2}), byte(3)) // announces 2 GiB, holds 2 bytes
	f.Add(idx(3, []uint32{1, 1, 1}, []byte{1, 2}), byte(3))        // trailing data
	f.Add(idx(1, []uint32{2}, []byte{1}), byte(1))
	f.Add(gzipSeed(string(idx(1, []uint32{2}, []byte{1, 2}))), byte(1))
	f.Add([]byte{0, 0, 9, 1, 0, 0, 0, 1, 1}, byte(1))
	f.Add([]byte{}, byte(3))
	f.Fuzz(func(t *testing.T, in []byte, rank byte) {
		rank = rank%3 + 1
		buf, shape, err := parseIDX(bytes.NewReader(in), "fuzz", int(rank), 1<<20)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Msg == "" {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			return
		}
		size := 1
		for _, d := range shape {
			size *= d
		}
		if len(shape) != int(rank) || len(buf) != size {
			t.Fatalf("shape %v, %d bytes", shape, len(buf))
		}
	})
}

// FuzzParseCSVTyped reads text tables with the typed-column options (ID,
// categorical, missing values dropped) and checks that reading the same
// input again with the Coding it made gives the same data set.
func FuzzParseCSVTyped(f *testing.F) {
	for _, s := range []string{
		messyCSV,
		"id,x,g,y\nA,1,a,yes\nB,NA,b,no\nC,3,,yes\n",
		"a,b\nx,1\n3,0\n",
		"g,y\n1,+\n2,-\n1,+\n",
		"a;b;c\nnull;N/A;NaN\n1;2;3\n",
		"x,y\n1,gold\n2,silver\n3,bronze\n",
	} {
		for mode := range byte(8) {
			f.Add([]byte(s), mode)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, mode byte) {
		opt := CSVOptions{}
		if mode&1 != 0 {
			opt.Missing = MissingDrop
		}
		if mode&2 != 0 {
			opt.ID = "1"
		}
		if mode&4 != 0 {
			opt.Categorical = []string{"2"}
		}
		d, err := ParseCSV(bytes.NewReader(in), "fuzz", opt)
		checkFuzzResult(t, d, err)
		if err != nil {
			return
		}
		if d.Coding == nil || !slices.Equal(d.Coding.Features(), d.Names) {
			t.Fatalf("coding %+v does not give the names %v", d.Coding, d.Names)
		}
		if d.IDs != nil && len(d.IDs) != d.Len() {
			t.Fatalf("%d IDs for %d rows", len(d.IDs), d.Len())
		}
		if d.Coding.RowsDropped > 0 || bytes.ContainsAny(in, "\"\r") || d.Coding.Target == "" {
			return
		}
		d2, err := ParseCSV(bytes.NewReader(in), "fuzz", CSVOptions{Coding: d.Coding, Target: d.Target, Missing: opt.Missing})
		if err != nil {
			t.Fatalf("the data do not read with their own coding: %v", err)
		}
		if !slices.Equal(d2.Names, d.Names) || !slices.Equal(d2.Y, d.Y) || !mat.Equal(d2.X, d.X) {
			t.Fatalf("read with its coding: names %v Y %v, want %v %v", d2.Names, d2.Y, d.Names, d.Y)
		}
	})
}
