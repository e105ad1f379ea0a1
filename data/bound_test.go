package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCategoricalExpansionBounded: a numeric column named categorical with
// one level a row (or a text column coded anyway) becomes n·(levels−1)
// dummies; the bound must hold for the coded matrix, not only for the
// cells as read. Before, 10⁶ rows of 10⁵ levels asked for 745 GiB and the
// process died with Go's out-of-memory trace.
func TestCategoricalExpansionBounded(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("x,g,y\n")
	const n = 2000
	for i := range n {
		fmt.Fprintf(&sb, "%d,%d,%d\n", i%7, i, i%2)
	}
	// As read: 2000 × 3 cells (48 KB); coded: 2000 × 2000 (32 MB).
	_, err := ParseCSV(strings.NewReader(sb.String()), "wide.csv", CSVOptions{Categorical: []string{"g"}, MaxBytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	for _, w := range []string{"wide.csv", `"g"`, "1999 dummies", "bound of 1 MiB"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// Under the bound the same file reads.
	ds, err := ParseCSV(strings.NewReader(sb.String()), "wide.csv", CSVOptions{Categorical: []string{"g"}, MaxBytes: 64 << 20})
	if err != nil || ds.Dim() != 1+n-1 {
		t.Fatalf("dim %v, err %v", ds, err)
	}
}

// TestGzipBombRefusedEarly: a gzip stream expanding more than MaxGzipRatio
// times is refused once it passes bombFloor, not read to the memory bound
// (a 5 MB file peaked at 5.7 GB of RSS before). An ordinary gzip file of
// the same length still reads.
func TestGzipBombRefusedEarly(t *testing.T) {
	defer func(f int64) { bombFloor = f }(bombFloor)
	bombFloor = 256 << 10
	gz := func(row string, n int) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write([]byte("a,b,y\n"))
		zw.Write([]byte(strings.Repeat(row, n)))
		zw.Close()
		return b.Bytes()
	}
	bomb := gz("0.5,0.25,1\n", 100_000) // 1.1 MB of text, ~1000×
	_, err := ParseCSV(bytes.NewReader(bomb), "bomb.csv.gz", CSVOptions{})
	if !errors.Is(err, ErrGzipBomb) || !strings.Contains(err.Error(), "bomb.csv.gz") || !strings.Contains(err.Error(), "gunzip") {
		t.Fatalf("bomb: err = %v, want ErrGzipBomb naming the file and gunzip", err)
	}
	var sb strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for range 30_000 {
		fmt.Fprintf(&sb, "%.3f,%.3f,%d\n", rng.NormFloat64(), rng.NormFloat64(), rng.IntN(2))
	}
	ds, err := ParseCSV(bytes.NewReader(gz(sb.String(), 1)), "real.csv.gz", CSVOptions{})
	if err != nil || ds.Len() != 30_000 {
		t.Fatalf("ordinary gzip: %v", err)
	}
}
