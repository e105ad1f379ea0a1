package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFilePipe: a FIFO is read once, whatever its format; the format is
// told from the content.
func TestReadFilePipe(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		gz            bool
		n, d          int
	}{
		{"csv", "a,b,y\n1,2,0\n3,4,1\n", false, 2, 2},
		{"headerless", "1,2,0\n3,4,1\n", false, 2, 2},
		{"libsvm", "1 1:0.5 3:2\n-1 2:1\n", false, 2, 3},
		{"libsvm.gz", "# comment\n\n1 1:0.5 3:2\n-1 2:1\n", true, 2, 3},
	} {
		fifo := filepath.Join(dir, tc.name)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		content := []byte(tc.content)
		if tc.gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(content)
			zw.Close()
			content = b.Bytes()
		}
		// The writer retries on EPIPE: when a signal (Go's preemption, more
		// frequent under load) interrupts the reader's blocking open after
		// the writer's open has paired with it, the kernel restarts the
		// reader's open, the writer meets no reader and the reader would
		// wait for a writer for ever.
		go func() {
			for {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				_, err = f.Write(content)
				f.Close()
				if !errors.Is(err, syscall.EPIPE) {
					return
				}
			}
		}()
		d, err := ReadFile(fifo, "auto", CSVOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Len() != tc.n || d.Dim() != tc.d {
			t.Errorf("%s: %d×%d, want %d×%d", tc.name, d.Len(), d.Dim(), tc.n, tc.d)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "csv"), "xml", CSVOptions{}); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestFormatTable: the table of formats is what ReadFile, SniffFormat and
// ConvertToStore follow — names unique, every row readable, the last row
// (what is left after magic bytes, names and content) the CSV fallback, and
// a name not in the table refused with the table's names.
func TestFormatTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range formats {
		if seen[f.Name] || f.Read == nil {
			t.Errorf("format %q: duplicate or without a reader", f.Name)
		}
		seen[f.Name] = true
	}
	if last := formats[len(formats)-1]; last.Name != "csv" || last.Magic != nil || last.Sniff != nil {
		t.Errorf("the last row is %q: expected csv, the fallback", last.Name)
	}
	if got := strings.Join(Formats(), ","); got != "csv,libsvm,parquet,store" {
		t.Errorf("Formats() = %s", got)
	}
	_, err := ReadFile("x.csv", "xls", CSVOptions{})
	if err == nil || !strings.Contains(err.Error(), "expected csv, libsvm, parquet, store or auto") {
		t.Errorf("unknown format: %v", err)
	}
	for _, tc := range []struct{ head, want string }{
		{"PAR1xxxx", "parquet"}, {storeMagic, "store"}, {"1 3:0.5 7:1\n", "libsvm"}, {"a,b,y\n1,2,0\n", "csv"},
	} {
		if got := SniffFormat(bufio.NewReader(strings.NewReader(tc.head)), "data"); got != tc.want {
			t.Errorf("SniffFormat(%q) = %s, want %s", tc.head, got, tc.want)
		}
	}
}
