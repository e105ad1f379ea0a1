package data

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestSniffFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string, gz bool) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if gz {
			zw := gzip.NewWriter(f)
			zw.Write([]byte(content))
			zw.Close()
		} else {
			f.WriteString(content)
		}
		f.Close()
		return p
	}
	for _, c := range []struct {
		path, want string
	}{
		{write("a.txt", "1 1:0.5 3:2\n0 2:1\n", false), "libsvm"},
		{write("b.txt", "x,y\n1,0\n", false), "csv"},
		{write("c.gz", "-1 1:0.5\n", true), "libsvm"},
		{write("d.csv.gz", "a b c\n", true), "csv"},
		{filepath.Join(dir, "e.svm"), "libsvm"}, // by name, unread
		{filepath.Join(dir, "missing"), "csv"},
	} {
		if got := SniffFormat(c.path); got != c.want {
			t.Errorf("SniffFormat(%s) = %s, want %s", filepath.Base(c.path), got, c.want)
		}
	}
}
